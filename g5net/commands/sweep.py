"""`g5net sweep`: run every point of a spec's [sweep], each exactly once."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import engines, runners
from ..errors import UsageError, quoted
from ..model import sweep as sweepmod
from ..model.numerals import ascii_int
from ..runners import local, lock, slurm
from ..runners import plan as planmod
from ..runners.display import Display
from ..runs import rundir, store, sweepdir
from ..runs.sweepdir import SweepDir
from . import add_gem5_args, bundled_file

if TYPE_CHECKING:
    from ..study.estimate import HostTime

# A dry run's state of a point that a run made elsewhere stands for (Adopt).
COMMITTED = "committed"

EPILOG = """\
The [sweep] table of SPEC (see examples/sweep-quick.toml):

  [sweep]
  "workloads.stream.msg_bytes" = [1024, 65536]   # an axis: dotted path = values
  "host.nic.mtu" = [1500, 9000]                  # host.* sets every host's default
  "workloads.stream.streams" = [1, 4]
  zip = [["workloads.stream.msg_bytes", "workloads.stream.streams"]]

  [sweep.derive]
  "workloads.stream.window_bytes" = "4 * workloads.stream.msg_bytes"

Axes multiply (cartesian product); the axes of one zip group advance together
instead, pairing their i-th values (equal lengths). The example makes 2 x 2 = 4
points. Paths: experiment.K, link.K, host.K, hosts.NAME.K, workloads.NAME.K,
with nested tables continued by dots (host.cpu.cores, host.sysctl.net.core.rmem_max).
A derived key is computed for each point after the axes, in file order, from an
expression of numbers, strings, true/false, dotted paths (a swept key, an earlier
derived key, or any key of the resolved spec), + - * / // % **, comparisons,
and/or/not, `A if C else B`, min max int float round abs, and range (a list:
range(n) is 0..n-1, as host.nic.rps_cpus wants).

Points are numbered from 0, the last axis varying fastest. A point is known by
its run id (hash of its resolved spec, kernel, image and engine): starting the
sweep again runs only the points that have no run yet; --retry-failed also
reruns those that failed or timed out. Every point is validated before any runs.

Results: DIR/sweep.json (the plan), DIR/runs/<name>-<run id> (one run directory
per point), DIR/logs (local workers), DIR/slurm (job scripts and output).
Exit status: 0 every point is done, 1 some point failed, timed out or was lost,
2 the spec or the environment is wrong.
Examples:
  g5net sweep examples/sweep-quick.toml --dry-run
  g5net sweep examples/sweep-quick.toml --out results/quick --jobs 2
  g5net sweep examples/sweep-quick.toml --out /shared/quick --runner slurm --slurm-flag partition=long
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep",
        help="run every point of a spec's [sweep] (resumable)",
        description="Expand the [sweep] table of SPEC into points and run each point that has "
                    "no run yet, on this machine or on SLURM. Kill it and start it again at any "
                    "time: no point is lost or run twice.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", type=bundled_file, metavar="SPEC.toml", help="experiment spec with a [sweep] table")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="sweep directory (default: results/<experiment.name>)")
    p.add_argument("--runner", choices=runners.RUNNERS, default="local",
                   help="local: a pool of workers here (default); slurm: one sbatch job array")
    p.add_argument("--jobs", type=_positive, metavar="N",
                   help="local: workers (default: cores, fewer if memory says so); "
                        "slurm: most array tasks at once (default: no limit)")
    p.add_argument("--retry-failed", action="store_true",
                   help="also rerun points whose run failed or timed out")
    p.add_argument("--dry-run", action="store_true",
                   help="list the points, their run ids and state, and the boots still needed; "
                        "run nothing; a point whose kernel or image is not built yet is listed "
                        "with what it needs and no run id (run ids hash the artifacts)")
    p.add_argument("--json", action="store_true",
                   help="with --dry-run: a JSON list, one object per point; else, once the sweep "
                        "ends, its summary as `g5net status --json` prints it")
    p.add_argument("--slurm-flag", action="append", default=[], type=_flag, metavar="KEY=VALUE",
                   help="extra sbatch flag for this site, e.g. partition=long (repeatable)")
    p.add_argument("--max-points", type=_positive, default=sweepmod.MAX_POINTS, metavar="N",
                   help="refuse a sweep of more than N points (default: %(default)s)")
    add_gem5_args(p)
    p.add_argument("--no-wait", action="store_true",
                   help="slurm: return once submitted; `g5net status DIR` follows it")
    p.set_defaults(func=main)


def _positive(text: str) -> int:
    number = ascii_int(text)
    if number is None or number < 1:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a positive integer")
    return number


def _flag(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (e.g. partition=long)")
    return key, value


def _log(message: str) -> None:
    print(f"[g5net] {message}", file=sys.stderr, flush=True)


def _check_flags(args: argparse.Namespace) -> None:
    if args.runner != "slurm":
        given = [f for f, v in (("--no-wait", args.no_wait), ("--slurm-flag", args.slurm_flag)) if v]
        if given:
            raise UsageError(f"{', '.join(given)} apply to --runner slurm only")
    if args.dry_run and args.no_wait:
        raise UsageError("--dry-run submits nothing: --no-wait does not go with it")
    # Before any planning: a flag sbatch would refuse, or read as g5net's own, fails at once.
    slurm.check_site_flags(dict(args.slurm_flag), tasks=1)


# What `g5net study run` adds to a sweep. Adopt: given the sweep directory, its
# plan and whether this is a dry run, take into the store the finished runs of
# points made elsewhere (a dry run copies nothing); the indices of the points
# so taken, or that would be. Estimate: given every point, those to run and a
# point of each boot to make, the host hours each takes and what they come to.
Adopt = Callable[[SweepDir, sweepdir.Plan, bool], set[int]]
Estimate = Callable[[Sequence[sweepdir.PlannedPoint], Sequence[sweepdir.PlannedPoint],
                     Sequence[sweepdir.PlannedPoint]], "HostTime"]


def main(args: argparse.Namespace, adopt: Adopt | None = None, estimate: Estimate | None = None) -> int:
    with contextlib.ExitStack() as stack:
        if args.quiet:
            # Progress (these lines and the runners' display) goes to stderr;
            # errors are raised, and printed by the CLI after this returns.
            stack.enter_context(contextlib.redirect_stderr(stack.enter_context(open(os.devnull, "w"))))
        return _sweep(args, adopt, estimate)


def _sweep(args: argparse.Namespace, adopt: Adopt | None, estimate: Estimate | None) -> int:
    _check_flags(args)
    # In the plan: a flag that changes the simulation changes the run ids.
    options = engines.options(args.gem5_arg)
    sweep = sweepmod.load(args.spec, args.max_points)
    # experiment.name is validated as one plain file name: this stays in results/.
    out = args.out or Path("results") / sweep.points[0].spec.experiment.name
    sd = SweepDir(out.resolve())
    if args.dry_run:
        plan = planmod.make(sweep, str(args.spec), _log, build=False, options=options)
        return _dry_run(sd, plan, args, adopt(sd, plan, True) if adopt else set(), estimate)
    with lock.exclusive(sd):
        lock.wait_for_workers(sd)
        plan = planmod.make(sweep, str(args.spec), _log, options=options)
        sweepdir.write(sd, plan)
        if adopt:
            adopt(sd, plan, False)
        todo = store.to_run(sd, plan, args.retry_failed)
        for path in store.set_aside_corrupt(sd.store, todo):
            _log(f"damaged run moved aside to {path}; its point runs again")
        if args.runner == "local":
            _run_local(sd, plan, todo, args.jobs)
        else:
            _run_slurm(sd, plan, todo, args)
    return _report(sd, plan, args.json)


def _boots(points: list[sweepdir.PlannedPoint]) -> int:
    """Boots that running `points` takes: each boot checkpoint not built yet once,
    however many points restore it; every host of a point that has none (QEMU)."""
    return len(_new_checkpoints(points)) + sum(len(p.spec["hosts"]) for p in points
                                               if not p.checkpoint and not p.missing)


def _new_checkpoints(points: list[sweepdir.PlannedPoint]) -> list[sweepdir.PlannedPoint]:
    """A point of each boot checkpoint that running `points` makes."""
    return list({p.checkpoint: p for p in points if p.checkpoint and not _built(p)}.values())


def _boot_cell(p: sweepdir.PlannedPoint) -> str:
    if p.missing:
        return f"needs {', '.join(p.missing)}"
    if not p.checkpoint:
        return f"boots {len(p.spec['hosts'])} hosts"
    return f"checkpoint {p.checkpoint[:8]} {'built' if _built(p) else 'to boot'}"


def _built(p: sweepdir.PlannedPoint) -> bool:
    """Whether the boot checkpoint `p` restores is built."""
    return p.checkpoint is not None and engines.get(p.spec["experiment"]["engine"]).checkpoint_built(
        p.checkpoint)


def _run_local(sd: SweepDir, plan: sweepdir.Plan, todo: list[sweepdir.PlannedPoint],
               jobs: int | None) -> None:
    # Under the runner lock with no workers left: every .tmp-* is a dead run's.
    store.remove_temporaries(sd.store)
    jobs = min(jobs or local.default_jobs(todo), max(len(todo), 1))
    _log(f"{len(plan.points)} points, {len(plan.points) - len(todo)} already have a run, "
         f"{len(todo)} to run ({_boots(todo)} boots) with {jobs} worker(s) in {sd.path}")
    todo_indices = {p.index for p in todo}
    settled = Counter(store.status_of(sd.store, p) or store.PENDING
                      for p in plan.points if p.index not in todo_indices)
    local.run(sd, todo, jobs, Display(len(plan.points), jobs, sys.stderr, settled=settled))


def _run_slurm(sd: SweepDir, plan: sweepdir.Plan, todo: list[sweepdir.PlannedPoint],
               args: argparse.Namespace) -> None:
    queued = slurm.live(sd)
    submit = [p for p in todo if p.index not in queued]
    _log(f"{len(plan.points)} points, {len(plan.points) - len(todo)} already have a run, "
         f"{len(queued)} in the queue, submitting {len(submit)}")
    if submit:
        job = slurm.submit(sd, submit, args.jobs, dict(args.slurm_flag))
        _log(f"submitted job array {job} ({slurm.array_spec([p.index for p in submit])}); "
             f"script and output in {sd.slurm}")
    if args.no_wait:
        return
    slurm.wait(sd, plan, Display(len(plan.points), args.jobs or len(plan.points), sys.stderr))
    for p, why in slurm.lost(sd, plan):
        _log(f"point {p.index} ({', '.join(f'{k}={v!r}' for k, v in p.params.items())}) "
             f"left the queue without a run ({why}); `g5net sweep` again resubmits it")


def _report(sd: SweepDir, plan: sweepdir.Plan, as_json: bool) -> int:
    s = store.summary(sd, plan, {})
    if as_json:
        print(json.dumps(s, indent=1))
    _log("result: " + ", ".join(f"{n} {state}" for state, n in s["counts"].items()))
    for state, points in s["by_status"].items():
        if state != "done":
            for p in points:
                _log(f"  point {p['index']} {state}: {p['run_dir'] or 'no run'}")
    return 0 if s["counts"].get("done", 0) == len(plan.points) else 1


def _dry_run(sd: SweepDir, plan: sweepdir.Plan, args: argparse.Namespace, adopted: set[int],
             estimate: Estimate | None) -> int:
    """The plan's points, their state and what they need; `adopted`: those that
    runs made elsewhere stand for (state `committed`, not to run)."""
    rows: list[dict[str, Any]] = []
    todo = []
    for p in plan.points:
        # A point whose artifacts are not built has no run id, and no run yet.
        state = ((store.status_of(sd.store, p) if p.run_id else None)
                 or (COMMITTED if p.index in adopted else store.PENDING))
        to_run = state in (store.PENDING, rundir.CORRUPT) or (args.retry_failed and state not in ("done", COMMITTED))
        todo += [p] * to_run
        rows.append({"index": p.index, "run_id": p.run_id or None, "dir": p.dir_name if p.run_id else None,
                     "state": state, "will_run": to_run, "checkpoint": p.checkpoint,
                     "boot": _boot_cell(p), "missing": list(p.missing),
                     "params": p.params, "resources": p.resources.to_dict()})
    host_time = estimate(plan.points, todo, _new_checkpoints(todo)) if estimate else None
    if host_time:
        for r in rows:
            r["host_hours"] = host_time.hours[r["index"]]
    if args.json:
        print(json.dumps(rows, indent=1))
        for line in host_time.lines if host_time else []:
            _log(line)
        return 0
    for r in rows:
        params = ", ".join(f"{k}={v!r}" for k, v in r["params"].items())
        res = r["resources"]
        tasks = f" in {res['tasks']} tasks" if res["tasks"] > 1 else ""
        hours = "" if "host_hours" not in r else (
            f"{'?' if r['host_hours'] is None else format(r['host_hours'], '.2g')} host h".rjust(11) + "  ")
        print(f"{r['index']:4d}  {(r['run_id'] or 'unbuilt')[:12]:<12}  {r['state']:<16} {r['boot']:<28} "
              f"{res['cpus']} cpu{tasks} {res['mem_mb'] / 1024:.1f} GiB {res['time_s'] / 60:.0f} min  "
              f"{hours}{params}")
    unbuilt = sorted({a for p in plan.points for a in p.missing})
    waiting = sum(bool(p.missing) for p in todo)
    print(f"\n{len(rows)} points; {len(todo)} to run, needing {_boots(todo)} boots"
          + (f" besides those of the {waiting} points whose {', '.join(unbuilt)} are not built "
             f"yet (their run ids and boots follow once built: `g5net artifacts build --for "
             f"{plan.source}`)" if unbuilt else ""))
    for line in host_time.lines if host_time else []:
        print(line)
    return 0
