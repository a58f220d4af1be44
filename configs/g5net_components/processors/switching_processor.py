"""A MultithreadedProcessor that starts on one CPU model and switches to another."""

from gem5.components.boards.abstract_board import AbstractBoard
from gem5.components.processors.cpu_types import CPUTypes, get_mem_mode
from gem5.components.processors.simple_core import SimpleCore
from gem5.components.processors.switchable_processor import SwitchableProcessor
from gem5.isas import ISA
from gem5.utils.override import overrides

from g5net.contract import gem5 as contract

from .multithreaded_processor import thread_groups

# The starting CPUs carry BaseCPUProcessor's attribute name, so that a
# checkpoint's CPU state (saved under board.processor.cores*) restores into
# them; the detailed CPUs have no section there and take over at the switch.
START = "cores"
DETAILED = contract.SWITCHED_CPUS


class SwitchingProcessor(SwitchableProcessor):
    """Every hardware thread twice: as a `start` CPU (the fast model that warms
    the caches after a restore) and as a `detailed` one, switched to once.

    Only the starting CPUs are wired to the caches and interrupts; gem5's
    switch (BaseCPU::takeOverFrom) hands their ports, MMU walkers and
    interrupt controllers to the detailed ones, which need none of their own
    while switched out. Threads group into cores as MultithreadedProcessor's.
    """

    def __init__(self, start: CPUTypes, detailed: CPUTypes, cores: int,
                 threads_per_core: int) -> None:
        self._threads_per_core = threads_per_core
        self._mem_mode = get_mem_mode(start)
        n = cores * threads_per_core
        super().__init__(
            switchable_cores={key: [SimpleCore(cpu_type=t, core_id=i, isa=ISA.X86) for i in range(n)]
                              for key, t in ((START, start), (DETAILED, detailed))},
            starting_cores=START)

    @overrides(SwitchableProcessor)
    def incorporate_processor(self, board: AbstractBoard) -> None:
        super().incorporate_processor(board)
        board.set_mem_mode(self._mem_mode)

    def core_threads(self) -> list:
        """The current gem5 CPUs (one per hardware thread), grouped by physical core."""
        return thread_groups(self.get_cores(), self._threads_per_core)

    def switch(self) -> None:
        """To the detailed CPUs (gem5 drains the system and, for a timing
        model, changes the memory mode)."""
        self.switch_to_processor(DETAILED)
