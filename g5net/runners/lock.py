"""Who may act on a sweep directory: one runner at a time, never beside the
workers of a runner that was killed."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Iterator

from ..errors import RunnerError
from ..machine import bounded_read
from ..runs.sweepdir import SweepDir


@contextlib.contextmanager
def exclusive(sd: SweepDir) -> Iterator[None]:
    """Held while a runner plans, submits or runs points of `sd`; released on any exit,
    `kill -9` included, because the kernel drops a dead process's locks."""
    sd.path.mkdir(parents=True, exist_ok=True)
    with open(sd.runner_lock, "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            raise RunnerError(f"{sd.path}: another g5net sweep is running on it "
                              f"(pid {f.read().strip() or '?'})") from None
        f.truncate(0)
        f.write(str(os.getpid()))
        f.flush()
        yield


def held(sd: SweepDir) -> bool:
    """True while some runner holds `exclusive(sd)`."""
    try:
        with bounded_read.open_regular(sd.runner_lock) as f:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except FileNotFoundError:
        return False
    except BlockingIOError:
        return True
    return False


def wait_for_workers(sd: SweepDir) -> None:
    """Block until no worker holds the workers' lock: after a runner is killed its
    workers take a moment to stop, and one may still commit its run."""
    with open(sd.workers_lock, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"g5net: waiting for the workers of a previous runner on {sd.path} to stop",
                  file=sys.stderr, flush=True)
            fcntl.flock(f, fcntl.LOCK_EX)
