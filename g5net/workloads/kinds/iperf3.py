"""iperf3 3.12: TCP or UDP streams with a JSON report; the server serves one
test and exits (workloads/lib.sh says how the binaries behave)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ...errors import GuestError, SpecError
from ...spec import Spec, Workload
from ..shell import CLIENT_RETRY_S, pinned, server_limit_s
from ..stream import StreamKind, amount

if TYPE_CHECKING:
    from ..flows import Instance


class Iperf3(StreamKind):
    name = "iperf3"

    def check(self, spec: Spec, w: Workload, key: str) -> None:
        if spec.experiment.windows:
            raise SpecError(f"{key}.kind: iperf3 cannot be measured in windows: it runs whole "
                            f"seconds only, reports an error when stopped once the windows are "
                            f"over, and its data starts some time after its control connection "
                            f"(0.8 s once under QEMU); use iperf")
        super().check(spec, w, key)
        if not w.bytes and (w.duration_s < 1 or w.duration_s != int(w.duration_s)):
            raise SpecError(f"{key}.duration_s: iperf3 reads -t as whole seconds: {w.duration_s:g} "
                            f"would run {int(w.duration_s)} s" + (" (that is, until it is killed)"
                                                                   if w.duration_s < 1 else "")
                            + "; give whole seconds, or bytes")

    def command(self, w: Workload, inst: Instance) -> str:
        if inst.serves:
            cmd = ["timeout", server_limit_s(w), "iperf3", "-s", "-1", "-p", inst.port, "-J"]
            return f"g5_capture {inst.item} {pinned(inst, cmd)}"
        cmd = ["iperf3", "-c", inst.peer.nic_ip(inst.flow.nic), "-p", inst.port, "-J",
               "-l", w.msg_bytes, "-P", w.streams] + amount(w)
        if w.window_bytes:
            cmd += ["-w", w.window_bytes]
        if w.protocol == "udp":
            cmd += ["-u", "-b", f"{w.udp_mbps}M"]
        if inst.flow.direction == "receive":
            cmd.append("-R")
        # With -J, iperf3 exits 0 even when its server is not listening yet.
        return f"g5_capture {inst.item} g5_retry {CLIENT_RETRY_S} g5_json_ok {pinned(inst, cmd)}"

    def measure(self, items: dict[str, str], inst: Instance) -> dict[str, Any]:
        return parse_json(items.get(f"{inst.item}.out", ""))


def parse_json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise GuestError(f"iperf3 output is not JSON: {e}") from e
    if "error" in data:
        raise GuestError(f"iperf3: {data['error']}")
    end = data.get("end", {})
    # The receiver's count where this side has it; a server that sent (the
    # client ran -R) has only its own sending, and its sum_received is empty.
    received = end.get("sum_received")
    summary = received if received and received.get("bytes") else end.get("sum_sent") or end.get("sum")
    if not summary:
        raise GuestError("iperf3 JSON has no end.sum_received / end.sum_sent / end.sum")
    out = {
        "bytes": int(summary["bytes"]),
        "duration_s": float(summary["seconds"]),
        "throughput_mbps": float(summary["bits_per_second"]) / 1e6,
    }
    cpu = end.get("cpu_utilization_percent")
    if cpu:
        out["cpu_host_pct"] = cpu.get("host_total")
    if "lost_percent" in summary:
        out["loss_pct"] = summary["lost_percent"]
    return out


KIND = Iperf3()
