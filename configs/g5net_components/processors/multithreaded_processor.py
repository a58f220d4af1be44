"""A processor of `cores` cores with `threads_per_core` hardware threads each."""

from gem5.components.processors.base_cpu_processor import BaseCPUProcessor
from gem5.components.processors.cpu_types import CPUTypes
from gem5.components.processors.simple_core import SimpleCore
from gem5.isas import ISA


class MultithreadedProcessor(BaseCPUProcessor):
    """Hardware threads as one single-threaded gem5 CPU each.

    gem5's O3 CPU refuses SMT in full-system mode ("SMT is not supported in O3
    in full system mode currently", src/cpu/o3/cpu.cc), and the simple CPUs
    interleave threads rather than model a multithreaded core, so a thread is
    a whole CPU here for every CPU model alike. What makes threads one core is
    that they share the core's L1 caches
    (`ConfigurableCacheHierarchy` puts one L1I/L1D pair in front of each
    `core_threads()` group). Threads therefore do not share a pipeline: with
    `o3`, each thread has its own. Linux sees cores x threads CPUs.
    """

    def __init__(self, cpu_type: CPUTypes, cores: int, threads_per_core: int) -> None:
        self._threads_per_core = threads_per_core
        super().__init__(cores=[SimpleCore(cpu_type=cpu_type, core_id=i, isa=ISA.X86)
                                for i in range(cores * threads_per_core)])

    def core_threads(self) -> list:
        """The gem5 CPU cores (one per hardware thread), grouped by physical core."""
        return thread_groups(self.get_cores(), self._threads_per_core)


def thread_groups(threads: list, per_core: int) -> list:
    """`threads` (gem5 CPUs in core order) grouped `per_core` to a core."""
    return [threads[i:i + per_core] for i in range(0, len(threads), per_core)]
