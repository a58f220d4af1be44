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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..guest.protocol import USER_HZ
from ..runs import record as run_record
from ..runs.rundir import RunDir
from ..spec import Spec
from ..stats import host_metrics, iter_dumps, pc_samples
from ..stats.cpu_time import per_core, per_cpu
from ..stats.splits import DESCRIPTIONS as SPLITS
from ..stats.splits import splits
from . import profile

# Carried over from the workload's own report when present.
_MEASURED = ("throughput_mbps", "sent_mbps", "received_mbps", "latency_us", "peak_mbps", "loss_pct",
             "requests_per_s", "latency_p99_us")
# Summed over a server's clients in `aggregate`; latencies are averaged and maxed.
SUMMED = ("throughput_mbps", "sent_mbps", "received_mbps", "requests_per_s")
# gem5 metrics reported as totals and per packet, per received and per sent
# packet (_per_pkt, _per_rx_pkt, _per_tx_pkt).
GEM5_PER_PKT = ("insts", "cycles", "uops", "load_uops", "store_uops", "other_uops",
                "l1i_misses", "l1d_misses", "l2_misses", "l2_inst_misses", "l2_data_misses",
                "l3_misses", "l3_inst_misses", "l3_data_misses",
                "mem_bytes", "mem_bytes_read", "mem_bytes_written",
                "nic_dram_bytes_read", "nic_dram_bytes_written", "llc_nic_writes")
# What the rest of a total is: data misses are a level's misses less its
# instruction misses; other micro-ops are neither loads nor stores.
_REMAINDERS = {"l2_data_misses": ("l2_misses", "l2_inst_misses"),
               "l3_data_misses": ("l3_misses", "l3_inst_misses"),
               "other_uops": ("uops", "load_uops", "store_uops")}
# Unit and meaning of the gem5 metrics that are not the catalogue's own.
GEM5_DERIVED = {
    **SPLITS,
    "l2_data_misses": ("count", "L2 misses of data accesses and page-table walks "
                                "(l2_misses - l2_inst_misses)"),
    "l3_data_misses": ("count", "L3 misses of data accesses and page-table walks "
                                "(l3_misses - l3_inst_misses)"),
    "other_uops": ("count", "committed micro-ops neither loads nor stores"),
    "pcie_link_util": ("fraction", "busy fraction of the NIC's PCIe link in its busier direction "
                                   "(pcie_to_host_busy_ticks or pcie_to_device_busy_ticks over "
                                   "sim_ticks; with several NICs, their links' sum)"),
}
_GEM5_NIC = ("nic_rx_pkts", "nic_tx_pkts")
_PCIE_BUSY = ("pcie_to_host_busy_ticks", "pcie_to_device_busy_ticks")


def _per(value: float | None, count: float | None) -> float | None:
    return value / count if value is not None and count else None


def roi_stats(stats_txt: Path, workloads: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """workload -> gem5 host -> catalogue metrics, the splits (stats/splits.py),
    `cpu_cycles`, each CPU's (busy, all) cycles, and `region_ticks`, the dump's
    first and last tick, from the workloads' stats dumps.

    The guest brackets each workload with `m5 resetstats` / `m5 dumpstats`, in
    spec order, so dump i is workload i; later dumps (gem5's own at exit) are
    not a workload's. No file, or fewer dumps, leaves workloads out.
    """
    if not stats_txt.is_file():
        return {}
    out = {}
    # Workloads first: zip stops at the last workload without reading gem5's exit dump.
    for name, dump in zip(workloads, iter_dumps(stats_txt)):
        metrics: dict[str, dict[str, Any]] = dict(host_metrics(dump))
        for host, values in splits(dump).items():
            if host in metrics:
                metrics[host].update(values)
        for host, cpus in per_cpu(dump).items():
            if host in metrics:
                metrics[host]["cpu_cycles"] = cpus
        end = int(dump.value("finalTick"))
        for of_host in metrics.values():
            of_host["region_ticks"] = (end - int(dump.value("simTicks")), end)
        out[name] = metrics
    return out


def _gem5_cpu(gem5: dict[str, Any], threads_per_core: int) -> dict[str, Any]:
    """CPU utilisation from gem5's cycle counters (stats/cpu_time.py): per host,
    per CPU and per core, and the CPUs' busy seconds over the dump."""
    cpus, seconds = gem5.get("cpu_cycles"), gem5.get("sim_seconds")
    if not cpus or not seconds:
        return {}
    each = [busy / total for busy, total in cpus]
    return {"cpu_util": sum(b for b, _ in cpus) / sum(t for _, t in cpus),
            "cpu_busy_s": sum(each) * seconds,
            "cpu_util_per_cpu": each,
            "cpu_util_max": max(each),
            "cpu_util_per_core": per_core(each, threads_per_core)}


def _gem5_metrics(gem5: dict[str, Any], guest: tuple[int, int] | None) -> dict[str, Any]:
    """`guest`: the guest's (received, sent) packets, the denominators where the
    model has no NIC counters."""
    out: dict[str, Any] = {k: gem5[k] for k in _GEM5_NIC if k in gem5}
    # The model's own count of the region's packets; the guest's when the NIC has none.
    if any(k in gem5 for k in _GEM5_NIC):
        rx, tx = gem5.get("nic_rx_pkts", 0), gem5.get("nic_tx_pkts", 0)
    else:
        rx, tx = guest or (None, None)
    packets = None if rx is None else rx + tx
    out["gem5_packets"] = packets
    gem5 = dict(gem5)
    for k, (total, *parts) in _REMAINDERS.items():
        if total in gem5 and all(p in gem5 for p in parts):
            gem5[k] = gem5[total] - sum(gem5[p] for p in parts)
    for k in GEM5_PER_PKT:
        if k in gem5:
            out[k] = gem5[k]
            out[f"{k}_per_pkt"] = _per(gem5[k], packets)
            out[f"{k}_per_rx_pkt"] = _per(gem5[k], rx)
            out[f"{k}_per_tx_pkt"] = _per(gem5[k], tx)
    if "sim_seconds" in gem5:
        out["sim_seconds"] = gem5["sim_seconds"]
    busy = [gem5[k] for k in _PCIE_BUSY if k in gem5]
    if busy and gem5.get("sim_ticks"):
        out["pcie_link_util"] = max(busy) / gem5["sim_ticks"]
    return {k: v for k, v in out.items() if v is not None}


# /proc/interrupts lines of inter-processor interrupts: function calls (the
# study's cross-calls), reschedules and TLB shootdowns.
IPI_LINES = ("CAL", "RES", "TLB")


def _irq_split(roi: dict[str, Any], packets: int) -> dict[str, Any]:
    """Interrupts delivered in the region, from the guest's /proc/interrupts (gem5
    keeps no per-CPU interrupt counter on x86): the NIC's, inter-processor, other."""
    irqs = roi.get("interrupts", {})
    if not irqs:
        return {}
    ipi = sum(irqs.get(k, 0) for k in IPI_LINES)
    other = sum(irqs.values()) - roi["nic_irqs"] - ipi
    return {"ipi_irqs": ipi, "other_irqs": other,
            "ipi_irqs_per_pkt": _per(ipi, packets), "other_irqs_per_pkt": _per(other, packets),
            "nic_irqs_per_rx_pkt": _per(roi["nic_irqs"], roi["rx_packets"])}


def _guest_metrics(roi: dict[str, Any]) -> dict[str, Any]:
    packets = roi["rx_packets"] + roi["tx_packets"]
    ticks = roi["cpu_ticks"]
    busy_ticks = sum(ticks.values()) - ticks["idle"] - ticks.get("iowait", 0)
    return _irq_split(roi, packets) | dict(
        elapsed_s=roi["elapsed_s"],
        cpu_util=roi["cpu_util"],
        packets=packets,
        rx_packets=roi["rx_packets"],
        tx_packets=roi["tx_packets"],
        ctxt=roi["ctxt"],
        intr=roi["intr"],
        nic_irqs=roi["nic_irqs"],
        ctxt_per_pkt=_per(roi["ctxt"], packets),
        intr_per_pkt=_per(roi["intr"], packets),
        nic_irqs_per_pkt=_per(roi["nic_irqs"], packets),
        pkts_per_nic_irq=_per(packets, roi["nic_irqs"]),
        cpu_us_per_pkt=_per(busy_ticks * 1e6 / USER_HZ, packets),
        # Where a stream lost packets: TCP resent them; the driver counts the
        # NIC's receive drops and overruns (missed packets, FIFO overflows).
        tcp_retrans=roi.get("snmp", {}).get("Tcp.RetransSegs"),
        rx_dropped=sum(d["rx_drop"] + d["rx_fifo"] for d in roi.get("netdev", {}).values()),
    )


# What the guest measured over its own clock (10 ms ticks of /proc): kept as
# guest_<name>; the unprefixed name is gem5's figure where gem5 ran.
GUEST_CLOCKED = ("elapsed_s", "cpu_util", "pkts_per_s", "rx_pkts_per_s", "ctxt_per_s",
                 "intr_per_s", "cpu_us_per_pkt", "nic_irqs_per_s", "ipi_irqs_per_s", "other_irqs_per_s")
# Counts of the region that are also reported per second.
_RATES = ("packets", "rx_packets", "ctxt", "intr", "nic_irqs", "ipi_irqs", "other_irqs")


def _rate_name(count: str) -> str:
    return {"packets": "pkts", "rx_packets": "rx_pkts"}.get(count, count) + "_per_s"


def _rates(out: dict[str, Any], seconds: float | None) -> dict[str, Any]:
    """The region's counts per second of `seconds`."""
    return {_rate_name(k): _per(out.get(k), seconds) for k in _RATES}




def workload_metrics(w: dict[str, Any], gem5: dict[str, Any] | None = None,
                     threads_per_core: int = 1, samples: profile.Breakdown | None = None
                     ) -> dict[str, Any]:
    """Metrics of one workload on one host: its results.json entry, plus the gem5
    counters of its region of interest for that host when there are any.

    Where gem5 ran, time is gem5's: CPU utilisation from each CPU's busy time,
    rates over the region's simulated seconds; the guest's clocked figures
    stay as guest_<name>. Where gem5 sampled program counters (`samples`, the
    region's breakdown), they say where the time went, rather than the guest's
    own profiler, which perturbs what it measures."""
    out = {k: w[k] for k in _MEASURED if k in w}
    roi = w.get("roi")
    packets = None
    if roi:
        out.update(_guest_metrics(roi))
        out.update(_rates(out, roi["elapsed_s"]))
        out.update({f"guest_{k}": out[k] for k in GUEST_CLOCKED if k in out})
        packets = out["packets"]
    if gem5:
        out.update(_gem5_metrics(gem5, (out["rx_packets"], out["tx_packets"]) if roi else None))
        if gem5.get("sim_seconds"):
            out["elapsed_s"] = gem5["sim_seconds"]
            out.update(_rates(out, gem5["sim_seconds"]))
        cpu = _gem5_cpu(gem5, threads_per_core)
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
    gem5 = roi_stats(rd.stats_txt, [w.name for w in spec.workloads])
    sampled = _sampled(spec, rd, gem5, {name: run_record.board(boards, name) for name in results})
    hosts = {}
    for name, r in results.items():
        prefix = run_record.board(boards, name)
        threads = spec.host(name).cpu.threads_per_core
        hosts[name] = {wname: workload_metrics(w, gem5.get(wname, {}).get(prefix), threads,
                                               sampled.get((wname, name)))
                       for wname, w in r.get("workloads", {}).items()}
        for profiled, plain in _profiled_twins(spec):
            if profiled in hosts[name] and plain in hosts[name]:
                hosts[name][profiled].update(perturbation(hosts[name][profiled], hosts[name][plain]))
    return {"hosts": hosts, "aggregate": aggregate(spec, hosts)}


def _sampled(spec: Spec, rd: RunDir, gem5: Mapping[str, Mapping[str, dict[str, Any]]],
             boards: Mapping[str, str]) -> dict[tuple[str, str], profile.Breakdown]:
    """(workload, host) -> the breakdown of gem5's program-counter samples over
    the workload's region, where the run sampled them."""
    if not spec.experiment.pc_sample_us or not rd.pc_samples.is_file():
        return {}
    samples = pc_samples.read(rd.pc_samples)
    out = {}
    for wname, by_board in gem5.items():
        ticks = next((m["region_ticks"] for m in by_board.values() if "region_ticks" in m), None)
        if ticks is None:
            continue
        start, end = ticks
        for host, counts in pc_samples.functions(samples, start, end, boards).items():
            b = profile.sampled(counts, spec.experiment.pc_sample_us)
            if b is not None:
                out[(wname, host)] = b
    return out


def _profiled_twins(spec: Spec) -> list[tuple[str, str]]:
    """(profiled workload, the same workload unprofiled) pairs of the spec: the
    profiler's cost is measured by running the point both ways."""
    out = []
    for w in spec.workloads:
        if w.profile:
            twin = next((v for v in spec.workloads
                         if not v.profile and dataclasses.replace(v, name=w.name, profile=True) == w), None)
            if twin:
                out.append((w.name, twin.name))
    return out


def perturbation(profiled: Mapping[str, Any], plain: Mapping[str, Any]) -> dict[str, Any]:
    """How much profiling changed what it measures, in percent of the unprofiled
    twin's figure: throughput (negative: profiling slowed the workload) and CPU
    time per packet (positive: the profiler's own cost)."""
    out: dict[str, Any] = {}
    for key, metric in (("profile_throughput_change_pct", "throughput_mbps"),
                        ("profile_cpu_us_per_pkt_change_pct", "cpu_us_per_pkt")):
        a, b = profiled.get(metric), plain.get(metric)
        if a is not None and b:
            out[key] = 100 * (a / b - 1)
    return out


def aggregate(spec: Spec, hosts: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """Per workload, its clients' figures together; a client without the
    workload's metrics (it failed) leaves that metric out rather than skew it."""
    clients = [h.name for h in spec.hosts if h.role == "client"]
    out: dict[str, Any] = {}
    for w in spec.workloads:
        each = [hosts.get(c, {}).get(w.name, {}) for c in clients]
        agg: dict[str, Any] = {"clients": len(clients)}
        for k in SUMMED:
            values = [m[k] for m in each if k in m]
            if len(values) == len(clients):
                agg[f"{k}_sum"] = sum(values)
        latencies = [m["latency_us"] for m in each if "latency_us" in m]
        if latencies and len(latencies) == len(clients):
            agg.update(latency_us_mean=sum(latencies) / len(latencies), latency_us_max=max(latencies))
        out[w.name] = agg
    return out
