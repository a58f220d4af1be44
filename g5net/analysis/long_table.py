"""The metrics of a run, a sweep or a folder of runs as one long (tidy) table:
one row per run x host x workload x metric, with the swept parameters as
columns, each metric's unit (g5net/metrics/units.py) and, where windows or
repeats measured it, its 95% confidence interval's half-width. `g5net.load` makes
it a DataFrame; `g5net collect --long` writes it.

Runs are read as reports read them (g5net/report/runs.py). The parameter
columns are a sweep's planned axes and derived keys (so that a sweep keeps
its columns while its first points run) and every other key that varies
across the runs, named as sweeps name them (`host.nic.mtu`,
`workloads.stream.msg_bytes`). Host `aggregate` is every client of a
workload together (metrics.json's `aggregate`), under the clients' own metric
names: the sum of their rates and counts, the mean of their latencies.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..metrics.spread import SPREAD
from ..metrics.units import unit_of
from ..report.runs import Run, intact, varying
from ..runs.locate import locate
from ..runs.sweepdir import read
from ..spec import AGGREGATE

LEAD = ("run", "status")
# ci95: the half-width of the value's 95% confidence interval where windows
# or repeats measured it (metrics.json's `spread`), else empty.
TAIL = ("host", "workload", "metric", "value", "ci95", "unit")


def _param(run: Run, key: str) -> Any:
    """`key` of `run`: a sweep path over one host (`hosts.client.nic.mtu`) is under
    `host.` in a run whose hosts all share its value."""
    if key in run.params or not key.startswith("hosts."):
        return run.params.get(key)
    return run.params.get("host." + key.split(".", 2)[2])


def parameters(runs: Sequence[Run], planned: Sequence[str] = ()) -> list[str]:
    """The parameter columns: `planned` (a sweep's), then the other varying keys."""
    return list(dict.fromkeys([*planned, *varying(runs)]))


def head(run: Run, keys: Sequence[str]) -> dict[str, Any]:
    """The columns that name `run` in a row: its name, status and parameters `keys`."""
    return {"run": run.name, "status": run.status, **{k: _param(run, k) for k in keys}}


def rows(runs: Sequence[Run], keys: Sequence[str]) -> list[dict[str, Any]]:
    """Every numeric metric of `runs`, in run, host, workload and metric order;
    per-flow and breakdown tables are not metrics and stay out."""
    out = []
    for run in runs:
        named = head(run, keys)
        for host in [*run.hosts, AGGREGATE]:
            for workload, metrics in run.metrics_of(host).items():
                spreads = metrics.get(SPREAD, {})
                for metric, value in metrics.items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        ci = spreads.get(metric, {}).get("ci95")
                        if host == AGGREGATE:
                            metric = combined_name(metric)
                        out.append({**named, "host": host, "workload": workload, "metric": metric,
                                    "value": value, "ci95": ci, "unit": unit_of(metric)})
    return out


# How metrics.json names the clients' figures combined: by how they combine.
COMBINED = ("_sum", "_mean")


def combined_name(metric: str) -> str:
    """The name of an aggregate metric in the table: the clients' own metric
    (`throughput_mbps` for metrics.json's `throughput_mbps_sum`, `latency_us`
    for `latency_us_mean`), so that host `aggregate` shares its columns with
    the hosts in the wide form; `latency_us_max` and `clients` stay."""
    for suffix in COMBINED:
        if metric.endswith(suffix):
            return metric[:-len(suffix)]
    return metric


def runs_and_keys(source: Path) -> tuple[list[Run], list[str]]:
    """The intact runs `source` names (g5net/runs/locate.py) and their parameter columns."""
    found = locate(source)
    runs = intact(found)
    return runs, parameters(runs, read(found.sweep).parameters if found.sweep else ())


def long_table(source: Path) -> tuple[list[str], list[dict[str, Any]]]:
    """(columns, rows) of the runs `source` names."""
    runs, keys = runs_and_keys(source)
    return [*LEAD, *keys, *TAIL], rows(runs, keys)
