#!/usr/bin/env python3
"""The CLI's start-up (issue 27): CPU time (user + system) of `python -m g5net
--version` and `python -m g5net --help`, beside `python -c pass` (the
interpreter's own start), best of --repeat, interleaved. Each is printed as
seconds and as times the bare interpreter's. Target: each g5net command under
0.25 s of CPU, whatever it imports at start-up.
"""

import argparse
import resource
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_S = 0.25
RUNS = {"python -c pass": ["-c", "pass"],
        "g5net --version": ["-m", "g5net", "--version"],
        "g5net --help": ["-m", "g5net", "--help"]}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_seconds(argv: list[str]) -> float:
    """CPU seconds of one run of the interpreter with `argv`, from the repository
    root (so that `-m g5net` is this checkout's)."""
    start = children_cpu()
    subprocess.run([sys.executable, *argv], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return children_cpu() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=10, help="runs of each (default: %(default)s)")
    args = parser.parse_args()
    best = dict.fromkeys(RUNS, float("inf"))
    for _ in range(args.repeat):
        for label, argv in RUNS.items():
            best[label] = min(best[label], cpu_seconds(argv))
    print(f"CLI start-up, CPU time, best of {args.repeat}:")
    bare = best["python -c pass"]
    for label, seconds in best.items():
        verdict = "" if label == "python -c pass" else \
            f"  (target < {TARGET_S} s: {'met' if seconds < TARGET_S else 'MISSED'})"
        print(f"  {label:16} {seconds:6.3f} s  {seconds / bare:5.1f}x python -c pass{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
