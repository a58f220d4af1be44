"""The ready handshake: a client starts only once its server says it is ready
(workloads/README.md, "Profiled workloads start in order"): profiled
workloads, UDP streams, and every workload measured as windows, whose
warm-up counts from the client's start."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from ..spec import Workload
from .shell import CLIENT_RETRY_S, server_limit_s

if TYPE_CHECKING:
    from .flows import Instance

# A server says it is ready on the flow's port plus this, and its client starts
# only then: a profiled workload's server once its profiler is on (without it
# a client could connect before its server listens and wait out iperf's 200 ms
# retry, dear under a profiled kernel), a UDP stream's once its socket is bound
# (iperf 2 has no connect retries for UDP, and datagrams sent before then are
# lost).
READY_PORT_OFFSET = 30000
# How often (guest seconds) a client asks whether its server is ready.
READY_POLL_S = 0.001


def poll(condition: str) -> str:
    """A loop until the shell `condition` holds, polled every READY_POLL_S for
    as long as a client waits for its server (CLIENT_RETRY_S)."""
    tries = int(CLIENT_RETRY_S / READY_POLL_S)
    return f"i=0; until {condition} || [ $i -ge {tries} ]; do i=$((i + 1)); sleep {READY_POLL_S}; done"


def wait_ready(inst: Instance) -> str:
    """A client's loop until its server answers on the flow's ready port."""
    ip = shlex.quote(inst.peer.nic_ip(inst.flow.nic))
    return poll(f"nc {ip} {inst.port + READY_PORT_OFFSET} </dev/null >/dev/null 2>&1")


def answer_ready(w: Workload, inst: Instance) -> str:
    """A server's one answer on the flow's ready port, bounded like the server itself."""
    return f"timeout {server_limit_s(w)} nc -l -p {inst.port + READY_PORT_OFFSET} </dev/null >/dev/null"


def handshake(insts: list[Instance], w: Workload) -> list[str]:
    """A profiled workload's server answers one connection per client on the
    ready port; a client waits for that answer before it starts its own, so
    its first connection finds the server listening (workloads/README.md)."""
    lines = [wait_ready(inst) for inst in insts if not inst.serves]
    return lines + [f"{answer_ready(w, inst)} &" for inst in insts if inst.serves]
