"""Run one experiment: resolve artifacts, run the engine, classify, store.

Statuses in run.json: `done`, `timeout`, or `failed:<class>` with class one of
`boot`, `engine`, `guest-panic`, `no-results`, `workload`, `internal`.
"""

from __future__ import annotations

import shutil
import time
import traceback
from pathlib import Path
from typing import Any

from .. import artifacts, engines
from ..artifacts.kernels import for_host
from ..engines.base import Artifacts, EngineInfo, Outcome, Progress
from ..errors import ArtifactError, BootError, GuestError, OutputError, os_error_text
from ..guest.protocol import panic_line
from ..machine import atomic, stop_signals
from ..metrics import derive as run_metrics
from ..metrics import windows
from ..metrics.repeats import pool as pool_repeats
from ..model import identity
from ..model.options import EngineOptions
from ..runs import record as run_record
from ..runs import rundir
from ..spec import Spec, sampled
from ..workloads import results as guest_results

CONSOLE_TAIL_CHARS = 3000


def resolve_artifacts(spec: Spec, progress: Progress, build: bool = True) -> Artifacts:
    """The kernels and image `spec` boots; with `build`, one not built yet is
    built here, first saying which hosts wait for it."""
    kernels = {}
    for v in sorted({for_host(h) for h in spec.hosts}):
        hosts = ", ".join(h.name for h in spec.hosts if for_host(h) == v)
        kernels[v] = artifacts.kernel(v, build=build, progress=progress,
                                      needed_by=f"{spec.experiment.name}: {hosts} boot it")
    image = artifacts.image(build=build, progress=progress,
                            needed_by=f"{spec.experiment.name}: every host boots it")
    return Artifacts(kernels=kernels, image=image)


def unbuilt_artifacts(spec: Spec) -> list[str]:
    """The artifacts `spec` boots that are not built yet, by name (`kernel-smp`,
    `image`): what a dry run says it would build first."""
    missing = []
    for v in sorted({for_host(h) for h in spec.hosts}):
        try:
            artifacts.kernel(v, build=False, progress=silent)
        except ArtifactError:
            missing.append(f"kernel-{v}")
    try:
        artifacts.image(build=False, progress=silent)
    except ArtifactError:
        missing.append("image")
    return missing


def silent(_: str) -> None:
    """Progress nobody reads (a look that builds nothing)."""


def _classify(spec: Spec, out: Outcome) -> tuple[str, dict[str, Any], list[str]]:
    """(status, results by host, reasons)."""
    results: dict[str, Any] = {}
    reasons = []
    panicked = False
    for host in spec.hosts:
        console = out.consoles.get(host.name, "")
        if sampled(spec.experiment):
            # Each window ends in the middle of the stream: no guest prints
            # results, and every figure is gem5's (metrics/derive.py).
            results[host.name] = {"workloads": {w.name: {} for w in spec.workloads}}
            continue
        try:
            results[host.name] = guest_results.host_results(console, spec, host)
        except GuestError as e:
            reasons.append(f"{host.name}: {e}")
            panicked |= panic_line(console) is not None
    if out.timed_out:
        return "timeout", results, reasons or ["wall-clock limit reached"]
    if out.failure:
        cls = "boot" if isinstance(out.failure, BootError) else "engine"
        return f"failed:{cls}", results, [str(out.failure)] + reasons
    if panicked:
        return "failed:guest-panic", results, reasons
    if reasons:
        return "failed:no-results", results, reasons
    errors = guest_results.workload_errors(results)
    if errors:
        return "failed:workload", results, errors
    return "done", results, []


def _repeats(rd: rundir.RunDir, spec: Spec, engine: engines.Engine, arts: Artifacts, progress: Progress
             ) -> tuple[str, Outcome, dict[str, Any], list[str], dict[str, Any]]:
    """experiment.repeats runs of `spec`, one after another, each in its own
    directory (RunDir.repeat); stops at the first that fails, whose outcome
    then is the run's. (status, an outcome of them all, repeat 0's results,
    reasons, the repeats' metrics pooled: metrics/repeats.py)."""
    n = spec.experiment.repeats
    outs, metrics = [], []
    results: dict[str, Any] = {}
    status = "done"
    reasons: list[str] = []
    for k in range(n):
        progress(f"repeat {k + 1} of {n}")
        one, sub = spec.repeated(k), rd.repeat(k)
        sub.path.mkdir()
        out = engine.run(one, arts, sub, progress)
        stop_signals.hold()
        status, got, reasons = _classify(one, out)
        outs.append(out)
        sub.write_json(sub.results_json, got)
        metrics.append(run_metrics.compute(one, got, sub, out.boards))
        sub.write_json(sub.metrics_json, metrics[-1])
        results = results or got
        if status != "done":
            reasons = [f"repeat {k}: {r}" for r in reasons]
            break
        if k < n - 1:
            stop_signals.release()  # held from this repeat's end (the engine's) to the next's start
    last = outs[-1]
    # The repeats' simulated time beside their host time: the dry run's pace (study/estimate.py).
    simulated = [o.simulated_s for o in outs if o.simulated_s is not None]
    out = Outcome(consoles=last.consoles, wall_s=sum(o.wall_s for o in outs), timed_out=last.timed_out,
                  failure=last.failure, engine_log_tail=last.engine_log_tail, boot_s=outs[0].boot_s,
                  boards=outs[0].boards, notes=[note for o in outs for note in o.notes],
                  simulated_s=sum(simulated) if len(simulated) == len(outs) else None)
    pooled = pool_repeats(metrics) if status == "done" else metrics[-1]
    return status, out, results, reasons, pooled


def execute(spec: Spec, store: Path, progress: Progress = print, build: bool = True,
            arts: Artifacts | None = None,
            options: EngineOptions = EngineOptions()) -> rundir.RunDir:
    """Run `spec` into a new run directory under `store`; returns the committed directory.

    The directory appears under its final name only when run.json holds the final
    status; Ctrl-C removes the half-made run. `arts` replaces the cached kernels
    and image (a test booting a broken image, a user trying a kernel of their own);
    `options` are the user's for the engine (--gem5-arg).
    """
    engine = engines.get(spec.experiment.engine, options)
    engine.check_spec(spec)
    info = engine.info()
    arts = arts or resolve_artifacts(spec, progress, build=build)
    engine_key = engine.identity(spec)
    rid = identity.run_id(spec, arts.digests(), engine_key)
    try:
        rd = rundir.begin(store, spec.experiment.name, rid)
    except OSError as e:
        raise OutputError(f"{store}: cannot make a run directory: {os_error_text(e)}") from e
    try:
        return _execute_in(rd, rid, spec, engine, info, engine_key, arts, store, progress)
    except OSError as e:
        if not rd.path.exists():
            raise  # committed as failed:internal; its run.json says why
        # The store refused a write (full disk, read-only): no half-made run is left.
        shutil.rmtree(rd.path, ignore_errors=True)
        raise OutputError(f"{store}: cannot write the run: {os_error_text(e)}") from e


def _execute_in(rd: rundir.RunDir, rid: str, spec: Spec, engine: engines.Engine, info: EngineInfo,
                engine_key: dict[str, str], arts: Artifacts, store: Path,
                progress: Progress) -> rundir.RunDir:
    """The run of `spec` in the temporary directory `rd`, committed under `store`."""
    record = run_record.begin(rid, spec.experiment.name, spec.to_dict())
    record["engine"] = {"name": info.name, "binary": str(info.binary), "version": info.version,
                        "digest": info.digest, "args": list(info.args)}
    record["identity"] = identity.record(engine_key)
    record["region"] = run_record.region(spec)
    record["artifacts"] = {k: {"digest": v} for k, v in arts.digests().items()}
    for v, k in arts.kernels.items():
        record["artifacts"][f"kernel-{v}"]["path"] = str(k.bzimage)
    record["artifacts"]["image"]["path"] = str(arts.image.path)
    rd.write_json(rd.run_json, record)
    atomic.write_text(rd.spec_json, spec.to_json())
    t0 = time.monotonic()

    def finish(status: str) -> rundir.RunDir:
        rd.write_json(rd.run_json, run_record.finish(record, status, time.monotonic() - t0))
        return rundir.commit(rd, store, spec.experiment.name, rid)

    try:
        if spec.experiment.repeats > 1:
            status, out, results, reasons, metrics = _repeats(rd, spec, engine, arts, progress)
        else:
            out = engine.run(spec, arts, rd, progress)
            # Its simulation over, the run is written before a stop takes effect.
            stop_signals.hold()
            status, results, reasons = _classify(spec, out)
            metrics = run_metrics.compute(spec, results, rd, out.boards)
        for line in windows.stalls(metrics):
            progress(line)
        record["timings"].update(wall_s=round(out.wall_s, 3),
                                 boot_s={k: round(v, 3) for k, v in out.boot_s.items()})
        if out.simulated_s is not None:
            record["timings"]["simulated_s"] = out.simulated_s
        if out.sampled:
            record["timings"]["sampled"] = out.sampled
        # Where each host's statistics live in the engine's stats.txt.
        record["boards"] = out.boards
        if out.notes:
            record["engine_notes"] = out.notes
        rd.write_json(rd.results_json, results)
        rd.write_json(rd.metrics_json, metrics)
        if status != "done":
            record["failure"] = {"reasons": reasons, "engine_log_tail": out.engine_log_tail,
                                 "console_tails": {h: c[-CONSOLE_TAIL_CHARS:]
                                                   for h, c in out.consoles.items()}}
    except KeyboardInterrupt:
        stop_signals.release()
        shutil.rmtree(rd.path, ignore_errors=True)
        raise
    except Exception as e:  # recorded, then re-raised: a crash still leaves its evidence
        record["failure"] = {"reasons": [f"{type(e).__name__}: {e}"],
                             "traceback": traceback.format_exc()}
        finish("failed:internal")
        stop_signals.release()
        raise
    done = finish(status)
    stop_signals.release()  # a stop that waited for the run unwinds now, the run committed
    return done
