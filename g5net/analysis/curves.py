"""The NetPIPE curves of runs as one table: one row per run, host, workload
and message size, from each run's results.json (NetPIPE prints a line per
message size; metrics.json keeps only the smallest message's latency and the
peak). `g5net.load_curves` makes it a DataFrame.

Columns: run, status, the parameters (as g5net/analysis/long_table.py names
them), host, workload, msg_bytes, latency_us (half a round trip, as NetPIPE
reports it), throughput_mbps (NetPIPE's Mbit/s at that size).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import CorruptRunError
from ..runs.rundir import RunDir, read_record
from ..runs.store import warn_skipped
from .long_table import LEAD, head, runs_and_keys

TAIL = ("host", "workload", "msg_bytes", "latency_us", "throughput_mbps")
# A point of results.json's `points` list -> its column.
POINT_FIELDS = {"bytes": "msg_bytes", "latency_us": "latency_us", "mbps": "throughput_mbps"}


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def run_curves(rd: RunDir) -> list[tuple[str, str, dict[str, Any]]]:
    """(host, workload, point) for every point of every curve of a run, in file
    order; CorruptRunError naming the file where a curve is not a list of points."""
    if not rd.results_json.is_file():
        return []
    results = read_record(rd.results_json)
    if not isinstance(results, Mapping):
        raise CorruptRunError(f"{rd.results_json}: damaged: not a table of hosts")
    out = []
    for host, result in results.items():
        workloads = result.get("workloads") if isinstance(result, Mapping) else None
        for workload, w in (workloads.items() if isinstance(workloads, Mapping) else ()):
            points = w.get("points") if isinstance(w, Mapping) else None
            if points is None:
                continue
            if not (isinstance(points, list) and all(
                    isinstance(p, Mapping) and all(_number(p.get(k)) for k in POINT_FIELDS)
                    for p in points)):
                raise CorruptRunError(f"{rd.results_json}: damaged: {host}.{workload}.points is "
                                      f"not a list of {{{', '.join(POINT_FIELDS)}}} numbers")
            out += [(host, workload, {POINT_FIELDS[k]: p[k] for k in POINT_FIELDS}) for p in points]
    return out


def curve_table(source: Path) -> tuple[list[str], list[dict[str, Any]]]:
    """(columns, rows) of the curves of the runs `source` names (g5net/runs/locate.py);
    a run whose results.json is damaged is skipped with a warning."""
    runs, keys = runs_and_keys(source)
    rows = []
    for run in runs:
        try:
            curves = run_curves(RunDir(run.path))
        except CorruptRunError as e:
            warn_skipped(e)
            continue
        named = head(run, keys)
        rows += [{**named, "host": host, "workload": workload, **point}
                 for host, workload, point in curves]
    return [*LEAD, *keys, *TAIL], rows
