#!/usr/bin/env python3
"""Stats parser throughput on a large synthetic stats.txt (the real fixture dumps
repeated), and its peak memory, which must not grow with the file.
Target: >= 50 MB/s on one core."""

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from g5net.stats import host_metrics, iter_dumps  # noqa: E402

FIXTURES = REPO.parent / "shared" / "fixtures" / "gem5-stats"
TARGET_MB_S = 50


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def write_big_file(path: Path, size_mb: int) -> int:
    # Every fixture file is a sequence of complete dumps, so any concatenation is a valid file.
    sample = "".join(p.read_text() for p in sorted(FIXTURES.glob("*.stats.txt")))
    written = 0
    with path.open("w") as f:
        while written < size_mb * 1e6:
            f.write(sample)
            written += len(sample)
    return written


def timed(path: Path, per_dump) -> tuple[float, float, int, int]:
    """CPU seconds, wall seconds, dumps and stats for one pass over `path`."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    dumps = stats = 0
    for dump in iter_dumps(path):
        per_dump(dump)
        dumps += 1
        stats += len(dump)
    return time.process_time() - cpu0, time.perf_counter() - wall0, dumps, stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200, help="size of the synthetic file (default: %(default)s)")
    args = parser.parse_args()
    if not FIXTURES.is_dir():
        sys.exit(f"bench_stats: no fixtures at {FIXTURES}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stats.txt"
        mb = write_big_file(path, args.mb) / 1e6
        rss_before = peak_rss_mb()
        rates = {}
        for label, per_dump in (("parse", lambda d: None), ("parse + host_metrics", host_metrics)):
            cpu_s, wall_s, dumps, stats = timed(path, per_dump)
            rates[label] = mb / cpu_s
            print(f"{label}: {mb:.0f} MB, {dumps} dumps, {stats} stats: "
                  f"{mb / cpu_s:.1f} MB/s on one core ({mb / wall_s:.1f} MB/s wall)")
        print(f"peak RSS: {peak_rss_mb():.0f} MB (before parsing: {rss_before:.0f} MB)")
    print(f"parser target >= {TARGET_MB_S} MB/s: {'met' if rates['parse'] >= TARGET_MB_S else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
