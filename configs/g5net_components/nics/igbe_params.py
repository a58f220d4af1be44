"""The spec's `nic` table as an IGbE (gem5's model of the Intel 8254x, driven by Linux's e1000)."""

from dataclasses import dataclass

from m5.objects import IGbE_e1000


@dataclass(frozen=True)
class IgbeParams:
    mac: str
    rx_fifo_kib: int
    tx_fifo_kib: int
    rx_desc_cache: int
    tx_desc_cache: int

    @classmethod
    def from_spec(cls, nic, mac: str) -> "IgbeParams":
        """From a `g5net.spec.Nic`. Its `intr_delay_ns` is no device parameter:
        the e1000 driver programs the delay timers, so the engine passes it
        on the kernel command line."""
        return cls(mac=mac, rx_fifo_kib=nic.rx_fifo_kib, tx_fifo_kib=nic.tx_fifo_kib,
                   rx_desc_cache=nic.rx_desc_cache, tx_desc_cache=nic.tx_desc_cache)

    def make(self, pci_host, pci_dev: int, irq: int) -> IGbE_e1000:
        """The NIC at PCI 0:`pci_dev`.0, its INTA wired to I/O APIC pin `irq`."""
        return IGbE_e1000(host=pci_host, pci_bus=0, pci_dev=pci_dev, pci_func=0,
                          InterruptLine=irq, InterruptPin=1, hardware_address=self.mac,
                          rx_fifo_size=f"{self.rx_fifo_kib}KiB",
                          tx_fifo_size=f"{self.tx_fifo_kib}KiB",
                          rx_desc_cache_size=self.rx_desc_cache,
                          tx_desc_cache_size=self.tx_desc_cache)
