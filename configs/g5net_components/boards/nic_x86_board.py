"""gem5's X86Board with Ethernet NICs."""

from m5.objects import AddrRange, X86IntelMPIOIntAssignment

from gem5.components.boards.abstract_board import AbstractBoard
from gem5.components.boards.x86_board import X86Board
from gem5.components.cachehierarchies.abstract_cache_hierarchy import AbstractCacheHierarchy
from gem5.components.memory.abstract_memory_system import AbstractMemorySystem
from gem5.components.processors.abstract_processor import AbstractProcessor
from gem5.utils.override import overrides

from ..nics.abstract_nic_placement import AbstractNicPlacement
from ..nics.igbe_params import IgbeParams

# PCI device numbers for NICs on bus 0: the IDE controller is device 4.
NIC_PCI_DEVICES = (2, 3, 5, 6, 7, 8)
# I/O APIC pins 0-15 carry the ISA interrupts and 16 the IDE controller's INTA;
# each NIC gets a pin of its own from 17 on (the I82094AA has 24).
FIRST_NIC_IRQ = 17
# X86Board's I/O bridge forwards up to the m5ops page at 0xFFFF0000.
IO_WINDOW_END = 0xFFFF0000


class NicX86Board(X86Board):
    """An X86Board with `len(nics)` IGbE NICs placed by `placement`.

    Three fixes make Linux drive the NICs:
    - Linux puts PCI BARs in the first gap above RAM, but X86Board's I/O
      bridge forwards only 0xC0000000 up
      (src/python/gem5/components/boards/x86_board.py); the bridge here
      forwards everything from the end of RAM to the m5ops page.
    - Each NIC's INTA has its own Intel MP table entry, edge-triggered and
      active high: Linux acknowledges level-triggered I/O APIC interrupts by
      reading the local APIC's trigger mode register, which gem5 does not
      implement (a panic in src/arch/x86/interrupts.cc), and gem5's Pc posts
      PCI interrupts edge-like anyway (Pc::postPciInt, src/dev/x86/pc.cc).
    - MSI is not delivered by gem5's x86 platform: the driver uses legacy
      INTx through those MP entries. gem5's ACPI tables carry no MADT, so
      Linux takes its interrupt routing from the MP table alone.
    """

    def __init__(self, clk_freq: str, processor: AbstractProcessor,
                 memory: AbstractMemorySystem, cache_hierarchy: AbstractCacheHierarchy,
                 nics: list, placement: AbstractNicPlacement) -> None:
        if len(nics) > len(NIC_PCI_DEVICES):
            raise ValueError(f"at most {len(NIC_PCI_DEVICES)} NICs per board, got {len(nics)}")
        # Read by _setup_io_devices, which X86Board's constructor calls.
        self._nic_params: list[IgbeParams] = list(nics)
        self._placement = placement
        super().__init__(clk_freq=clk_freq, processor=processor, memory=memory,
                         cache_hierarchy=cache_hierarchy)

    @overrides(X86Board)
    def _setup_io_devices(self) -> None:
        super()._setup_io_devices()
        ram_end = self.get_memory().get_size()
        self.bridge.ranges = [AddrRange(ram_end, IO_WINDOW_END)] + list(self.bridge.ranges[1:])
        self.ethernet = [
            params.make(self.pc.pci_host, NIC_PCI_DEVICES[i], FIRST_NIC_IRQ + i)
            for i, params in enumerate(self._nic_params)
        ]
        io_apic_id = self.pc.south_bridge.io_apic.apic_id
        routes = [
            X86IntelMPIOIntAssignment(
                interrupt_type="INT", polarity="ActiveHigh", trigger="EdgeTrigger",
                source_bus_id=0, source_bus_irq=NIC_PCI_DEVICES[i] << 2,  # INTA
                dest_io_apic_id=io_apic_id, dest_io_apic_intin=FIRST_NIC_IRQ + i)
            for i in range(len(self._nic_params))
        ]
        # A child of the board first: an entry only listed in the table is an orphan.
        self.nic_irq_routes = routes
        table = self.workload.intel_mp_table
        table.base_entries = list(table.base_entries) + routes

    @overrides(AbstractBoard)
    def _connect_things(self) -> None:
        super()._connect_things()
        # After the cache hierarchy is in: a placement may use its ports.
        paths = [self._placement.attach(self, nic) for nic in self.nics()]
        paths = [p for p in paths if p is not None]
        if paths:
            setattr(self, self._placement.PATHS_NAME, paths)

    def nics(self) -> list:
        return list(self.ethernet)
