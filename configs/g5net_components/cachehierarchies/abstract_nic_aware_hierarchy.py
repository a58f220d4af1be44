"""What a NIC placement needs from a classic cache hierarchy besides the membus."""

import abc

from m5.objects import Port

from gem5.components.cachehierarchies.classic.abstract_classic_cache_hierarchy import (
    AbstractClassicCacheHierarchy,
)


class AbstractNicAwareHierarchy(AbstractClassicCacheHierarchy):
    """A classic hierarchy that says where device DMA can enter it.

    (A SimObject class has gem5's metaclass, which does not combine with
    ABCMeta: `abstractmethod` marks the method for readers and linters only.)

    `get_cpu_side_port()` (the membus) is the coherent point beside the
    memory controllers; `get_llc_cpu_side_port()` is above the last-level
    cache, where a DMA write allocates in that cache (direct cache access).
    Valid once `incorporate_cache` has run.
    """

    @abc.abstractmethod
    def get_llc_cpu_side_port(self) -> Port:
        """A CPU-side port of the crossbar in front of the shared last-level cache."""
