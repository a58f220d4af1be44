"""No caches: the CPUs on the memory bus. What hosts boot with."""

from m5.objects import BadAddr, Bridge, Port, SystemXBar

from gem5.components.boards.abstract_board import AbstractBoard
from gem5.components.cachehierarchies.abstract_cache_hierarchy import AbstractCacheHierarchy
from gem5.components.cachehierarchies.classic.abstract_classic_cache_hierarchy import (
    AbstractClassicCacheHierarchy,
)
from gem5.utils.override import overrides

from .abstract_nic_aware_hierarchy import AbstractNicAwareHierarchy


class UncachedHierarchy(AbstractNicAwareHierarchy):
    """Every CPU port straight on a coherent memory bus.

    Booting needs no caches: the atomic CPU with none is the fastest way
    through the kernel, and a checkpoint holds no cache state anyway (gem5
    writes caches back before it serialises). With no cache, direct cache
    access has nowhere to allocate: its port is the membus.
    """

    def __init__(self) -> None:
        super().__init__()
        self.membus = SystemXBar(width=64)
        self.membus.badaddr_responder = BadAddr()
        self.membus.default = self.membus.badaddr_responder.pio

    @overrides(AbstractClassicCacheHierarchy)
    def get_mem_side_port(self) -> Port:
        return self.membus.mem_side_ports

    @overrides(AbstractClassicCacheHierarchy)
    def get_cpu_side_port(self) -> Port:
        return self.membus.cpu_side_ports

    @overrides(AbstractNicAwareHierarchy)
    def get_llc_cpu_side_port(self) -> Port:
        return self.membus.cpu_side_ports

    @overrides(AbstractCacheHierarchy)
    def incorporate_cache(self, board: AbstractBoard) -> None:
        board.connect_system_port(self.membus.cpu_side_ports)
        for _, port in board.get_memory().get_mem_ports():
            self.membus.mem_side_ports = port
        for core in board.get_processor().get_cores():
            core.connect_icache(self.membus.cpu_side_ports)
            core.connect_dcache(self.membus.cpu_side_ports)
            core.connect_walker_ports(self.membus.cpu_side_ports, self.membus.cpu_side_ports)
            core.connect_interrupt(self.membus.mem_side_ports, self.membus.cpu_side_ports)
        # Device DMA from the I/O bus into memory.
        self.iobridge = Bridge(delay="10ns", ranges=board.mem_ranges)
        self.iobridge.mem_side_port = self.membus.cpu_side_ports
        self.iobridge.cpu_side_port = board.get_mem_side_coherent_io_port()
