"""`g5net status`: where a sweep stands."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .. import store, sweepdir
from ..runners import lock, slurm
from ..sweepdir import Plan, SweepDir


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "status",
        help="count a sweep's points by status",
        description="Count the points of the sweep in SWEEPDIR by status: the status in their "
                    "run's run.json (done, timeout, failed:<class>), running or queued while a "
                    "runner has them, pending otherwise; and list each point's run directory.",
        epilog="JSON (--json): {\"sweep\", \"source\", \"points\": N, \"counts\": {status: n}, "
               "\"by_status\": {status: [{\"index\", \"run_id\", \"run_dir\", \"params\"}]}}.\n"
               "Exit status: 0 every point is done, 1 not yet (or some failed), "
               "2 SWEEPDIR is not a sweep directory.\n"
               "Example: g5net status results/sweep-quick --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("sweep_dir", type=Path, metavar="SWEEPDIR", help="the --out of g5net sweep")
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
    sd = SweepDir(args.sweep_dir.resolve())
    plan = sweepdir.read(sd)
    summary = store.summary(sd, plan, live(sd, plan))
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"{summary['sweep']}: {summary['points']} points from {summary['source']}")
        for state, n in summary["counts"].items():
            print(f"  {n:5d}  {state}")
        for state, points in summary["by_status"].items():
            print(f"\n{state}:")
            for p in points:
                print(f"  {p['index']:4d}  {p['run_dir'] or '-'}")
    return 0 if summary["counts"].get("done", 0) == summary["points"] else 1
