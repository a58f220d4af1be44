"""A metric of `metrics.json` as its reference names it. Each family defines its
own beside the code that computes them (guest.py, gem5.py, profile.py,
aggregate.py; gem5's counters in stats/catalogue.py); units.py lists them all."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunMetric:
    name: str
    unit: str
    source: str  # one of units.SOURCES
    description: str


def per(value: float | None, count: float | None) -> float | None:
    """`value` per one of `count`; None where either is unknown or there are none."""
    return value / count if value is not None and count else None
