#!/usr/bin/env python3
"""The round trip of a per-host run's barrier, with idle CPUs halting and
with them polling (g5net/machine/wakeups.py), in this one run.

dist-gem5's barrier (src/dev/net/dist_iface.cc): a process's simulation
thread sends a message over TCP and sleeps; in the peer a receiver thread,
blocked in recv(), wakes, hands the message to the peer's sleeping thread
through a condition variable, which answers the same way. This does that
between two processes over loopback, ROUNDS times each way, and prints the
mean round trip in each mode and their ratio. Python's own cost is in both;
the difference is the wake-ups'. Polling needs root (it says so otherwise).

    .venv/bin/python scripts/bench_wakeups.py
"""

import multiprocessing
import os
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from g5net.machine import wakeups  # noqa: E402

ROUNDS = 20000


class Peer:
    """One end: a receiver thread that wakes the sleeping main thread."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock, self.got, self.cv = sock, 0, threading.Condition()
        threading.Thread(target=self._receive, daemon=True).start()

    def _receive(self) -> None:
        while self.sock.recv(1):
            with self.cv:
                self.got += 1
                self.cv.notify()

    def wait(self) -> None:
        with self.cv:
            self.cv.wait_for(lambda: self.got)
            self.got -= 1


def echo(port: int) -> None:
    peer = Peer(socket.create_connection(("127.0.0.1", port)))
    for _ in range(ROUNDS):
        peer.wait()
        peer.sock.send(b"x")


def round_trip_us() -> float:
    with socket.create_server(("127.0.0.1", 0)) as server:
        other = multiprocessing.Process(target=echo, args=(server.getsockname()[1],))
        other.start()
        peer = Peer(server.accept()[0])
        t0 = time.perf_counter()
        for _ in range(ROUNDS):
            peer.sock.send(b"x")
            peer.wait()
        took = time.perf_counter() - t0
        other.join()
        peer.sock.close()
    return took / ROUNDS * 1e6


def main() -> int:
    os.environ[wakeups.OPT_OUT] = "0"
    with wakeups.polling_idle() as line:
        halting = round_trip_us()
    print(f"{line}: {halting:.1f} us a round trip")
    del os.environ[wakeups.OPT_OUT]
    with wakeups.polling_idle() as line:
        polling = round_trip_us()
    print(f"{line}: {polling:.1f} us a round trip")
    print(f"polling / halting: {polling / halting:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
