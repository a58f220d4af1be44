"""A sweep directory and its plan: which points exist and under which run ids.

    SWEEPDIR/sweep.json       the plan: every point with its params, resolved spec, run id,
                              and the engine options every point runs with
    SWEEPDIR/runs/            the run store: one directory per run, `<name>-<run_id[:12]>`
    SWEEPDIR/logs/            one log per local worker
    SWEEPDIR/slurm/           job scripts, job ids and SLURM's output files

A run id is fixed when the sweep is planned (spec, artifacts and engine
hashes), so a point is the same point across restarts and across runners.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from ..errors import RunnerError, quoted
from ..machine import atomic, bounded_read
from ..model import specs
from ..model.data_paths import checked_name
from ..model.options import EngineOptions
from ..spec import Spec
from . import rundir
from .resources import Resources

PLAN_VERSION = 1


@dataclass(frozen=True)
class SweepDir:
    path: Path

    @property
    def plan_json(self) -> Path:
        return self.path / "sweep.json"

    @property
    def store(self) -> Path:
        return self.path / "runs"

    @property
    def logs(self) -> Path:
        return self.path / "logs"

    @property
    def slurm(self) -> Path:
        return self.path / "slurm"

    @property
    def slurm_jobs(self) -> Path:
        return self.slurm / "jobs.json"

    @property
    def runner_lock(self) -> Path:
        return self.path / ".runner.lock"

    @property
    def workers_lock(self) -> Path:
        return self.path / ".workers.lock"

    def point_log(self, index: int) -> Path:
        return self.logs / f"point-{index:04d}.log"


_RUN_ID = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class PlannedPoint:
    index: int
    run_id: str
    name: str
    params: dict[str, Any]
    spec: dict[str, Any]  # resolved, as Spec.to_dict writes it
    resources: Resources
    # The boot checkpoint the point restores (gem5), shared by the points with
    # the same key; None where every run boots its hosts (QEMU).
    checkpoint: str | None = None
    # Only in a dry run's plan: the artifacts not built yet, without which the
    # point has no run id ("") nor checkpoint key. Such a plan is never written.
    missing: tuple[str, ...] = ()

    @property
    def dir_name(self) -> str:
        return rundir.dir_name(self.name, self.run_id)

    def load_spec(self) -> Spec:
        return specs.from_dict(self.spec, source=f"point {self.index}")

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "run_id": self.run_id, "name": self.name,
                "dir": self.dir_name, "checkpoint": self.checkpoint, "params": self.params,
                "resources": self.resources.to_dict(), "spec": self.spec}


@dataclass(frozen=True)
class Plan:
    source: str
    parameters: tuple[str, ...]
    points: tuple[PlannedPoint, ...]
    # The user's engine options (--gem5-arg): part of the run ids, so the
    # workers run with these, whatever their environment.
    options: EngineOptions = EngineOptions()

    def point(self, index: int) -> PlannedPoint:
        if not 0 <= index < len(self.points):
            raise RunnerError(f"point {index}: the sweep has points 0..{len(self.points) - 1}")
        return self.points[index]


def write(sd: SweepDir, plan: Plan) -> None:
    """Replace the plan whole: a reader never sees half of it."""
    unbuilt = [p.index for p in plan.points if p.missing]
    if unbuilt:
        raise RunnerError(f"internal: a dry run's plan (points {unbuilt} lack artifacts) is "
                          f"never written")
    sd.path.mkdir(parents=True, exist_ok=True)
    data = {"version": PLAN_VERSION, "source": plan.source, "parameters": list(plan.parameters),
            "engine_options": plan.options.to_dict(), "points": [p.to_dict() for p in plan.points]}
    atomic.write_json(sd.plan_json, data)


def read(sd: SweepDir) -> Plan:
    try:
        data = json.loads(bounded_read.read_bytes(sd.plan_json))
    except FileNotFoundError:
        raise RunnerError(f"{sd.path}: not a sweep directory (no {sd.plan_json.name}; "
                          f"`g5net sweep SPEC.toml --out {sd.path}` makes one)") from None
    except (OSError, ValueError, RecursionError) as e:
        raise RunnerError(f"{sd.plan_json}: unreadable: {e}") from e
    if not isinstance(data, dict) or data.get("version") != PLAN_VERSION:
        version = data.get("version") if isinstance(data, dict) else None
        raise RunnerError(f"{sd.plan_json}: plan version {quoted(version)} is not "
                          f"{PLAN_VERSION}; start the sweep again to rewrite it")
    try:
        points = tuple(PlannedPoint(p["index"], p["run_id"], p["name"], p["params"], p["spec"],
                                    Resources(**p["resources"]), p.get("checkpoint"))
                       for p in data["points"])
        for i, p in enumerate(points):
            # The plan names the run directories: a damaged name must not become a path.
            checked_name(p.name, f"{sd.plan_json}: points[{i}].name", RunnerError)
            if type(p.index) is not int or not isinstance(p.run_id, str) or not _RUN_ID.fullmatch(p.run_id):
                raise TypeError(f"points[{i}]: index or run_id is not one")
        # Plans written before engine options were kept have none.
        options = EngineOptions.from_dict(data.get("engine_options", {}))
        return Plan(data["source"], tuple(data["parameters"]), points, options)
    except (KeyError, TypeError, AttributeError) as e:
        raise RunnerError(f"{sd.plan_json}: damaged: {type(e).__name__} {e}; start the sweep "
                          f"again to rewrite it") from None
