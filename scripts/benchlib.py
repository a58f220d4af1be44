"""What the gem5 benchmarks share (not a benchmark itself: `make bench` runs bench_*.py)."""

from g5net import engines
from g5net.errors import G5netError


def gem5_engine() -> engines.Engine | None:
    """The gem5 that g5net finds, or None after saying why the benchmark is skipped."""
    engine = engines.get("gem5")
    try:
        engine.info()
    except G5netError as e:
        print(f"skipped: {e}")
        return None
    return engine
