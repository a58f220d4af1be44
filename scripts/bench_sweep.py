#!/usr/bin/env python3
"""Parallel efficiency and per-point overhead of the local sweep runner.

Runs the sweep twice in scratch directories: once point by point (one worker),
once with the pool (N workers), and prints

  efficiency = sum of the points' one-worker times / (N x wall time of the pool)
  overhead   = per point, the worker's life minus the run's own time
               (interpreter start, plan read, artifact check), plus the time a
               point waits for a free worker after one is freed

Usage: scripts/bench_sweep.py [SPEC.toml] [--jobs N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

from g5net.model import sweep as sweepmod
from g5net.runners import local, lock
from g5net.runners import plan as planmod
from g5net.runners.display import Display
from g5net.runs import store, sweepdir
from g5net.runs.sweepdir import SweepDir

REPO = Path(__file__).resolve().parents[1]


def _run(sd: SweepDir, plan: sweepdir.Plan, jobs: int) -> tuple[float, list[local.Finished]]:
    sweepdir.write(sd, plan)
    with lock.exclusive(sd):
        start = time.monotonic()
        finished = local.run(sd, list(plan.points), jobs, Display(len(plan.points), jobs, io.StringIO()))
        wall = time.monotonic() - start
    failed = [f for f in finished if f.status != "done"]
    if failed:
        sys.exit(f"bench: {len(failed)} point(s) did not end done, e.g. point {failed[0].point.index} "
                 f"{failed[0].status}: see {sd.path}")
    return wall, finished


def _overhead(sd: SweepDir, finished: list[local.Finished]) -> list[float]:
    return [f.wall_s - store.find(sd.store, f.point).read_run()["timings"]["total_s"] for f in finished]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", nargs="?", type=Path, default=REPO / "examples" / "sweep-quick.toml")
    ap.add_argument("--jobs", type=int, help="pool size (default: the runner's default)")
    ap.add_argument("--keep", type=Path, help="keep the two sweep directories under this directory")
    args = ap.parse_args()

    sweep = sweepmod.load(args.spec)
    plan = planmod.make(sweep, str(args.spec), lambda m: print(f"[bench] {m}", file=sys.stderr))
    jobs = args.jobs or local.default_jobs(list(plan.points))
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="g5net-bench-sweep-"))
    print(f"[bench] {len(plan.points)} points of {args.spec}; one worker, then {jobs}", file=sys.stderr)

    serial_dir, pool_dir = SweepDir(scratch / "serial"), SweepDir(scratch / "pool")
    serial_wall, serial = _run(serial_dir, plan, 1)
    pool_wall, pooled = _run(pool_dir, plan, jobs)

    single = sum(f.wall_s for f in serial)
    efficiency = single / (jobs * pool_wall)
    # The serial run's gaps between points are the runner's scheduling latency.
    gaps = (serial_wall - single) / len(serial)
    overhead = _overhead(serial_dir, serial) + _overhead(pool_dir, pooled)
    for label, value in (
            ("points", f"{len(plan.points)}"),
            ("workers", f"{jobs}"),
            ("single-point time (mean)", f"{statistics.mean(f.wall_s for f in serial):.1f} s"),
            ("one worker, wall", f"{serial_wall:.1f} s"),
            (f"{jobs} workers, wall", f"{pool_wall:.1f} s"),
            ("parallel efficiency", f"{efficiency:.2f}   (target >= 0.85)"),
            ("runner overhead per point", f"{statistics.mean(overhead) + gaps:.2f} s (worker "
             f"{statistics.mean(overhead):.2f} s + scheduling {gaps:.2f} s; target < 1 s)")):
        print(f"{label:<26}{value}")
    if args.keep:
        print(f"sweeps kept in {scratch}")
    return 0 if efficiency >= 0.85 else 1


if __name__ == "__main__":
    sys.exit(main())
