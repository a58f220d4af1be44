"""What the stream kinds (iperf, iperf3) share: every NIC loaded, instances
and directions, TCP or UDP, a run by time or by bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import SpecError
from ..spec import PROTOCOLS, Experiment, Spec, Workload, sampled, window_span_ms
from .kind import WorkloadKind

if TYPE_CHECKING:
    from .flows import Instance

# An IPv4 datagram's 65,535 bytes less its IP and UDP headers (20 and 8).
MAX_UDP_PAYLOAD = 65507


class StreamKind(WorkloadKind):
    streams = True
    protocols = PROTOCOLS

    def check(self, spec: Spec, w: Workload, key: str) -> None:
        super().check(spec, w, key)
        if w.duration_s == 0 and w.bytes == 0:
            raise SpecError(f"{key}: set duration_s or bytes")
        if w.protocol == "udp" and w.msg_bytes > MAX_UDP_PAYLOAD:
            # iperf's -l is then each datagram's payload: iperf 2.1.8's
            # client fails every write of a larger one ("Message too long")
            # and exits 0, having sent nothing.
            raise SpecError(f"{key}.msg_bytes: {w.msg_bytes} is more than a UDP datagram "
                            f"carries over IPv4 ({MAX_UDP_PAYLOAD} bytes); with protocol = "
                            f"\"udp\" it is each datagram's size")
        e = spec.experiment
        if not e.windows:
            return
        need_ms = window_span_ms(e)
        if w.bytes:
            raise SpecError(f"{key}.bytes: windows measure a stream that runs for a time; set "
                            f"bytes = 0 and duration_s to at least {need_ms / 1000:g} (warm-up, "
                            f"{e.windows} windows and one more)")
        if w.duration_s * 1000 < need_ms:
            raise SpecError(f"{key}.duration_s: {w.duration_s:g} s ends before the windows do: "
                            f"{_span(e)} = {need_ms:g} ms (one window more, so that the "
                            f"stream's end falls in none); at least {need_ms / 1000:g}")

    def prewarm(self, w: Workload) -> list[str]:
        return [f"{self.name} -v >/dev/null 2>&1"]

    def host_figures(self, found: list[tuple[Instance, dict[str, Any]]]) -> dict[str, Any]:
        """A stream host's throughput each way: what it sent and what it received."""
        return {f"{d}_mbps": sum(f.get("throughput_mbps", 0.0) for i, f in found
                                 if i.direction == way)
                for d, way in (("sent", "send"), ("received", "receive"))}


def _span(e: Experiment) -> str:
    """window_span_ms's sum, in the spec's words."""
    if sampled(e):
        return (f"experiment.warmup_ms {e.warmup_ms:g} + (windows {e.windows} - 1) x "
                f"sample_every_ms {e.sample_every_ms:g} + functional_warming_ms "
                f"{e.functional_warming_ms:g} + detailed_warming_ms {e.detailed_warming_ms:g} + "
                f"2 x window_ms {e.window_ms:g}")
    return (f"experiment.warmup_ms {e.warmup_ms:g} + (windows {e.windows} + 1) x window_ms "
            f"{e.window_ms:g}")


def amount(w: Workload) -> list:
    """A client's run: so many bytes, or so many seconds."""
    return ["-n", w.bytes] if w.bytes else ["-t", w.duration_s]
