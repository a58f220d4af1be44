"""TCP ports of this machine: free ones to hand out, and which are listened on."""

from __future__ import annotations

import socket
from pathlib import Path

_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
_LISTEN = "0A"  # the state column of a listening socket


def free_ports(n: int, address: str = "") -> list[int]:
    """n different ports nobody listens on now at `address` ("": every address)."""
    # All held open at once, so that the kernel hands out n different ports.
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind((address, 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def listening_ports() -> set[int]:
    """Ports some socket listens on, IPv4 or IPv6. Read from /proc: a probing
    connect() would itself be a peer (QEMU takes the first as its only one),
    and closed connections linger in TIME_WAIT, so a bind() proves nothing."""
    ports = set()
    for table in _TABLES:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == _LISTEN:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports
