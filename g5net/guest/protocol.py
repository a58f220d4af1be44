"""The guest protocol's host side (workloads/README.md): what a guest prints
on its console (what an engine tells it on its kernel command line is
kernel_cmdline.py's).

Both engines use it; the guest's side is `workloads/g5init` and `lib.sh`.
"""

from __future__ import annotations

import re

# g5init prints this once its host is up, before it runs the job.
BOOTED = "G5NET-BOOTED"
# The job's results, between these two lines.
BEGIN = "<<<G5NET-RESULTS-BEGIN>>>"
END = "<<<G5NET-RESULTS-END>>>"
# Linux reports /proc/stat in USER_HZ ticks, 100 per second on x86.
USER_HZ = 100
_PANIC = re.compile(r"Kernel panic - not syncing:.*")

# The gem5 engine's boot-phase job: g5init sources it with lib.sh in the same
# shell. Its first line marks it: the guest waits for its NICs' carrier,
# checkpoints, then polls until `m5 readfile` returns anything else, which
# only a restored system does.
#
# The carrier comes up tens of simulated ms after g5init sets a NIC up
# (e1000's watchdog sees the link: 33 ms on a 2-CPU host's boot). A checkpoint taken before it restores
# hosts whose first ARP request goes out before the carrier does and is
# dropped; ARP asks again only after net.ipv4.neigh.*.retrans_time_ms (1 s),
# so on 2-CPU hosts, where the job outruns the watchdog, every stream
# connected 1.02 simulated s after the restore (10gbe, multi-nic: CHANGELOG).
# An interface that is down has no carrier to read and is not waited for.
STUB_MARK = "# g5net-checkpoint-stub"
CARRIER_WAIT_S = 5
_STUB_WAIT = f"""i=0
while grep -qx 0 /sys/class/net/eth*/carrier 2>/dev/null && [ $i -lt {CARRIER_WAIT_S * 100} ]; do
	i=$((i + 1))
	sleep 0.01
done
m5 checkpoint
while m5 readfile >/tmp/g5net-job.sh && grep -q '^{STUB_MARK}' /tmp/g5net-job.sh; do
	sleep 0.01 2>/dev/null || sleep 1
done
. /tmp/g5net-job.sh
"""


def checkpoint_stub(profiler: bool = False) -> str:
    """The boot-phase job. With `profiler`, the kernel's function profiler is
    switched on before the checkpoint: switching it patches every traced call
    site and waits for the other CPUs each time: 0.39 simulated seconds on the
    quick Niagara 2 study's 4-CPU hosts, minutes on the boot's atomic CPU (that
    boot took 877 host seconds, the plain one 342, on shared cores) and hours
    on a detailed one (the job then only reads its tables around each region:
    g5net/workloads/profiler.py)."""
    on = "g5_profile_start\n" if profiler else ""
    return f"{STUB_MARK}: the gem5 engine's boot phase (g5net/guest/protocol.py).\n{on}{_STUB_WAIT}"


def panic_line(console: str) -> str | None:
    """The kernel's panic message, if the console shows one."""
    m = _PANIC.search(console)
    return m.group(0).strip() if m else None
