"""What the stream kinds (iperf, iperf3) share: every NIC loaded, instances
and directions, TCP or UDP, a run by time or by bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import SpecError
from ..spec import PROTOCOLS, Spec, Workload
from .kind import WorkloadKind

if TYPE_CHECKING:
    from .flows import Instance


class StreamKind(WorkloadKind):
    streams = True
    protocols = PROTOCOLS

    def check(self, spec: Spec, w: Workload, key: str) -> None:
        super().check(spec, w, key)
        if w.duration_s == 0 and w.bytes == 0:
            raise SpecError(f"{key}: set duration_s or bytes")

    def host_figures(self, found: list[tuple[Instance, dict[str, Any]]]) -> dict[str, Any]:
        """A stream host's throughput each way: what it sent and what it received."""
        return {f"{d}_mbps": sum(f.get("throughput_mbps", 0.0) for i, f in found
                                 if i.direction == way)
                for d, way in (("sent", "send"), ("received", "receive"))}


def amount(w: Workload) -> list:
    """A client's run: so many bytes, or so many seconds."""
    return ["-n", w.bytes] if w.bytes else ["-t", w.duration_s]
