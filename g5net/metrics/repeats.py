"""A run of experiment.repeats: its repeats' metrics.json files as one.

gem5 is deterministic, so repeats differ only by their perturbation
(experiment.repeat: the guest's random seed, the workloads' start). Each
metric of the run is the mean of the repeats' values, and `spread` is the
repeats' own (n = repeats, Student t): what running the experiment again
would change, the uncertainty that checks and study verdicts weigh. Where
the repeats measured windows, `within_run` is the spread of every window of
every repeat together (n = repeats x windows), what one run's windows alone
would have said, beside it. `per_repeat` holds each repeat's numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import spread
from .metric import RunMetric

N_REPEATS, WITHIN_RUN, PER_REPEAT = spread.N_REPEATS, spread.WITHIN_RUN, spread.PER_REPEAT


def _pooled(each: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One table (a host's workload, or an aggregate) from every repeat's."""
    out: dict[str, Any] = {N_REPEATS: len(each)}
    between, within = {}, {}
    for k, v in each[0].items():
        values = [m.get(k) for m in each]
        if all(x == v for x in values) and spread.is_number(v):
            out[k] = v  # the same in every repeat (a count of windows or clients): no spread
        elif all(map(spread.is_number, values)):
            s = spread.summary([float(x) for x in values if x is not None])
            out[k], between[k] = s.mean, s.to_dict()
            windows = [w.get(k) for m in each for w in m.get(spread.PER_WINDOW, [])]
            if windows and all(map(spread.is_number, windows)):
                within[k] = spread.summary([float(x) for x in windows if x is not None]).to_dict()
        elif (means := spread.element_means(values)) is not None:
            out[k] = means
    out[spread.SPREAD] = between
    if within:
        out[WITHIN_RUN] = within
    out[PER_REPEAT] = [{k: v for k, v in m.items() if spread.is_number(v)} for m in each]
    return out


def pool(each: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """metrics.json of a run from its repeats' (at least 2, each derive.compute's):
    a host's workload, or an aggregate, that some repeat lacks (it failed) is
    left out rather than averaged over fewer repeats."""
    first = each[0]
    hosts = {host: {w: _pooled([m["hosts"][host][w] for m in each])
                    for w in workloads if all(w in m["hosts"].get(host, {}) for m in each)}
             for host, workloads in first["hosts"].items()}
    aggregate = {w: _pooled([m["aggregate"][w] for m in each])
                 for w in first.get("aggregate", {}) if all(w in m.get("aggregate", {}) for m in each)}
    return {"hosts": hosts, "aggregate": aggregate}


METRICS: tuple[RunMetric, ...] = (
    RunMetric(N_REPEATS, "count", "repeats", "repeats the run was measured in "
                                             "(experiment.repeats); each other metric is the mean "
                                             "of theirs, and its spread theirs"),
)
