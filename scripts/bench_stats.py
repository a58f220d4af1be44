#!/usr/bin/env python3
"""Reading gem5 stats at the speed of the disk (issue 13, item 6).

Over one ~60 MB multi-dump stats.txt (real gem5 dumps of every generation in
the fixtures, repeated), CPU times (user + system) in one run, interleaved and
best of --repeat: a bare `for line in f: line.split()` loop; the full parse
(iter_dumps, every line checked); the full parse reading every stat of every
dump; and `g5net stats FILE` as the command runs it, printing to /dev/null:
--dump last, and --dump all --csv and --json (issue 27). Each is printed as
seconds and as its time over the loop's (1.0: as fast as the loop; more:
slower). Targets: --dump last <= 1.0, full parse <= 2.0, --dump all --csv and
--json <= 3.0. Also the peak memory, which must not grow with the file.
"""

import argparse
import contextlib
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from g5net import cli  # noqa: E402
from g5net.stats import iter_dumps  # noqa: E402

FIXTURES = sorted(REPO.glob("tests/fixtures/gem5-*/m5out/stats.txt")) \
    + sorted((REPO.parent / "shared" / "fixtures" / "gem5-stats").glob("*.stats.txt"))
TARGETS = {"full parse": 2.0, "--dump last": 1.0, "--dump all --csv": 3.0,
           "--dump all --json": 3.0}


def write_big_file(path: Path, size_mb: float) -> tuple[int, int]:
    """Bytes and dumps written: whole fixture files, so any concatenation is a valid file."""
    sample = b"".join(p.read_bytes() for p in FIXTURES)
    copies = max(1, round(size_mb * 1e6 / len(sample)))
    with path.open("wb") as f:
        for _ in range(copies):
            f.write(sample)
    return copies * len(sample), copies * sample.count(b"Begin Simulation Statistics")


def bare_loop(path: Path) -> None:
    # The parser's own reading: UTF-8 text, undecodable bytes replaced.
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line.split()


def full_parse(path: Path) -> None:
    for _ in iter_dumps(path):
        pass


def every_stat(path: Path) -> None:
    for dump in iter_dumps(path):
        for _ in dump.values():
            pass


def g5net_stats(*argv: str) -> Callable[[Path], None]:
    """`g5net stats FILE *argv`, printing to /dev/null."""
    def run(path: Path) -> None:
        with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
            if cli.main(["stats", str(path), *argv]):
                sys.exit("bench_stats: g5net stats failed")
    return run


def best_times(path: Path, runs: dict[str, Callable[[Path], None]], repeat: int) -> dict[str, float]:
    """Best CPU seconds of each run; interleaved, so that a load that comes and
    goes on a shared machine weighs on all of them alike."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for label, run in runs.items():
            start = time.process_time()
            run(path)
            best[label] = min(best[label], time.process_time() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=60, help="size of the file (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each (default: %(default)s)")
    args = parser.parse_args()
    runs = {"bare loop": bare_loop, "full parse": full_parse,
            "full parse, every stat read": every_stat, "--dump last": g5net_stats("--dump", "last"),
            "--dump all --csv": g5net_stats("--dump", "all", "--csv"),
            "--dump all --json": g5net_stats("--dump", "all", "--json")}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stats.txt"
        size, dumps = write_big_file(path, args.mb)
        bare_loop(path)  # from the page cache from here on, for every run alike
        best = best_times(path, runs, args.repeat)
    print(f"stats reading, {size / 1e6:.0f} MB, {dumps} dumps, CPU time, best of {args.repeat}:")
    loop = best["bare loop"]
    for label, seconds in best.items():
        target = TARGETS.get(label)
        verdict = "" if target is None else \
            f"  (target <= {target}: {'met' if seconds / loop <= target else 'MISSED'})"
        print(f"  {label:28} {seconds:7.3f} s  {size / 1e6 / seconds:6.0f} MB/s  "
              f"{seconds / loop:5.2f}x the loop{verdict}")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
