"""Each CPU's utilisation in a dump, from gem5's own power-state residency:
the share of the dump a CPU spent ON rather than CLK_GATED (halted), which
every CPU model keeps, so no guest clock is needed."""

from __future__ import annotations

import re
from collections import defaultdict

from .model import Dump

# `<host>.processor.cores<i>.core.power_state.pwrStateResidencyTicks::ON`: one
# gem5 CPU per hardware thread, numbered as the guest numbers its CPUs (a
# one-CPU standard-library board says `cores`).
_RESIDENCY = re.compile(r"([^.]+)\.processor\.cores(\d*)\.core\.power_state\."
                        r"pwrStateResidencyTicks::(ON|CLK_GATED)")


def per_cpu(dump: Dump) -> dict[str, list[float]]:
    """host -> each CPU's busy fraction (ON / (ON + CLK_GATED)), by CPU number;
    gem5 leaves a state it never entered out of the dump."""
    ticks: dict[str, dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for name, stat in dump.items():
        if name.endswith(("::ON", "::CLK_GATED")):
            m = _RESIDENCY.fullmatch(name)
            if m:
                ticks[m[1]][int(m[2] or 0)][m[3]] = stat.value
    out = {}
    for host, cpus in ticks.items():
        out[host] = [_busy(cpus[i]) for i in sorted(cpus)]
    return out


def _busy(t: dict[str, float]) -> float:
    total = t.get("ON", 0) + t.get("CLK_GATED", 0)
    return t.get("ON", 0) / total if total else 0.0


def per_core(cpus: list[float], threads_per_core: int) -> list[float]:
    """A core's utilisation: the mean of its threads' (CPU i is thread i % t of core i // t)."""
    t = max(1, threads_per_core)
    return [sum(cpus[i:i + t]) / len(cpus[i:i + t]) for i in range(0, len(cpus), t)]
