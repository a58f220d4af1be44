"""What the gem5 benchmarks share (not a benchmark itself: `make bench` runs bench_*.py)."""

from g5net.engines.gem5 import Gem5Engine
from g5net.errors import G5netError


def gem5_engine() -> Gem5Engine | None:
    """The gem5 that g5net finds, or None after saying why the benchmark is skipped."""
    engine = Gem5Engine()
    try:
        engine.info()
    except G5netError as e:
        print(f"skipped: {e}")
        return None
    return engine
