"""iperf 2.1.8: TCP or UDP streams; the server serves its client's -P
connections and exits (workloads/lib.sh says how the binaries behave)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import GuestError
from ...spec import Workload
from ..kind import Stop
from ..ready import READY_POLL_S, answer_ready, wait_ready
from ..shell import CLIENT_RETRY_S, pinned, server_limit_s
from ..stream import StreamKind, amount

if TYPE_CHECKING:
    from ..flows import Instance

# iperf 2 reports success even when it never connected, so its own retry loop
# is used instead of g5_retry; it waits about 200 ms between attempts.
IPERF_RETRIES_PER_S = 5


class Iperf(StreamKind):
    name = "iperf"

    def command(self, w: Workload, inst: Instance) -> str:
        common = ["-p", inst.port, "-l", w.msg_bytes, "-y", "C"]
        if w.window_bytes:
            common += ["-w", w.window_bytes]
        if w.protocol == "udp":
            common.append("-u")
        if inst.serves:
            # iperf 2 serves -P connections, then reports them and exits.
            cmd = ["timeout", server_limit_s(w), "iperf", "-s", "-P", w.streams] + common
        else:
            # iperf 2 refuses --connect-retries with -u: a UDP client waits on the ready port.
            retries = [] if w.protocol == "udp" else ["--connect-retries", CLIENT_RETRY_S * IPERF_RETRIES_PER_S]
            cmd = (["iperf", "-c", inst.peer.nic_ip(inst.flow.nic), "-P", w.streams] + retries
                   + amount(w) + common)
            if w.protocol == "udp":
                cmd += ["-b", f"{w.udp_mbps}M"]
            if inst.flow.direction == "receive":
                cmd.append("-R")
        line = f"g5_capture {inst.item} {pinned(inst, cmd)}"
        return _udp_handshake(w, inst, line) if w.protocol == "udp" else line

    def connections(self, w: Workload) -> int:
        return w.streams  # -P: one connection each, no other

    def stop(self, w: Workload, insts: list[Instance]) -> Stop | None:
        """A client ends on SIGINT as at the end of its time, and reports
        (checked on 2.1.8); its TCP server then ends with it. A UDP server
        ends on its client's last datagram, which a saturated receiver can
        drop (the multi-NIC study's x4 point): it would then wait out its
        limit, seconds of guest time and hours of gem5's. So it is stopped
        too, after its clients (windows.py), and on SIGINT it reports what
        it received and lost, once it has tried to acknowledge that last
        datagram for about 3 s of guest time (2.1.8 on a QEMU guest whose
        client was killed mid-stream). iperf3 would report an error
        instead, and its client runs its whole duration."""
        stops = w.protocol == "udp" or any(not i.serves for i in insts)
        return Stop("INT", "iperf") if stops else None

    def own_handshake(self, w: Workload) -> bool:
        return w.protocol == "udp"

    def measure(self, items: dict[str, str], inst: Instance) -> dict[str, Any]:
        return parse_csv(items.get(f"{inst.item}.out", ""))


def _udp_handshake(w: Workload, inst: Instance, line: str) -> str:
    """A UDP iperf's line, grouped with its readiness handshake: the server
    answers on the ready port once its socket is bound; the client waits for it."""
    if not inst.serves:
        return f"{{ {wait_ready(inst)}; {line}; }}"
    bound = f":{inst.port:04X} "
    return (f"{{ {line} & p=$!; until grep -q '{bound}' /proc/net/udp /proc/net/udp6 2>/dev/null; "
            f"do sleep {READY_POLL_S}; done; {answer_ready(w, inst)}; wait $p; }}")


def parse_csv(text: str) -> dict[str, Any]:
    """iperf 2 `-y C`: a line per stream (field 5 its id), and a sum line (id
    -1) where iperf prints one: 2.1.8 prints none for -P > 1 on either side,
    so the streams are summed here. UDP adds jitter, lost, total and loss % to
    the receiver's report (total -1 on the sender's)."""
    rows = [l.split(",") for l in text.splitlines() if l.count(",") >= 8]
    if not rows:
        raise GuestError("iperf printed no report (did it connect?)")
    sums = [r for r in rows if r[5] == "-1"]
    # A stream's last line is its whole run.
    streams = list({r[5]: r for r in rows if r[5] != "-1"}.values())
    row = sums[-1] if sums else streams[0] if len(streams) == 1 else None
    if row is not None:
        start, _, end = row[6].partition("-")
        out: dict[str, Any] = {
            "bytes": int(row[7]),
            "duration_s": float(end) - float(start),
            "throughput_mbps": int(row[8]) / 1e6,
            "streams": len(streams),
        }
        if len(row) >= 13:
            out.update(jitter_ms=float(row[9]), lost=int(row[10]), datagrams=int(row[11]),
                       loss_pct=float(row[12]))
        return out
    return _sum_streams(streams)


def _sum_streams(streams: list[list[str]]) -> dict[str, Any]:
    """Streams that ran at once: their bytes and rates added, from the first
    one's start to the last one's end."""
    spans = [tuple(map(float, r[6].split("-", 1))) for r in streams]
    out: dict[str, Any] = {
        "bytes": sum(int(r[7]) for r in streams),
        "duration_s": max(e for _, e in spans) - min(s for s, _ in spans),
        "throughput_mbps": sum(int(r[8]) for r in streams) / 1e6,
        "streams": len(streams),
    }
    if all(len(r) >= 13 for r in streams):
        lost = sum(int(r[10]) for r in streams)
        # The sender knows no datagram total (-1): it knows no loss either.
        totals = [int(r[11]) for r in streams]
        datagrams = sum(totals) if min(totals) >= 0 else -1
        out.update(jitter_ms=max(float(r[9]) for r in streams), lost=lost, datagrams=datagrams,
                   loss_pct=100.0 * lost / datagrams if datagrams > 0 else 0.0)
    return out


KIND = Iperf()
