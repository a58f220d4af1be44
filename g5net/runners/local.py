"""The local runner: a pool of worker processes, one point each, on this machine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO

from ..machine.parent_death import die_with_parent
from ..runs import store
from ..runs.sweepdir import PlannedPoint, SweepDir
from .display import Display

POLL_S = 0.1
# The first workers start this far apart. Points of one sweep take about the
# same time, so workers started together stay in step and their guests boot
# (the CPU-bound part of a QEMU point) together every round; started apart,
# one point boots while another runs its mostly idle network phase.
RAMP_S = 3.0
# A stopped worker gets this long to remove its half-made run and its guests.
STOP_GRACE_S = 15
LOG_TAIL_CHARS = 2000


def default_jobs(points: list[PlannedPoint]) -> int:
    """One worker per core, fewer where the available memory holds fewer points."""
    cores = len(os.sched_getaffinity(0))
    need_mb = max((p.resources.mem_mb for p in points), default=1)
    return max(1, min(cores, _available_mb() // need_mb))


def _available_mb() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return 0


@dataclass(frozen=True)
class Worker:
    point: PlannedPoint
    proc: subprocess.Popen
    log: IO[bytes]
    started: float
    started_utc: datetime


@dataclass(frozen=True)
class Finished:
    point: PlannedPoint
    status: str
    wall_s: float  # from launch to exit of the worker process


def _launch(sd: SweepDir, point: PlannedPoint) -> Worker:
    sd.logs.mkdir(parents=True, exist_ok=True)
    log = open(sd.point_log(point.index), "ab")
    # Its own session: Ctrl-C reaches the runner only, which stops workers in order,
    # and a stop signal reaches the worker's guests too.
    proc = subprocess.Popen([sys.executable, "-m", "g5net.runners.point", str(sd.path), str(point.index)],
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True,
                            # A worker must not outlive a runner killed with `kill -9`: it
                            # gets SIGTERM then, and stops its point cleanly.
                            preexec_fn=die_with_parent(signal.SIGTERM))
    return Worker(point, proc, log, time.monotonic(), datetime.now(timezone.utc))


def _signal(w: Worker, sig: int) -> None:
    try:
        os.killpg(w.proc.pid, sig)
    except ProcessLookupError:
        pass


def _stop(workers: list[Worker]) -> None:
    """SIGTERM every worker's process group, SIGKILL what is left after the grace."""
    for w in workers:
        _signal(w, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    for w in workers:
        try:
            w.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal(w, signal.SIGKILL)
            w.proc.wait()
        _signal(w, signal.SIGKILL)  # guests a dying worker left behind
        w.log.close()


def _log_tail(sd: SweepDir, point: PlannedPoint) -> str:
    return sd.point_log(point.index).read_text(errors="replace")[-LOG_TAIL_CHARS:]


def _settle(sd: SweepDir, w: Worker, timed_out: bool) -> Finished:
    """What the point came to; a worker that left no run gets one recorded for it."""
    wall_s = time.monotonic() - w.started
    status = store.status_of(sd.store, w.point)
    if status is None:
        store.remove_temporaries(sd.store, w.point)
        if timed_out:
            status = "timeout"
            reason = (f"runner: worker still running {w.point.resources.time_s} s after start "
                      f"(experiment.timeout_s plus the hard-kill margin); killed")
        else:
            status = "failed:internal"
            reason = f"runner: worker exited with status {w.proc.returncode} without a run"
        store.record_failure(sd.store, w.point, status, [reason, _log_tail(sd, w.point)],
                             w.started_utc, wall_s)
    return Finished(w.point, status, wall_s)


def run(sd: SweepDir, todo: list[PlannedPoint], jobs: int, display: Display) -> list[Finished]:
    """Run `todo` with at most `jobs` workers at a time. Ctrl-C (KeyboardInterrupt)
    stops the running points, removes their half-made runs and is re-raised."""
    pending = list(reversed(todo))
    running: list[Worker] = []
    finished: list[Finished] = []
    counts: Counter[str] = Counter(pending=len(todo))
    last_launch = 0.0

    def ramping() -> bool:
        """The pool is filling for the first time and the last worker started under RAMP_S ago."""
        return bool(running) and not finished and time.monotonic() - last_launch < RAMP_S

    try:
        while pending or running:
            while pending and len(running) < jobs and not ramping():
                running.append(_launch(sd, pending.pop()))
                last_launch = time.monotonic()
                counts["pending"] -= 1
                counts["running"] += 1
            for w in list(running):
                timed_out = w.proc.poll() is None and time.monotonic() - w.started > w.point.resources.time_s
                if timed_out:
                    _stop([w])
                elif w.proc.poll() is None:
                    continue
                else:
                    w.log.close()
                running.remove(w)
                done = _settle(sd, w, timed_out)
                finished.append(done)
                display.finished(done.wall_s)
                counts["running"] -= 1
                counts[done.status] += 1
            display.update(counts)
            time.sleep(POLL_S)
    except KeyboardInterrupt:
        _stop(running)
        for w in running:
            store.remove_temporaries(sd.store, w.point)
        raise
    finally:
        display.update(counts, final=True)
    return finished
