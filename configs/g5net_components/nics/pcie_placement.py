"""A discrete NIC on a PCIe slot."""

from m5.objects import EtherDevice

from gem5.utils.override import overrides

from .abstract_nic_placement import AbstractNicPlacement
from .pcie_link import PcieLink

# PCIe Gen2 x8, the discrete NIC of Liao & Bhuyan's Niagara 2 study: 5 GT/s per
# lane with 8b/10b coding is 500 MB/s per lane and direction, 4 GB/s for x8.
GEN2_X8_GBYTES_PER_S = 4.0
# One-way latency across the link and root complex. Measured PCIe round trips
# (an MMIO read, a small DMA read) are several hundred ns on servers of that
# era (Neugebauer et al., "Understanding PCIe performance for end host
# networking", SIGCOMM 2018), so about 200 ns each way.
ONE_WAY_LATENCY_NS = 200.0


class PciePlacement(AbstractNicPlacement):
    """The NIC behind its own PCIe link: register accesses and DMA both cross
    it, and DMA then enters memory through the I/O bus and the coherent I/O
    cache, as a root complex's would.
    """

    PATHS_NAME = "pcie_links"

    def __init__(self, gbytes_per_s: float = GEN2_X8_GBYTES_PER_S,
                 latency_ns: float = ONE_WAY_LATENCY_NS) -> None:
        self._gbytes_per_s = gbytes_per_s
        self._latency_ns = latency_ns

    @overrides(AbstractNicPlacement)
    def attach(self, board, nic: EtherDevice) -> PcieLink:
        link = PcieLink(self._gbytes_per_s, self._latency_ns)
        link.downstream.cpu_side_ports = board.get_io_bus().mem_side_ports
        nic.pio = link.downstream.mem_side_ports
        nic.dma = link.upstream.cpu_side_ports
        link.upstream.mem_side_ports = board.get_io_bus().cpu_side_ports
        return link
