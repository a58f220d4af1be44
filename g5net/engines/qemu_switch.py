"""An Ethernet switch for QEMU guests, in the engine's own process.

QEMU's `socket` netdev in `udp=` mode sends each frame as one UDP datagram to
a remote address and takes frames from its own local address. The switch has
one UDP port per guest per network (its switch port), learns which port each
MAC address is behind, forwards a frame to that port, and floods frames to
unknown or broadcast addresses to every other port. Everything is on the
loopback interface: no privileges, no tap devices, nothing of the host's own
network touched. It models no speed and no latency; QEMU runs are functional.
"""

from __future__ import annotations

import select
import socket
import threading
from dataclasses import dataclass

LOOPBACK = "127.0.0.1"
# Larger than any frame a guest sends: the e1000 accepts MTUs up to 16110.
MAX_FRAME = 65536
POLL_S = 0.2


@dataclass(frozen=True)
class Attachment:
    """Where one guest's NIC meets the switch: what QEMU sends to and listens on."""
    switch_port: int
    guest_port: int

    def netdev(self, netdev_id: str) -> str:
        return (f"socket,id={netdev_id},udp={LOOPBACK}:{self.switch_port},"
                f"localaddr={LOOPBACK}:{self.guest_port}")


def _udp_socket(port: int = 0) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind((LOOPBACK, port))
    return s


def _free_udp_ports(n: int) -> list[int]:
    # All held at once, so that the kernel hands out n different ports.
    socks = [_udp_socket() for _ in range(n)]
    try:
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class Switch:
    """One learning switch per network; `attachments[network][guest]`."""

    def __init__(self, guests: int, networks: int) -> None:
        self._socks = [[_udp_socket() for _ in range(guests)] for _ in range(networks)]
        guest_ports = _free_udp_ports(guests * networks)
        self.attachments = [[Attachment(s.getsockname()[1], guest_ports[n * guests + g])
                             for g, s in enumerate(row)] for n, row in enumerate(self._socks)]
        # Which network and switch port a socket is.
        self._where = {s.fileno(): (n, g) for n, row in enumerate(self._socks)
                       for g, s in enumerate(row)}
        self._tables: list[dict[bytes, int]] = [{} for _ in range(networks)]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="g5net-qemu-switch", daemon=True)

    def __enter__(self) -> "Switch":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        for row in self._socks:
            for s in row:
                s.close()

    def _serve(self) -> None:
        socks = [s for row in self._socks for s in row]
        while not self._stop.is_set():
            ready, _, _ = select.select(socks, [], [], POLL_S)
            for s in ready:
                try:
                    frame = s.recv(MAX_FRAME)
                except OSError:
                    continue
                self._forward(*self._where[s.fileno()], frame)

    def _forward(self, network: int, port: int, frame: bytes) -> None:
        if len(frame) < 14:
            return
        table = self._tables[network]
        table[frame[6:12]] = port
        out = table.get(frame[0:6])
        if out == port:
            return
        targets = [out] if out is not None else [
            p for p in range(len(self._socks[network])) if p != port]
        for p in targets:
            try:
                self._socks[network][p].sendto(
                    frame, (LOOPBACK, self.attachments[network][p].guest_port))
            except OSError:
                # A guest that has exited leaves nobody listening: its frames are lost,
                # as on a port whose cable was pulled.
                pass
