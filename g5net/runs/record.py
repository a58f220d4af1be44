"""What a run's `run.json` says, built in this one place: by `g5net.runners.execute` for a
run it executes, and by the sweep's run store for a point whose worker died
before it could write one.

    run_id, name, status        the run's identity and outcome (g5net/runners/execute.py lists the statuses)
    g5net_version, host         what ran it, and where (node, user)
    g5net_revision              the git commit of the checkout it ran from (-dirty: with
                                changes); null from an installed wheel
    timings                     started, finished (UTC, ISO 8601), total_s, and the engine's own
                                (wall_s, boot_s; gem5's simulated_s: simulated seconds from
                                the restore to the end; a run of experiment.repeats: both
                                summed over its repeats; of sampled windows, `sampled`: the
                                fast-forward's wall_s, simulated_s and this_run, and
                                windows_wall_s, each window's gem5 process)
    spec                        the resolved spec
    engine, artifacts, boards   when an engine ran: its binary, digest and the user's flags
                                for it, kernels and image, and host -> the prefix of its
                                statistics
    identity                    when an engine ran: the version of the run id's computation
                                and the engine's part of it (g5net/model/identity.py)
    region                      what each workload was measured over: {"kind": "whole-life"},
                                or {"kind": "windows", windows, window_ms, warmup_ms, method:
                                consecutive or sampled, and a sampled one's sample_every_ms,
                                functional_warming_ms, detailed_warming_ms}
    engine_notes                what the engine did that spoiled nothing but a reader should
                                know (a gem5 process that died after the simulation ended)
    failure                     when status is not `done`: reasons, log and console tails

A record committed to a repository (a study's results, a test fixture) is
`portable`: its binary and artifact paths are `$G5NET_CACHE/<path inside
g5net's cache folder>` (`<elsewhere>/<file name>` outside it), never a
machine's own folders; digests, not paths, say which files ran.
"""

from __future__ import annotations

import copy
import getpass
import platform
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .. import home
from ..artifacts import cache as artifact_cache
from ..spec import Spec
from ..version import __version__

# run.json's region kinds.
WHOLE_LIFE, WINDOWS = "whole-life", "windows"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def begin(run_id: str, name: str, spec: dict[str, Any], started: datetime | None = None) -> dict[str, Any]:
    """A run's record as it starts: status `running`."""
    return {
        "run_id": run_id,
        "name": name,
        "status": "running",
        "g5net_version": __version__,
        "g5net_revision": home.revision(),
        "host": {"node": platform.node(), "user": getpass.getuser()},
        "timings": {"started": (started.isoformat(timespec="seconds") if started else now())},
        "spec": spec,
    }


def region(spec: Spec) -> dict[str, Any]:
    """What a run measured each workload over (run.json's `region`): its whole
    life, or windows inside its running stream (experiment.windows; a
    NetPIPE workload after the stream is still its whole life). Runs
    recorded before windows have no `region`: they measured whole lives."""
    e = spec.experiment
    if not e.windows:
        return {"kind": WHOLE_LIFE}
    out = {"kind": WINDOWS, "windows": e.windows, "window_ms": e.window_ms, "warmup_ms": e.warmup_ms,
           "method": e.window_method}
    if e.window_method == "sampled":
        out.update(sample_every_ms=e.sample_every_ms, functional_warming_ms=e.functional_warming_ms,
                   detailed_warming_ms=e.detailed_warming_ms)
    return out


def finish(record: dict[str, Any], status: str, total_s: float) -> dict[str, Any]:
    """The record with its final status and how long the run took."""
    record["status"] = status
    record["timings"].update(finished=now(), total_s=round(total_s, 3))
    return record


def board(boards: Mapping[str, str] | None, host: str) -> str:
    """The prefix of `host`'s statistics in the engine's stats.txt, from a
    record's `boards`: the host's own name where the map has none (QEMU runs,
    runs recorded before the map)."""
    return (boards or {}).get(host) or host


def portable(record: dict[str, Any], cache: Path | None = None) -> dict[str, Any]:
    """A copy of `record` to commit: its engine binary and artifact paths made
    portable (artifacts/cache.py), relative to `cache` (default: cache_dir())."""
    out = copy.deepcopy(record)
    engine = out.get("engine", {})
    if "binary" in engine:
        engine["binary"] = artifact_cache.portable(engine["binary"], cache)
    for artifact in out.get("artifacts", {}).values():
        if "path" in artifact:
            artifact["path"] = artifact_cache.portable(artifact["path"], cache)
    return out
