"""A workload measured as windows inside its running stream (experiment.windows).

The workload's instances start, in the background, outside any region, and
each host counts the warm-up from the moment its flows connected (start);
after the warm-up (the guest's clock, which under gem5 is simulated time) the
region is `windows` consecutive windows of `window_ms`:

- gem5: the host that frames regions (job.stats_host) schedules every
  window's stats dump at once, at the warm-up's end, with one `m5` call each
  (workloads/windows.sh, g5_windows_arm): gem5 then resets and dumps its
  statistics at exact simulated times while the guest sleeps, so nothing the
  job does falls inside a window. Every host snapshots its /proc counters just
  before the first window and just after the last, in one process each
  (g5_window_snap): the guest's own figures are of the windows together.
- QEMU, which keeps no statistics: each host snapshots its counters at every
  window's edge, by its own clock, and each window's figures are the guest's.

Then the job waits for the instances to end. Item NAME.w<k>.proc is the
snapshot at the end of window k (w0: the first window's start).

Like workloads/profile.sh, windows.sh travels at the top of each job that
uses it, rather than in the disk image, whose digest is every run id's.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ..home import REPO
from ..spec import Experiment, Workload, arm_ms
from .ready import READY_POLL_S, answer_ready, wait_ready

if TYPE_CHECKING:
    from .flows import Instance

FUNCTIONS_FILE = REPO / "workloads" / "windows.sh"


@functools.cache
def functions() -> str:
    """The shell functions a windowed job defines, as job lines."""
    return FUNCTIONS_FILE.read_text().rstrip("\n")


def described(e: Experiment) -> str:
    return f"{e.windows} windows of {e.window_ms:g} ms after {e.warmup_ms:g} ms of warm-up"


def snapshot(name: str, k: int) -> str:
    """The item of the snapshot at the end of window `k` (0: the first's start)."""
    return f"{name}.w{k}.proc"


def _seconds(ms: float) -> str:
    """`ms` as an argument of busybox sleep: seconds, to the microsecond."""
    return f"{ms / 1000:.6f}".rstrip("0").rstrip(".") or "0"


def _listening(inst: Instance) -> str:
    """A server's loop until its TCP port listens (/proc/net/tcp state 0A,
    any local address: iperf binds one NIC's where there are several)."""
    pattern = f":{inst.port:04X} [0-9A-F]*:0000 0A "
    return (f"until grep -q '{pattern}' /proc/net/tcp /proc/net/tcp6 2>/dev/null; "
            f"do sleep {READY_POLL_S}; done")


def start(w: Workload, insts: list[Instance], commands: list[str]) -> list[str]:
    """Lines that start the instances in the background and return once every
    flow of this host is connected, so that both ends count the warm-up from
    one moment: a server returns when each client has asked whether it
    listens (ready.py), a client once each server has answered."""
    serving = [i for i in insts if i.serves]
    lines = [wait_ready(i) for i in insts if not i.serves]
    lines += [f"{c} &" for c in commands]
    for inst in serving:
        lines += [_listening(inst), answer_ready(w, inst)]
    return lines


def region(e: Experiment, name: str, *, arms: bool, every_edge: bool) -> list[str]:
    """The job lines of workload `name` measured as windows, once its
    instances run (start); `arms`: this host schedules gem5's window dumps;
    `every_edge`: snapshots at every window's edge."""
    lines: list[str] = []
    if every_edge:
        lines += [f"sleep {_seconds(e.warmup_ms)}",
                  f"g5_window_snap {name}.w0",
                  "k=1",
                  f"while [ $k -le {e.windows} ]; do",
                  f"\tsleep {_seconds(e.window_ms)}",
                  f"\tg5_window_snap {name}.w$k",
                  "\tk=$((k + 1))",
                  "done"]
    else:
        # The warm-up's last arm_ms is the m5 calls' (spec.WINDOW_ARM_MS_PER_CALL).
        gap_ms = arm_ms(e)
        lines += [f"sleep {_seconds(e.warmup_ms - gap_ms)}",
                  f"g5_window_snap {name}.w0"]
        if arms:
            lines.append(f"g5_windows_arm {round(gap_ms * 1e6)} {round(e.window_ms * 1e6)} {e.windows}")
        lines += [f"sleep {_seconds(gap_ms + e.windows * e.window_ms)}",
                  f"g5_window_snap {name}.w{e.windows}"]
    return lines + ["wait"]
