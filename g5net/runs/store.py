"""The run store of a sweep: what each point's run says, summaries, one table of all runs.

A point's state is its committed run's `run.json` status (`done`, `timeout`,
`failed:<class>`), else what a runner reports live (`running`, `queued`), else
`pending`; `corrupt` where a committed run's run.json, results.json or
metrics.json cannot be read (a sweep runs such a point again, its damaged
directory moved aside). Hidden `.tmp-*` directories are runs in the making or
remains of a killed one; they never count as a result.
"""

from __future__ import annotations

import json
import shutil
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping

from ..errors import CorruptRunError, RunnerError
from ..machine.staged_dir import TMP_PREFIX
from . import record as run_record
from . import rundir
from .locate import Located
from .sweepdir import Plan, PlannedPoint, SweepDir, read

PENDING = "pending"
LEAD_COLUMNS = ("point", "run_id", "status", "run_dir")
# Column groups of the collected table, in this order.
GROUPS = ("sweep.", "spec.", "aggregate.", "metrics.", "results.", "run.")


def find(store: Path, point: PlannedPoint) -> rundir.RunDir | None:
    return rundir.find(store, point.name, point.run_id)


def status_of(store: Path, point: PlannedPoint) -> str | None:
    """The committed run's status (`corrupt` where its records are damaged), or None
    where the point has none."""
    rd = find(store, point)
    if rd is None:
        return None
    return rundir.CORRUPT if rd.damage() else rd.read_run()["status"]


def set_aside_corrupt(store: Path, points: list[PlannedPoint]) -> list[Path]:
    """Move the damaged runs of `points` out of the way of their reruns; where to."""
    return [rundir.set_aside(rd) for p in points
            if (rd := find(store, p)) and rd.damage()]


def temporaries(store: Path, point: PlannedPoint | None = None) -> list[Path]:
    """Runs in the making (or left by a killed worker): of one point, or all of them."""
    prefix = TMP_PREFIX + (f"{point.dir_name}-" if point else "")
    return sorted(store.glob(f"{prefix}*")) if store.is_dir() else []


def remove_temporaries(store: Path, point: PlannedPoint | None = None) -> int:
    found = temporaries(store, point)
    for path in found:
        shutil.rmtree(path, ignore_errors=True)
    return len(found)


def record_failure(store: Path, point: PlannedPoint, status: str, reasons: list[str],
                   started: datetime, wall_s: float) -> rundir.RunDir:
    """Commit a run for a point whose worker died or hung before it could write one,
    so that the sweep does not start it again unless asked to (--retry-failed)."""
    rd = rundir.begin(store, point.name, point.run_id)
    record = run_record.begin(point.run_id, point.name, point.spec, started)
    record["failure"] = {"reasons": reasons}
    rd.write_json(rd.run_json, run_record.finish(record, status, wall_s))
    rd.write_json(rd.spec_json, point.spec)
    return rundir.commit(rd, store, point.name, point.run_id)


def adopt(store: Path, point: PlannedPoint, run: rundir.RunDir) -> rundir.RunDir:
    """Take `run`, a finished run of `point` made elsewhere (a study's committed
    run: its records, no raw outputs), into the store as the point's run."""
    rd = rundir.begin(store, point.name, point.run_id)
    try:
        for f in sorted(run.path.iterdir()):
            if f.is_file():
                shutil.copy(f, rd.path / f.name)
        return rundir.commit(rd, store, point.name, point.run_id)
    finally:
        shutil.rmtree(rd.path, ignore_errors=True)  # gone once committed


def to_run(sd: SweepDir, plan: Plan, retry_failed: bool) -> list[PlannedPoint]:
    """The points still to run: no committed run, or (with retry_failed) a run that
    did not end `done`."""
    todo = []
    for p in plan.points:
        status = status_of(sd.store, p)
        if status in (None, rundir.CORRUPT) or (retry_failed and status != "done"):
            todo.append(p)
    return todo


def states(sd: SweepDir, plan: Plan, live: Mapping[int, str]) -> list[tuple[PlannedPoint, str]]:
    """Every point with its state; a committed run outranks what a runner reports."""
    return [(p, status_of(sd.store, p) or live.get(p.index, PENDING)) for p in plan.points]


def summary(sd: SweepDir, plan: Plan, live: Mapping[int, str]) -> dict[str, Any]:
    """Counts of points by state and, per state, the points with their run directories."""
    counts: dict[str, int] = {}
    points: dict[str, list[dict[str, Any]]] = {}
    for p, state in states(sd, plan, live):
        counts[state] = counts.get(state, 0) + 1
        rd = find(sd.store, p)
        points.setdefault(state, []).append(
            {"index": p.index, "run_id": p.run_id, "run_dir": str(rd.path) if rd else None,
             "params": p.params})
    return {"sweep": str(sd.path), "source": plan.source, "points": len(plan.points),
            "counts": dict(sorted(counts.items())), "by_status": dict(sorted(points.items()))}


def summary_of_runs(found: Located) -> dict[str, Any]:
    """summary() of runs that are no sweep's: a run directory or a folder of runs."""
    counts: dict[str, int] = {}
    points: dict[str, list[dict[str, Any]]] = {}
    for rd in found.runs:
        record = {"status": rundir.CORRUPT} if rd.damage() else rd.read_run()
        counts[record["status"]] = counts.get(record["status"], 0) + 1
        points.setdefault(record["status"], []).append(
            {"index": None, "run_id": record.get("run_id"), "run_dir": str(rd.path), "params": {}})
    return {"sweep": None, "source": str(found.path), "points": len(found.runs),
            "counts": dict(sorted(counts.items())), "by_status": dict(sorted(points.items()))}


def warn_skipped(e: CorruptRunError) -> None:
    """A damaged run is left out of a table, report or check, saying so."""
    print(f"g5net: warning: {e}; run skipped", file=sys.stderr)


# ------------------------------------------------------------------- collect

def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    """Nested tables become dotted columns; lists stay one cell, as JSON."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}", v, out)
    elif isinstance(value, (list, tuple)):
        out[prefix] = json.dumps(value)
    else:
        out[prefix] = value


def _read_json(path: Path) -> Any:
    return rundir.read_record(path) if path.exists() else {}


def row(rd: rundir.RunDir, point: PlannedPoint | None = None) -> dict[str, Any]:
    """One run's row; `point`: the sweep point it ran, if it was one."""
    record = rd.read_run()
    out: dict[str, Any] = {"point": point.index if point else None, "run_id": record.get("run_id"),
                           "status": record["status"], "run_dir": rd.path.name}
    for path, value in (point.params if point else {}).items():
        _flatten(f"sweep.{path}", value, out)
    _flatten("spec", {k: v for k, v in record.get("spec", {}).items() if k != "schema"}, out)
    metrics = rd.read_metrics()
    _flatten("aggregate", metrics.get("aggregate", {}), out)
    _flatten("metrics", metrics.get("hosts", {}), out)
    _flatten("results", _read_json(rd.results_json), out)
    _flatten("run", {"timings": record.get("timings", {}),
                     "engine_version": record.get("engine", {}).get("version"),
                     "node": record.get("host", {}).get("node"),
                     "g5net_version": record.get("g5net_version")}, out)
    return out


def collect(found: Located) -> tuple[list[str], list[dict[str, Any]]]:
    """(columns, rows): of a sweep, one row per point that has a committed run, in
    point order; of a run or a folder of runs, one row per run."""
    runs: list[tuple[rundir.RunDir, PlannedPoint | None]]
    if found.sweep:
        plan = read(found.sweep)
        runs = [(rd, p) for p in plan.points if (rd := find(found.sweep.store, p))]
    else:
        runs = [(rd, None) for rd in found.runs]
    rows = []
    for rd, p in runs:
        try:
            rows.append(row(rd, p))
        except CorruptRunError as e:
            warn_skipped(e)
    if not rows:
        raise RunnerError(f"{found.path}: no point has a run yet")
    names = {k for r in rows for k in r} - set(LEAD_COLUMNS)
    columns = list(LEAD_COLUMNS)
    for group in GROUPS:
        columns += sorted(n for n in names if n.startswith(group))
    return columns, rows
