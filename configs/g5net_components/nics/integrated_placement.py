"""A NIC on the processor chip, like Niagara 2's NIU."""

from m5.objects import Cache, EtherDevice

from gem5.utils.override import overrides

from .abstract_nic_placement import AbstractNicPlacement

# An on-chip register access: a few tens of core cycles through the chip's
# crossbar rather than a trip across PCIe.
ONCHIP_PIO_LATENCY = "20ns"
# The NIC's DMA engine buffer, in board cycles: on chip, a couple per access.
DMA_BUFFER_CYCLES = 2


class IntegratedPlacement(AbstractNicPlacement):
    """DMA enters the coherent memory bus directly, beside the memory
    controllers, through an on-chip DMA buffer instead of the I/O bus,
    bridge and I/O cache; with
    `dca`, it enters above the shared last-level cache instead, so received
    data is written into (allocated in) that cache, as direct cache access does.

    Registers stay on the I/O bus (the PIO path is not what the study
    compares), with an on-chip access latency: Linux places the NIC's BAR at
    boot, and a device on the membus would claim addresses that the I/O
    bridge also forwards.
    """

    PLACEMENT = "integrated"
    PATHS_NAME = "dma_buffers"

    def __init__(self, dca: bool = False) -> None:
        self._dca = dca

    @classmethod
    def from_spec(cls, nic_spec) -> "IntegratedPlacement":
        return cls(dca=nic_spec.dca)

    @overrides(AbstractNicPlacement)
    def attach(self, board, nic: EtherDevice) -> Cache:
        nic.pio_latency = ONCHIP_PIO_LATENCY
        nic.pio = board.get_io_bus().mem_side_ports
        hierarchy = board.get_cache_hierarchy()
        # A device's plain writes cannot enter a coherent crossbar (its snoop
        # filter asserts on them): like gem5's I/O cache, a small buffer turns
        # them into coherent requests, here on chip.
        buffer = Cache(size="1KiB", assoc=8, tag_latency=DMA_BUFFER_CYCLES,
                       data_latency=DMA_BUFFER_CYCLES, response_latency=DMA_BUFFER_CYCLES,
                       mshrs=20, tgts_per_mshr=12, addr_ranges=board.mem_ranges)
        nic.dma = buffer.cpu_side
        buffer.mem_side = (hierarchy.get_llc_cpu_side_port() if self._dca
                           else hierarchy.get_cpu_side_port())
        return buffer
