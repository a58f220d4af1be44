"""Where a NIC sits relative to the CPUs and memory: its PIO and DMA paths."""

import abc

from m5.objects import EtherDevice, SimObject


class AbstractNicPlacement(abc.ABC):
    """Wires a NIC's `pio` (CPU to device registers) and `dma` (device to
    memory) ports into a board. One placement object serves every NIC of a
    host; a new placement is one new file, whose class carries its name in
    g5net/contract/catalogue.py's NIC_PLACEMENTS as `PLACEMENT` (registry.py
    finds it by that name).

    `PATHS_NAME` names the board's child holding what `attach` builds. Each
    placement has its own: a checkpoint (always booted on the PCIe path) is
    restored by object name, and gem5 refuses to restore one kind of object
    from another's section.
    """

    PLACEMENT = ""
    PATHS_NAME = ""

    @classmethod
    @abc.abstractmethod
    def from_spec(cls, nic_spec) -> "AbstractNicPlacement":
        """The placement of a host whose spec.Nic is `nic_spec`."""

    @abc.abstractmethod
    def attach(self, board, nic: EtherDevice) -> SimObject | None:
        """Connect `nic` to `board` (a `NicX86Board` whose cache hierarchy is
        incorporated). Returns what the path is built of, for the board to
        adopt as a child, or None when the NIC is wired to existing ports only.
        """
