"""Measure one window of a sampled point: a SLURM array task of the windows
array that goes before a sweep's points (slurm.py).

    python -m g5net.runners.window SWEEPDIR TASKS INDEX

TASKS is the array's JSON list of [point, window] pairs, INDEX the task's
place in it. The window lands in g5net's cache beside its warm checkpoints
(engines/gem5/sampled.py), where the point's own run finds it measured.

Exit status: 0 the window is measured, 1 it is not (the point measures it
itself), 2 bad arguments or sweep directory.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import engines
from ..errors import G5netError
from ..machine.stop_signals import unwind_on_stop
from ..model.numerals import ascii_int
from ..runs.sweepdir import SweepDir, read
from . import execute as run


def measure(sd: SweepDir, point: int, k: int) -> str | None:
    """Window k of point `point` of the sweep at `sd`; what failed, or None."""
    plan = read(sd)
    spec = plan.point(point).load_spec()
    arts = run.resolve_artifacts(spec, progress=run.silent, build=False)
    engine = engines.get(spec.experiment.engine, plan.options)
    return engine.measure_window(spec, arts, k, lambda m: print(f"[point {point} window {k}] {m}",
                                                                   flush=True))


def main(argv: list[str]) -> int:
    if len(argv) != 3 or ascii_int(argv[2]) is None:
        print("usage: python -m g5net.runners.window SWEEPDIR TASKS INDEX", file=sys.stderr)
        return 2
    unwind_on_stop()
    try:
        tasks = json.loads(Path(argv[1]).read_text())
        point, k = tasks[int(argv[2])]
        failure = measure(SweepDir(Path(argv[0])), point, k)
    except (OSError, ValueError, IndexError, TypeError) as e:
        print(f"window task {argv[2]}: {argv[1]}: {e}", file=sys.stderr)
        return 2
    except G5netError as e:
        print(f"window task {argv[2]}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"window task {argv[2]}: stopped", file=sys.stderr)
        return 1
    if failure:
        print(f"point {point} window {k}: {failure}", file=sys.stderr)
        return 1
    print(f"point {point} window {k}: measured", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
