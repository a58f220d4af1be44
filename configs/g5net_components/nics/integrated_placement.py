"""A NIC on the processor chip, like Niagara 2's NIU."""

from m5.objects import EtherDevice

from gem5.utils.override import overrides

from .abstract_nic_placement import AbstractNicPlacement

# An on-chip register access: a few tens of core cycles through the chip's
# crossbar rather than a trip across PCIe.
ONCHIP_PIO_LATENCY = "20ns"


class IntegratedPlacement(AbstractNicPlacement):
    """DMA enters the coherent memory bus directly, beside the memory
    controllers, without an I/O bus, bridge or I/O cache on the way; with
    `dca`, it enters above the shared last-level cache instead, so received
    data is written into (allocated in) that cache, as direct cache access does.

    Registers stay on the I/O bus (the PIO path is not what the study
    compares), with an on-chip access latency: Linux places the NIC's BAR at
    boot, and a device on the membus would claim addresses that the I/O
    bridge also forwards.
    """

    def __init__(self, dca: bool = False) -> None:
        self._dca = dca

    @overrides(AbstractNicPlacement)
    def attach(self, board, nic: EtherDevice) -> None:
        nic.pio_latency = ONCHIP_PIO_LATENCY
        nic.pio = board.get_io_bus().mem_side_ports
        hierarchy = board.get_cache_hierarchy()
        nic.dma = hierarchy.get_llc_cpu_side_port() if self._dca else hierarchy.get_cpu_side_port()
        return None
