"""Every client of a workload together (fan-in, fan-out, hot-spot): metrics.json's
`aggregate`, each metric defined here beside the code that computes it.
Windowed runs (metrics/windows.py) also have the sums' `spread`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..spec import Spec
from . import guest, spread
from .metric import RunMetric

# Summed over a server's clients in `aggregate`; latencies are averaged and maxed.
SUMMED = ("throughput_mbps", "sent_mbps", "received_mbps", "requests_per_s")


def combine(spec: Spec, hosts: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """Per workload, its clients' figures together; a client without the
    workload's metrics (it failed) leaves that metric out rather than skew it."""
    clients = [h.name for h in spec.hosts if h.role == "client"]
    out: dict[str, Any] = {}
    for w in spec.workloads:
        each = [hosts.get(c, {}).get(w.name, {}) for c in clients]
        agg: dict[str, Any] = {"clients": len(clients)}
        spreads = {}
        for k in SUMMED:
            values = [m[k] for m in each if k in m]
            if len(values) == len(clients):
                agg[f"{k}_sum"] = sum(values)
                windowed = _window_sums(each, k)
                if windowed:
                    spreads[f"{k}_sum"] = spread.summary(windowed).to_dict()
        if spreads:
            agg[spread.SPREAD] = spreads
        latencies = [m["latency_us"] for m in each if "latency_us" in m]
        if latencies and len(latencies) == len(clients):
            agg.update(latency_us_mean=sum(latencies) / len(latencies), latency_us_max=max(latencies))
        out[w.name] = agg
    return out


def _window_sums(each: list[Mapping[str, Any]], k: str) -> list[float]:
    """Metric `k` of every client added window by window, where windows
    measured them all alike: the spread of the sum then holds whatever the
    clients' windows share (one stream's ends rising and falling together)."""
    windows: list[list[Mapping[str, Any]]] = [m.get(spread.PER_WINDOW) or [] for m in each]
    if not all(windows) or len({len(w) for w in windows}) != 1:
        return []
    if not all(k in w for ws in windows for w in ws):
        return []
    return [sum(ws[i][k] for ws in windows) for i in range(len(windows[0]))]


_GUEST_UNITS = {m.name: m.unit for m in guest.METRICS}

METRICS: tuple[RunMetric, ...] = (
    RunMetric("clients", "count", "aggregate", "clients of the workload"),
    *(RunMetric(f"{k}_sum", _GUEST_UNITS.get(k, ""), "aggregate", f"{k} of every client, summed")
      for k in SUMMED),
    RunMetric("latency_us_mean", "us", "aggregate", "latency_us, mean over the clients"),
    RunMetric("latency_us_max", "us", "aggregate", "latency_us, highest of the clients"),
)

