"""Per-host metrics of a dump, resolved through the catalogue."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from .catalogue import CATALOGUE, HOST_MARKERS, METRICS, Metric, SumMetric, glob_regex, leaf
from .model import Dump


@dataclass(frozen=True)
class _Glob:
    metric: Metric
    rank: int  # position among the metric's alternatives; lowest matching wins
    regex: re.Pattern[str]


def _index() -> dict[str, list[_Glob]]:
    # Keyed by literal last component, so a dump costs one dict lookup per stat
    # rather than one regex per stat and glob.
    by_leaf: dict[str, list[_Glob]] = defaultdict(list)
    for m in CATALOGUE:
        if isinstance(m, Metric):
            for rank, glob in enumerate(m.globs):
                by_leaf[leaf(glob)].append(_Glob(m, rank, glob_regex(glob)))
    return dict(by_leaf)


_BY_LEAF = _index()


def host_metrics(dump: Dump) -> dict[str, dict[str, float]]:
    """Every catalogue metric of every host in `dump`, hosts sorted by name.

    A metric none of whose globs matches a host's stats is left out, never 0:
    gem5 omits many zero counters, but it also omits what a model lacks.
    """
    sums = _sums(dump)

    def resolved(host: str | None, name: str) -> float | None:
        ranks = sums.get((host, name))
        return ranks[min(ranks)] if ranks else None

    hosts = sorted({host for host, name in sums if host is not None and name in HOST_MARKERS})
    result: dict[str, dict[str, float]] = {}
    for host in hosts:
        values: dict[str, float] = {}
        for m in CATALOGUE:  # parts precede their SumMetric
            value: float | None
            if isinstance(m, SumMetric):
                parts = [values[p] for p in m.parts if p in values]
                value = sum(parts) if len(parts) == len(m.parts) else None
            else:
                value = resolved(host if m.per_host else None, m.name)
            if value is not None:
                values[m.name] = value
        result[host] = values
    return result


def metric(dump: Dump, name: str, host: str) -> float | None:
    """One metric of one host; None where `dump` has nothing for it."""
    if name not in METRICS:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(METRICS)}")
    return host_metrics(dump).get(host, {}).get(name)


def _sums(dump: Dump) -> dict[tuple[str | None, str], dict[int, float]]:
    """(host or None for simulation-wide, metric name) -> {glob rank: sum of its matches}."""
    sums: dict[tuple[str | None, str], dict[int, float]] = defaultdict(lambda: defaultdict(int))
    for name, stat in dump.items():
        for g in _BY_LEAF.get(leaf(name), ()):
            if g.metric.per_host:
                host, _, rest = name.partition(".")
            else:
                host, rest = None, name
            if rest and g.regex.fullmatch(rest):
                sums[host, g.metric.name][g.rank] += stat.value
    return sums
