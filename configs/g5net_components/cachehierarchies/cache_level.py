"""One level of a classic cache hierarchy, in the spec's units."""

from dataclasses import dataclass

from m5.objects import Cache


@dataclass(frozen=True)
class CacheLevel:
    size_kib: int
    assoc: int
    latency_cycles: int
    mshrs: int

    def make(self, **overrides) -> Cache:
        """A gem5 `Cache` of this level.

        A hit costs `latency_cycles`: gem5 looks tags and data up in parallel
        unless `sequential_access` is set, so the hit latency is the larger of
        the two. No prefetcher, so that what a study changes is what moves.
        """
        params = dict(size=f"{self.size_kib}KiB", assoc=self.assoc,
                      tag_latency=self.latency_cycles, data_latency=self.latency_cycles,
                      response_latency=1, mshrs=self.mshrs, tgts_per_mshr=20,
                      writeback_clean=False)
        params.update(overrides)
        return Cache(**params)
