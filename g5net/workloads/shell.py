"""How a job line is written: shell words, CPU lists, and the bounds a server
waits and a client retries (workloads/README.md, section 3)."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from ..spec import Workload

if TYPE_CHECKING:
    from .flows import Instance

# $G5_OUT in the guest (workloads/README.md): every file there is a result item.
GUEST_OUT = "/tmp/g5out"
# Simulated seconds a server waits for its client beyond the workload itself;
# covers the other guest booting later than this one.
SERVER_GRACE_S = 120
CLIENT_RETRY_S = 120


def quote(args: list) -> str:
    return " ".join(shlex.quote(str(a)) for a in args)


def cpu_list(cpus: list[int]) -> str:
    return ",".join(str(c) for c in cpus)


def cpu_mask(cpus: list[int]) -> str:
    """`cpus` as the kernel's hexadecimal CPU mask: 32-bit words, highest
    first, joined by commas (bitmap_parse, as /sys/.../rps_cpus reads it)."""
    bits = sum(1 << c for c in set(cpus))
    words = [(bits >> (32 * i)) & 0xFFFFFFFF for i in range(max(cpus) // 32 + 1)]
    return ",".join(f"{w:08x}" for w in reversed(words))


def pinned(inst: Instance, cmd: list) -> str:
    """`cmd` on the instance's CPUs (g5_pin with an empty list runs it anywhere)."""
    return f"g5_pin {shlex.quote(cpu_list(inst.cpus))} {quote(cmd)}"


def server_limit_s(w: Workload) -> int:
    """How long a server of `w` waits: the run itself, then the grace. A
    transfer by bytes has no known length; its server waits the grace only."""
    run_s = w.duration_s if w.bytes == 0 else 0.0
    return int(run_s + SERVER_GRACE_S)
