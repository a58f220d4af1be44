"""`g5net status`: where a sweep stands."""

from __future__ import annotations

import argparse
import json

from ..runners import lock, slurm
from ..runs import store, sweepdir
from ..runs.locate import locate
from ..runs.sweepdir import Plan, SweepDir
from . import add_source


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "status",
        help="count a sweep's points (or any folder's runs) by status",
        description="Count the points of the sweep directory SOURCE by status: the status in "
                    "their run's run.json (done, timeout, failed:<class>; corrupt where a run's "
                    "records cannot be read, which `g5net sweep` runs again), running or queued "
                    "while a runner has them, pending otherwise; and list each point's run "
                    "directory. Of a run directory or a folder of run directories, count its "
                    "runs by the status in their run.json.",
        epilog="JSON (--json): {\"sweep\" (null unless a sweep), \"source\", \"points\": N, "
               "\"counts\": {status: n}, \"by_status\": {status: [{\"index\", \"run_id\", "
               "\"run_dir\", \"params\"}]}}.\n"
               "Exit status: 0 every point (run) is done, 1 not yet (or some failed), "
               "2 SOURCE holds no run and is no sweep.\n"
               "Example: g5net status results/sweep-quick --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    p.set_defaults(func=main)


def live(sd: SweepDir, plan: Plan) -> dict[int, str]:
    """What runners say about points without a run: a local runner's workers (their
    half-made runs, while it holds the sweep) and SLURM's queue."""
    states = slurm.live(sd) if sd.slurm_jobs.exists() else {}
    if lock.held(sd):
        states.update({p.index: "running" for p in plan.points if store.temporaries(sd.store, p)})
    return states


def main(args: argparse.Namespace) -> int:
    found = locate(args.source.resolve())
    if found.sweep:
        plan = sweepdir.read(found.sweep)
        summary = store.summary(found.sweep, plan, live(found.sweep, plan))
    else:
        summary = store.summary_of_runs(found)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        if summary["sweep"]:
            print(f"{summary['sweep']}: {summary['points']} points from {summary['source']}")
        else:
            print(f"{summary['source']}: {summary['points']} runs")
        for state, n in summary["counts"].items():
            print(f"  {n:5d}  {state}")
        for state, points in summary["by_status"].items():
            print(f"\n{state}:")
            for p in points:
                index = "" if p["index"] is None else p["index"]
                print(f"  {index:>4}  {p['run_dir'] or '-'}")
    return 0 if summary["counts"].get("done", 0) == summary["points"] else 1
