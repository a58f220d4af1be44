"""Each CPU's utilisation in a dump, from gem5's own cycle counters, so that no
guest clock is needed (GEM5-NOTES: busy and idle per CPU):

- simple CPUs (atomic, timing): `exec_context.thread_0.numBusyCycles` and
  `numIdleCycles`, gem5's time-weighted split of the dump's cycles;
- O3: `numCycles` less `idleCycles` is busy, and `quiesceCycles` (halted)
  come on top of `numCycles`.

Not the CPUs' power-state residency (`pwrStateResidencyTicks::ON`): gem5 does
not restart its count at a stats reset, so a region's first state is counted
from before the region began (measured: 89 ms ON in a 74 ms region).
"""

from __future__ import annotations

import re
from collections import defaultdict

from .model import Dump

# `<host>.processor.cores<i>.core.<counter>`: one gem5 CPU per hardware thread,
# numbered as the guest numbers its CPUs (a one-CPU board says `cores`).
_COUNTER = re.compile(r"([^.]+)\.processor\.cores(\d*)\.core\.(exec_context\.thread_0\.numBusyCycles|"
                      r"exec_context\.thread_0\.numIdleCycles|numCycles|idleCycles|quiesceCycles)")
_LEAVES = ("numBusyCycles", "numIdleCycles", "numCycles", "idleCycles", "quiesceCycles")


def _busy_and_total(c: dict[str, float]) -> tuple[float, float] | None:
    if "exec_context.thread_0.numBusyCycles" in c:
        busy = c["exec_context.thread_0.numBusyCycles"]
        return busy, busy + c.get("exec_context.thread_0.numIdleCycles", 0)
    if "idleCycles" in c or "quiesceCycles" in c:
        cycles = c.get("numCycles", 0)
        return cycles - c.get("idleCycles", 0), cycles + c.get("quiesceCycles", 0)
    return None


def per_cpu(dump: Dump) -> dict[str, list[tuple[float, float]]]:
    """host -> each CPU's (busy cycles, all cycles of the dump), by CPU number.
    A CPU halted since the reset shows (0, 0): gem5 counts a halted CPU's
    cycles only once it wakes (a Niagara 2 receiver's CPU slept through two
    5 ms windows, then counted 43 million cycles at once)."""
    counters: dict[str, dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for name, stat in dump.items():
        if name.endswith(_LEAVES):
            m = _COUNTER.fullmatch(name)
            if m:
                counters[m[1]][int(m[2] or 0)][m[3]] = stat.value
    out = {}
    for host, cpus in counters.items():
        pairs = [_busy_and_total(cpus[i]) for i in sorted(cpus)]
        if pairs and all(p is not None for p in pairs):
            out[host] = [p for p in pairs if p is not None]
    return out


def per_core(cpus: list[float], threads_per_core: int) -> list[float]:
    """A core's utilisation: the mean of its threads' (CPU i is thread i % t of core i // t)."""
    t = max(1, threads_per_core)
    return [sum(cpus[i:i + t]) / len(cpus[i:i + t]) for i in range(0, len(cpus), t)]
