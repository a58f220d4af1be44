"""A discrete NIC on a PCIe slot."""

from m5.objects import EtherDevice

from gem5.utils.override import overrides

from .abstract_nic_placement import AbstractNicPlacement
from .pcie_link import PcieLink


class PciePlacement(AbstractNicPlacement):
    """The NIC behind its own PCIe link: register accesses and DMA both cross
    it, and DMA then enters memory through the I/O bus and the coherent I/O
    cache, as a root complex's would.
    """

    PLACEMENT = "pcie"
    PATHS_NAME = "pcie_links"

    def __init__(self, nic_spec) -> None:
        """`nic_spec`: the host's spec.Nic; its pcie_* keys (defaults and
        sources in g5net/spec.py) size every link."""
        self._nic_spec = nic_spec

    @classmethod
    def from_spec(cls, nic_spec) -> "PciePlacement":
        return cls(nic_spec)

    @overrides(AbstractNicPlacement)
    def attach(self, board, nic: EtherDevice) -> PcieLink:
        link = PcieLink(self._nic_spec)
        link.downstream.cpu_side_ports = board.get_io_bus().mem_side_ports
        nic.pio = link.downstream.mem_side_ports
        nic.dma = link.dma_monitor.cpu_side_port
        link.root_port.mem_side_port = board.get_io_bus().cpu_side_ports
        return link
