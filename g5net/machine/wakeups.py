"""Quick wake-ups for the barriers of a per-host run: while its processes
run, ask Linux to keep idle CPUs polling instead of halting.

Every quantum each process of a per-host run tells the switch process it is
done and sleeps until the switch answers (src/dev/net/dist_iface.cc): a
message and a thread wake-up each way, four wake-ups in all, hundreds of
thousands of times a run. A halted CPU takes long to wake, longest in a
virtual machine, where the hypervisor must run it again. On the 2-core VM of
our CI the quickstart's measured phase per host took 282 s with idle CPUs
halting and 228 s with them polling, against 274 s in one process
(`scripts/bench_per_host.py`; `scripts/bench_wakeups.py` times the bare
round trip both ways).

The request is Linux's PM QoS CPU latency limit
(Documentation/power/pm_qos_interface.rst): write 0 to /dev/cpu_dma_latency
and keep it open; the limit holds until the file is closed, however the
process ends. Only root may open it. It costs power, never results: the
simulated system is the same either way. Set G5NET_IDLE_POLL=0 to leave
idle CPUs alone (a laptop on battery). The request is made where g5net runs:
other nodes of a SLURM job keep their own idle settings.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DEVICE = Path("/dev/cpu_dma_latency")
# Set to "0", idle CPUs are left to halt.
OPT_OUT = "G5NET_IDLE_POLL"
# The request's value: the most microseconds a CPU may take to leave its idle
# state. 0 leaves it only the polling state.
POLL = struct.pack("i", 0)


@contextmanager
def polling_idle(device: Path = DEVICE) -> Iterator[str]:
    """Hold the request while the block runs; yields one line saying whether
    idle CPUs poll, and if not, why."""
    if os.environ.get(OPT_OUT) == "0":
        yield f"idle CPUs may halt between barriers ({OPT_OUT}=0)"
        return
    try:
        fd = os.open(device, os.O_WRONLY)
    except OSError as e:
        yield (f"idle CPUs may halt between barriers, which then wake slower: {device}: "
               f"{e.strerror} (root may open it; see g5net/machine/wakeups.py)")
        return
    try:
        os.write(fd, POLL)
        yield f"idle CPUs poll between barriers ({device} held at 0 us)"
    finally:
        os.close(fd)
