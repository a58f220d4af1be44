"""The measured hosts' classic caches, shaped by the spec's `caches` table."""

import sys

from m5.objects import BadAddr, Cache, L2XBar, Port, SimpleMemDelay, SystemXBar

from gem5.components.boards.abstract_board import AbstractBoard
from gem5.components.cachehierarchies.abstract_cache_hierarchy import AbstractCacheHierarchy
from gem5.components.cachehierarchies.classic.abstract_classic_cache_hierarchy import (
    AbstractClassicCacheHierarchy,
)
from gem5.components.cachehierarchies.classic.caches.mmu_cache import MMUCache
from gem5.utils.override import overrides

from ..params import ConfigError
from ..processors.multithreaded_processor import MultithreadedProcessor
from ..processors.switching_processor import SwitchingProcessor
from .abstract_nic_aware_hierarchy import AbstractNicAwareHierarchy
from .cache_level import CacheLevel


class ConfigurableCacheHierarchy(AbstractNicAwareHierarchy):
    """Per-core L1I and L1D shared by the core's threads; an optional L2, one
    per core or one shared; an optional shared L3; a coherent membus below.

    A core with several threads (`MultithreadedProcessor`) puts a crossbar in
    front of each of its L1s so that the threads' gem5 CPUs share them; each
    thread reaches the data crossbar through a port queue of its own
    (`dthreadports`, below). Each
    thread keeps its own small page-walk caches, as gem5's standard
    hierarchies do. Device DMA from the I/O bus enters through an I/O cache
    on the membus (coherent I/O); a NIC placement may enter elsewhere.

    An L1D has at least one MSHR more than the threads that share it
    (`l1d_mshrs`): gem5 holds an L1 MSHR for each locked read-modify-write
    from its read until its write, and an L1 whose MSHRs all hold one blocks
    and refuses the very writes that would free them, a deadlock.

    A thread's port queue (gem5's `SimpleMemDelay` at zero delay: it accepts
    every request, passes snoops through, and pays the crossbar's response
    latency, which the simple CPUs ignore) takes both halves of an access
    that spans two cache lines. Straight on the crossbar, the second half
    finds the layer still busy with the first and waits for a retry; with
    the core's other threads queued on the layer the first half's response
    can come back before that retry, and gem5's timing CPU then fails an
    assertion (src/cpu/simple/timing.cc, completeDataAccess: a response
    while it waits for a retry).
    """

    def __init__(self, l1i: CacheLevel, l1d: CacheLevel, l2: CacheLevel | None,
                 l2_shared: bool, l3: CacheLevel | None) -> None:
        super().__init__()
        self._l1i, self._l1d, self._l2, self._l3 = l1i, l1d, l2, l3
        self._l2_shared = l2_shared
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
        if self._l3:
            return self.l3bus.cpu_side_ports
        if self._l2 and self._l2_shared:
            return self.l2bus.cpu_side_ports
        # The spec refuses nic.dca without one (Caches.shared_last_level).
        raise ConfigError("no shared last-level cache for direct cache access")

    @overrides(AbstractCacheHierarchy)
    def incorporate_cache(self, board: AbstractBoard) -> None:
        processor = board.get_processor()
        if not isinstance(processor, (MultithreadedProcessor, SwitchingProcessor)):
            raise ConfigError(f"{type(self).__name__} needs a processor of hardware threads, "
                              f"got {type(processor).__name__}")
        board.connect_system_port(self.membus.cpu_side_ports)
        for _, port in board.get_memory().get_mem_ports():
            self.membus.mem_side_ports = port

        below_l2 = self.membus.cpu_side_ports
        if self._l3:
            self.l3bus = L2XBar()
            self.l3cache = self._l3.make()
            self.l3bus.mem_side_ports = self.l3cache.cpu_side
            self.l3cache.mem_side = self.membus.cpu_side_ports
            below_l2 = self.l3bus.cpu_side_ports
        if self._l2 and self._l2_shared:
            self.l2bus = L2XBar()
            self.l2cache = self._l2.make()
            self.l2bus.mem_side_ports = self.l2cache.cpu_side
            self.l2cache.mem_side = below_l2

        groups = processor.core_threads()
        self.l1icaches = [self._l1i.make(writeback_clean=False) for _ in groups]
        self.l1dcaches = [self._l1d.make(mshrs=l1d_mshrs(self._l1d.mshrs, len(g)))
                          for g in groups]
        threads = processor.get_cores()
        self.iptw_caches = [MMUCache(size="8KiB", writeback_clean=False) for _ in threads]
        self.dptw_caches = [MMUCache(size="8KiB", writeback_clean=False) for _ in threads]
        if self._l2 and not self._l2_shared:
            self.l2buses = [L2XBar() for _ in groups]
            self.l2caches = [self._l2.make() for _ in groups]
        if any(len(g) > 1 for g in groups):
            self.ithreadbuses = [L2XBar() for _ in groups]
            self.dthreadbuses = [L2XBar() for _ in groups]
            self.dthreadports = [SimpleMemDelay() for _ in threads]

        first_thread = 0
        for c, group in enumerate(groups):
            above = self._core_mem_side(c, below_l2)
            self.l1icaches[c].mem_side = above
            self.l1dcaches[c].mem_side = above
            for t, thread in enumerate(group, start=first_thread):
                if len(group) > 1:
                    thread.connect_icache(self.ithreadbuses[c].cpu_side_ports)
                    thread.connect_dcache(self.dthreadports[t].cpu_side_port)
                    self.dthreadports[t].mem_side_port = self.dthreadbuses[c].cpu_side_ports
                else:
                    thread.connect_icache(self.l1icaches[c].cpu_side)
                    thread.connect_dcache(self.l1dcaches[c].cpu_side)
                self.iptw_caches[t].mem_side = above
                self.dptw_caches[t].mem_side = above
                thread.connect_walker_ports(self.iptw_caches[t].cpu_side,
                                            self.dptw_caches[t].cpu_side)
                thread.connect_interrupt(self.membus.mem_side_ports, self.membus.cpu_side_ports)
            if len(group) > 1:
                self.ithreadbuses[c].mem_side_ports = self.l1icaches[c].cpu_side
                self.dthreadbuses[c].mem_side_ports = self.l1dcaches[c].cpu_side
            first_thread += len(group)

        # Coherent I/O: DMA from the I/O bus, as gem5's standard hierarchies do it.
        self.iocache = Cache(assoc=8, tag_latency=50, data_latency=50, response_latency=50,
                             mshrs=20, size="1KiB", tgts_per_mshr=12,
                             addr_ranges=board.mem_ranges)
        self.iocache.cpu_side = board.get_mem_side_coherent_io_port()
        self.iocache.mem_side = self.membus.cpu_side_ports

    def _core_mem_side(self, core: int, below_l2: Port) -> Port:
        """Where core `core`'s L1s send their misses."""
        if not self._l2:
            return below_l2
        if self._l2_shared:
            return self.l2bus.cpu_side_ports
        self.l2buses[core].mem_side_ports = self.l2caches[core].cpu_side
        self.l2caches[core].mem_side = below_l2
        return self.l2buses[core].cpu_side_ports


def l1d_mshrs(mshrs: int, threads: int) -> int:
    """The MSHRs of an L1D that `threads` gem5 CPUs share, the spec asking for
    `mshrs`: at least one more than the threads.

    A locked read-modify-write (x86 `lock`, every spinlock and atomic) holds
    an L1 MSHR from its read until its write (src/mem/cache/base.cc,
    handleTimingReqHit: the MSHR catches snoops meanwhile), and an L1 whose
    MSHRs are all taken blocks its CPU side: with every MSHR held by a
    different thread's locked read, the writes that would release them are
    refused and the core's threads, then the host, stop for good (with
    Niagara 2's eight threads and the default four MSHRs, right after the
    restore). A thread has at most one locked access open (x86 locked
    instructions are fenced on both sides, and a CPU here runs one thread), so
    one MSHR more than the threads always leaves one for a miss, whose
    completion unblocks the cache. Only timing memory is affected; an L1I
    sees no locked accesses."""
    needed = threads + 1
    if mshrs < needed:
        print(f"g5net: an L1D shared by {threads} thread(s) gets {needed} MSHRs, not "
              f"caches.l1_mshrs = {mshrs}: gem5 holds one per open locked access",
              file=sys.stderr)
    return max(mshrs, needed)
