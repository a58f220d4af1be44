"""NetPIPE 3.7.2 over TCP (NPtcp): a ping-pong over a range of message sizes;
the transmitter (the client) writes the table, the receiver only answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import GuestError, SpecError
from ...spec import Spec, Workload
from ..kind import WorkloadKind
from ..shell import CLIENT_RETRY_S, GUEST_OUT, SERVER_GRACE_S, pinned

if TYPE_CHECKING:
    from ..flows import Instance

# NetPIPE's default repeat count tunes each point to ~1 s; far too slow for
# emulation, so fewer fixed repeats unless the spec says otherwise.
DEFAULT_REPEATS = 50


class Netpipe(WorkloadKind):
    name = "netpipe"
    # Its figures are per message size over many round trips: with
    # experiment.windows it runs after the stream, its whole life one region
    # (so does mpi, NetPIPE over MPI).
    after_windows = True

    def check(self, spec: Spec, w: Workload, key: str) -> None:
        if w.min_bytes > w.max_bytes:
            raise SpecError(f"{key}.min_bytes: {w.min_bytes} is larger than max_bytes {w.max_bytes}")
        super().check(spec, w, key)

    def command(self, w: Workload, inst: Instance) -> str:
        sizes = sizes_args(w) + ["-P", inst.port]
        if inst.serves:
            # One receiver per client: NPtcp serves a single peer.
            cmd = ["timeout", SERVER_GRACE_S * 2, "NPtcp"] + sizes
            return f"g5_capture {inst.item} {pinned(inst, cmd)}"
        # The transmitter writes the table; measure reads it from <item>.np.
        cmd = ["NPtcp", "-h", inst.peer.nic_ip(inst.flow.nic), "-o", table_path(inst)] + sizes
        return f"g5_capture {inst.item} g5_retry {CLIENT_RETRY_S} {pinned(inst, cmd)}"

    def measure(self, items: dict[str, str], inst: Instance) -> dict[str, Any]:
        # Only the transmitter measures; the server just answers.
        if inst.serves:
            return {}
        return parse_table(items.get(f"{inst.item}.np", ""))


def sizes_args(w: Workload) -> list:
    """The message sizes and repeats, as NPtcp and NPopenmpi take them."""
    sizes = ["-l", w.min_bytes, "-u", w.max_bytes, "-p", 0, "-n", w.repeats or DEFAULT_REPEATS]
    if w.window_bytes:
        sizes += ["-b", w.window_bytes]
    return sizes


def table_path(inst: Instance) -> str:
    """Where the transmitter writes its table: the result item <item>.np."""
    return f"{GUEST_OUT}/{inst.item}.np"


def parse_table(text: str) -> dict[str, Any]:
    """NetPIPE's output file: bytes, Mbit/s, seconds (half the round trip) per row.
    Each row's time is the fastest of NetPIPE's trials of `-n` round trips (its
    netpipe.c keeps the minimum): one number a size, with no spread of its own
    (experiment.repeats gives one)."""
    points = []
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 3:
            points.append({"bytes": int(f[0]), "mbps": float(f[1]), "latency_us": float(f[2]) * 1e6})
    if not points:
        raise GuestError("NetPIPE wrote no data points")
    smallest = min(points, key=lambda p: p["bytes"])
    return {
        "latency_us": smallest["latency_us"],
        "latency_bytes": smallest["bytes"],
        "peak_mbps": max(p["mbps"] for p in points),
        "points": points,
    }


KIND = Netpipe()
