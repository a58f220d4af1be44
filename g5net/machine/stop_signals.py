"""Signals that ask g5net to stop (SLURM's `scancel` and time limit send
SIGTERM, a closed terminal SIGHUP): each unwinds like Ctrl-C, so that a run
removes its half-made directory and its engine stops every guest it started;
once a run's simulation has ended, they wait (hold) until its results are
written."""

from __future__ import annotations

import signal

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A stop signal arrived; `signum` says which (the exit status is 128 + it,
    as a shell reports a process that signal ended)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


# While held (hold()): the stop signals that arrived, to unwind on release().
_held: list[int] | None = None


def _stop(signum: int, frame) -> None:
    if _held is not None:
        _held.append(signum)
        return
    # A second signal must not interrupt the cleanup the first one started.
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise Stopped(signum)


def hold() -> None:
    """From here until release(), a stop signal waits instead of unwinding:
    for the seconds in which a run whose simulation has ended writes its
    results (a runner stopping then would throw an hour of simulation away).
    Holding already, it changes nothing."""
    global _held
    if _held is None:
        _held = []


def release() -> None:
    """Stop holding; a stop signal that arrived meanwhile unwinds now."""
    global _held
    pending, _held = _held, None
    if pending:
        _stop(pending[0], None)


def unwind_on_stop() -> None:
    """From here on, a stop signal raises Stopped in the main thread. A signal
    that was ignored when this process started (`nohup`) stays ignored."""
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, _stop)
