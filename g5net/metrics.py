"""Derived metrics of a run (`metrics.json`): per host and workload, the guest's
measurements normalised per second and per packet."""

from __future__ import annotations

from typing import Any

from .rundir import RunDir
from .spec import Spec

# Carried over from the workload's own report when present.
_MEASURED = ("throughput_mbps", "latency_us", "peak_mbps", "loss_pct")


def _per(value: float | None, count: float | None) -> float | None:
    return value / count if value is not None and count else None


def workload_metrics(w: dict[str, Any]) -> dict[str, Any]:
    out = {k: w[k] for k in _MEASURED if k in w}
    roi = w.get("roi")
    if not roi:
        return out
    packets = roi["rx_packets"] + roi["tx_packets"]
    out.update(
        elapsed_s=roi["elapsed_s"],
        cpu_util=roi["cpu_util"],
        packets=packets,
        rx_packets=roi["rx_packets"],
        tx_packets=roi["tx_packets"],
        ctxt=roi["ctxt"],
        intr=roi["intr"],
        nic_irqs=roi["nic_irqs"],
        ctxt_per_s=roi["ctxt_per_s"],
        intr_per_s=roi["intr_per_s"],
        ctxt_per_pkt=_per(roi["ctxt"], packets),
        intr_per_pkt=_per(roi["intr"], packets),
        nic_irqs_per_pkt=_per(roi["nic_irqs"], packets),
        pkts_per_nic_irq=_per(packets, roi["nic_irqs"]),
    )
    return out


def compute(spec: Spec, results: dict[str, Any], rd: RunDir) -> dict[str, Any]:
    hosts = {}
    for name, r in results.items():
        hosts[name] = {wname: workload_metrics(w) for wname, w in r.get("workloads", {}).items()}
    return {"hosts": hosts}
