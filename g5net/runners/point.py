"""Run one planned point: what a local worker and a SLURM array task both execute.

    python -m g5net.runners.point SWEEPDIR INDEX

Exit status: 0 a run was committed (whatever its status), 1 none was (the
point stays pending), 2 bad arguments or sweep directory.
"""

from __future__ import annotations

import fcntl
import sys
from pathlib import Path

from ..errors import G5netError, RunnerError
from ..machine.stop_signals import unwind_on_stop
from ..model.numerals import ascii_int
from ..runs import store
from ..runs.sweepdir import SweepDir, read
from . import execute as run


def run_point(sd: SweepDir, index: int) -> str:
    """Run point `index` of the sweep at `sd`; returns the committed run's status."""
    plan = read(sd)
    point = plan.point(index)
    spec = point.load_spec()
    # Remains of an earlier attempt at this point, killed before it could clean up.
    store.remove_temporaries(sd.store, point)
    # Never build here: the plan built the artifacts once; a worker that finds them
    # changed fails instead of starting a kernel build beside every other worker.
    rd = run.execute(spec, sd.store, progress=lambda m: print(f"[point {index}] {m}", flush=True),
                     build=False, options=plan.options)
    record = rd.read_run()
    if record["run_id"] != point.run_id:
        raise RunnerError(f"point {index}: ran as {record['run_id'][:12]}, planned as "
                          f"{point.run_id[:12]}: the kernel, image or engine changed since "
                          f"the sweep was planned; start the sweep again to plan anew")
    return record["status"]


def main(argv: list[str]) -> int:
    if len(argv) != 2 or ascii_int(argv[1]) is None:
        print("usage: python -m g5net.runners.point SWEEPDIR INDEX", file=sys.stderr)
        return 2
    # The runner stopping, SLURM's cancel or pre-emption: the point stops cleanly.
    unwind_on_stop()
    sd = SweepDir(Path(argv[0]))
    try:
        # Held while this point runs: a runner started after a `kill -9` waits on it
        # for the previous runner's workers to be gone before it looks at the store.
        with open(sd.workers_lock, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_SH)
            status = run_point(sd, int(argv[1]))
    except G5netError as e:
        print(f"point {argv[1]}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"point {argv[1]}: stopped", file=sys.stderr)
        return 1
    print(f"point {argv[1]}: {status}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
