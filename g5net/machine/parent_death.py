"""Children that do not outlive the process that started them, even one killed
with `kill -9` (Linux's PR_SET_PDEATHSIG)."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True)


def die_with_parent(sig: int) -> Callable[[], None]:
    """A `preexec_fn`: the child gets `sig` when the process starting it dies
    (strictly, its thread: start children from a thread that lives as long)."""
    parent = os.getpid()

    def preexec() -> None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, sig)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)
    return preexec
