"""Each CPU's busy time in a dump, from gem5's own counters, so that no guest
clock is needed (GEM5-NOTES: busy and idle per CPU). A dump counts from the
last stats reset; each CPU's figure is (busy ticks, the dump's ticks):

- simple CPUs (atomic, timing): the busy share is gem5's time-weighted
  average since the reset (`exec_context.thread_0.numBusyCycles` over it and
  `numIdleCycles`), brought up to the dump's tick when it is printed;
- O3: the busy cycles are `numCycles` less `idleCycles`, times the host's
  clock period (`<host>.clk_domain.clock`: the cores run on the board's
  clock, configs/g5net_hosts.py).

Not over the CPU's own count of its cycles: gem5 adds a halted CPU's cycles
only when it wakes (O3's `quiesceCycles` and `idleCycles` in
`CPU::activateContext` and `CPU::wakeCPU`, src/cpu/o3/cpu.cc; the simple
CPUs' `numCycles` likewise), counted from when it went to sleep, reset or
not. So a CPU asleep at the dump lacks the cycles of that sleep, one asleep
since the reset has none (a Niagara 2 receiver's CPU slept through two 5 ms
windows, then counted 43 million cycles at once), and one woken after the
reset counts cycles from before it. Both busy figures above are immune: a
wake adds as many to `idleCycles` as to `numCycles`, and the busy share is
an average over time. Where a dump lacks the clock, an O3 CPU's share falls
back to its busy cycles over `numCycles` and `quiesceCycles`.

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
_SIMPLE_BUSY, _SIMPLE_IDLE = "exec_context.thread_0.numBusyCycles", "exec_context.thread_0.numIdleCycles"


def _busy_share(c: dict[str, float], ticks: int, clock: float | None) -> float:
    """The CPU's busy share of the dump's `ticks` (module docstring). gem5
    prints no O3 `idleCycles` or `quiesceCycles` that are 0."""
    if _SIMPLE_BUSY in c or _SIMPLE_IDLE in c:
        busy, idle = c.get(_SIMPLE_BUSY, 0), c.get(_SIMPLE_IDLE, 0)
        return busy / (busy + idle) if busy + idle else 0.0
    busy = c.get("numCycles", 0) - c.get("idleCycles", 0)
    if not busy or not ticks:
        return 0.0
    if clock:
        return busy * clock / ticks
    return busy / (c["numCycles"] + c.get("quiesceCycles", 0))


def per_cpu(dump: Dump) -> dict[str, list[tuple[float, float]]]:
    """host -> each CPU's (busy ticks, all ticks of the dump), by CPU number."""
    counters: dict[str, dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for name, stat in dump.items():
        if name.endswith(_LEAVES):
            m = _COUNTER.fullmatch(name)
            if m:
                counters[m[1]][int(m[2] or 0)][m[3]] = stat.value
    ticks = int(dump.value("simTicks"))
    out = {}
    for host, cpus in counters.items():
        clock = dump.get(f"{host}.clk_domain.clock")
        shares = [_busy_share(cpus[i], ticks, clock.value if clock else None) for i in sorted(cpus)]
        out[host] = [(share * ticks, float(ticks)) for share in shares]
    return out


def per_core(cpus: list[float], threads_per_core: int) -> list[float]:
    """A core's utilisation: the mean of its threads' (CPU i is thread i % t of core i // t)."""
    t = max(1, threads_per_core)
    return [sum(cpus[i:i + t]) / len(cpus[i:i + t]) for i in range(0, len(cpus), t)]
