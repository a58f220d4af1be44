"""Sun UltraSPARC T2 (Niagara 2), as far as a processor's shape goes."""

from gem5.components.processors.cpu_types import CPUTypes

from .multithreaded_processor import MultithreadedProcessor

# Module constants: a SimObject class takes only gem5 parameters as attributes.
CORES = 8
THREADS_PER_CORE = 8


class Niagara2Processor(MultithreadedProcessor):
    """8 cores x 8 threads (Liao & Bhuyan's system, STUDIES.md study 5).

    The x86 ISA stands in for SPARC; the shape that the study's effects depend
    on is kept: many slow threads (1.2 GHz, the board clock that `g5net.spec`
    sets for this preset), a core's threads sharing a 16 KiB 8-way L1I and an
    8 KiB 4-way L1D, one shared 4 MiB 16-way L2 (the caches come from the
    resolved spec too). Core and thread counts can be lowered for CPU-count
    sweeps.
    """

    def __init__(self, cpu_type: CPUTypes, cores: int = CORES,
                 threads_per_core: int = THREADS_PER_CORE) -> None:
        super().__init__(cpu_type=cpu_type, cores=cores, threads_per_core=threads_per_core)
