"""What each metric of a run's `metrics.json` is (g5net/metrics/derive.py writes
them): its unit, where it comes from and what it means, as each family defines
it beside the code that computes it. `g5net.load`'s `unit` column and
docs/metrics.md are read from here.

Values are stored as measured: `cpu_util` is a fraction, the breakdown's
shares are percent.
"""

from __future__ import annotations

from . import aggregate, gem5, guest, profile, repeats, windows
from .metric import RunMetric

# Where a metric comes from.
SOURCES = {
    "guest": "the workload's own report, and /proc in the guest over the workload's region of "
             "interest (both engines)",
    "gem5": "gem5's statistics of the workload's region of interest, summed per host as "
            "g5net/stats/catalogue.py says (gem5 runs only)",
    "profile": "where the CPU time of a workload goes: gem5's program-counter samples where "
               "the spec sets `experiment.pc_sample_us` (unperturbed), else the guest's kernel "
               "function profile of a workload with `profile = true` (g5net/metrics/profile.py; "
               "metrics.json's `breakdown` says which)",
    "aggregate": "every client of a workload together: metrics.json's `aggregate`, under "
                 "host `aggregate`",
    "windows": "a workload measured as windows inside its running stream (`experiment.windows`; "
               "g5net/metrics/windows.py)",
    "repeats": "a run measured several times (`experiment.repeats`; g5net/metrics/repeats.py)",
}

CATALOGUE: tuple[RunMetric, ...] = (guest.METRICS + gem5.METRICS + profile.METRICS + aggregate.METRICS
                                    + windows.METRICS + repeats.METRICS)
BY_NAME = {m.name: m for m in CATALOGUE}


def unit_of(name: str) -> str | None:
    """The unit of a metrics.json metric; None for one this catalogue lacks."""
    m = BY_NAME.get(name)
    return m.unit if m else None
