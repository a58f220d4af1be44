"""Derived metrics of a run (`metrics.json`): per host and workload, the guest's
measurements normalised per second and per packet, the gem5 counters of the
workload's region of interest per packet, and the CPU time breakdown.

Layout: `{"hosts": {host: {workload: {metric: value, ..., "breakdown": {...}}}},
"aggregate": {workload: {metric: value}}}`: `aggregate` is every client of
the workload at once (fan-in, fan-out, hot-spot): throughputs summed, latency
as the mean and the max over clients.
Metrics are flat numbers so that checks and reports can address them by name;
a metric that could not be measured (no gem5 stats under QEMU, no profile) is
absent, never 0.

Each family of metrics is computed, and each of its metrics defined (unit and
meaning), in its own module: guest.py, gem5.py (gem5's counters in
stats/catalogue.py), profile.py and aggregate.py; this one puts them together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runs import record as run_record
from ..runs.rundir import RunDir
from ..spec import Spec
from ..stats import pc_samples
from . import aggregate, gem5, guest, profile


def workload_metrics(w: dict[str, Any], counters: dict[str, Any] | None = None,
                     threads_per_core: int = 1, samples: profile.Breakdown | None = None
                     ) -> dict[str, Any]:
    """Metrics of one workload on one host: its results.json entry, plus the gem5
    counters of its region of interest for that host when there are any.

    Where gem5 ran, time is gem5's: CPU utilisation from each CPU's busy time,
    rates over the region's simulated seconds; the guest's clocked figures
    stay as guest_<name>. Where gem5 sampled program counters (`samples`, the
    region's breakdown), they say where the time went, rather than the guest's
    own profiler, which perturbs what it measures."""
    out = {k: w[k] for k in guest.MEASURED if k in w}
    roi = w.get("roi")
    packets = None
    if roi:
        out.update(guest.region(roi))
        out.update(guest.rates(out, roi["elapsed_s"]))
        out.update({f"guest_{k}": out[k] for k in guest.GUEST_CLOCKED if k in out})
        packets = out["packets"]
    if counters:
        out.update(gem5.region(counters, (out["rx_packets"], out["tx_packets"]) if roi else None))
        if counters.get("sim_seconds"):
            out["elapsed_s"] = counters["sim_seconds"]
            out.update(guest.rates(out, counters["sim_seconds"]))
        cpu = gem5.cpu(counters, threads_per_core)
        out.update(cpu)
        if cpu and packets:
            out["cpu_us_per_pkt"] = cpu["cpu_busy_s"] * 1e6 / packets
    if samples is not None or w.get("profile"):
        b = samples or profile.breakdown(w["profile"], roi["cpu_ticks"] if roi else None)
        if b is not None:
            out.update(profile.metrics(b, packets, out.get("cpu_busy_s")))
    return {k: v for k, v in out.items() if v is not None}


def compute(spec: Spec, results: dict[str, Any], rd: RunDir,
            boards: Mapping[str, str] | None = None) -> dict[str, Any]:
    """`boards`: host -> the prefix of its statistics (run.json's `boards`, the
    engine's object names); a host the map lacks is its own prefix (run_record.board)."""
    counters = gem5.roi_stats(rd.stats_txt, [w.name for w in spec.workloads])
    sampled = _sampled(spec, rd, counters, {name: run_record.board(boards, name) for name in results})
    hosts = {}
    for name, r in results.items():
        prefix = run_record.board(boards, name)
        threads = spec.host(name).cpu.threads_per_core
        hosts[name] = {wname: workload_metrics(w, counters.get(wname, {}).get(prefix), threads,
                                               sampled.get((wname, name)))
                       for wname, w in r.get("workloads", {}).items()}
        for profiled, plain in profile.profiled_twins(spec):
            if profiled in hosts[name] and plain in hosts[name]:
                hosts[name][profiled].update(profile.perturbation(hosts[name][profiled], hosts[name][plain]))
    return {"hosts": hosts, "aggregate": aggregate.combine(spec, hosts)}


def _sampled(spec: Spec, rd: RunDir, counters: Mapping[str, Mapping[str, dict[str, Any]]],
             boards: Mapping[str, str]) -> dict[tuple[str, str], profile.Breakdown]:
    """(workload, host) -> the breakdown of gem5's program-counter samples over
    the workload's region, where the run sampled them."""
    if not spec.experiment.pc_sample_us or not rd.pc_samples.is_file():
        return {}
    samples = pc_samples.read(rd.pc_samples)
    out = {}
    for wname, by_board in counters.items():
        ticks = next((m["region_ticks"] for m in by_board.values() if "region_ticks" in m), None)
        if ticks is None:
            continue
        start, end = ticks
        for host, counts in pc_samples.functions(samples, start, end, boards).items():
            b = profile.sampled(counts, spec.experiment.pc_sample_us)
            if b is not None:
                out[(wname, host)] = b
    return out
