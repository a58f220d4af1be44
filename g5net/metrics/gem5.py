"""gem5's metrics of a workload: the counters of its region of interest per
host (stats/catalogue.py, stats/splits.py), what follows from them, per packet,
and the CPUs' time by their cycle counters; each defined here, or in the
catalogue beside its stats, with the code that computes it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..stats import host_metrics, iter_dumps
from ..stats.catalogue import METRICS as COUNTERS
from ..stats.cpu_time import per_core, per_cpu
from ..stats.model import Dump
from ..stats.splits import DESCRIPTIONS as SPLITS
from ..stats.splits import splits
from .metric import RunMetric, per

# gem5 metrics reported as totals and per packet, per received and per sent
# packet (_per_pkt, _per_rx_pkt, _per_tx_pkt).
_PER_PKT = ("insts", "cycles", "uops", "load_uops", "store_uops", "other_uops",
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
_DERIVED = {
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


def roi_stats(stats_txt: Path, regions: Sequence[tuple[str, int]]
              ) -> dict[str, list[dict[str, dict[str, Any]]]]:
    """workload -> its regions, each gem5 host -> catalogue metrics, the splits
    (stats/splits.py), `cpu_ticks`, each CPU's (busy, all) ticks
    (stats/cpu_time.py), and
    `region_ticks`, the region's first and last tick, from the workloads'
    stats dumps. `regions`: (workload, dumps) in spec order.

    A workload of one dump is one region: the guest brackets it with `m5
    resetstats` / `m5 dumpstats`. A workload of N+1 dumps is N windows: gem5
    dumped without resetting (workloads/windows.sh), and window k is dump k
    less dump k-1. Later dumps (gem5's own at exit, a windowed run's periodic
    dumps after its last window) are no workload's. No file, or fewer dumps,
    leaves workloads out.
    """
    if not stats_txt.is_file():
        return {}
    dumps = iter_dumps(stats_txt)
    out = {}
    for name, count in regions:
        # Workloads first: this stops at the last one without reading gem5's exit dump.
        mine = [_dump_metrics(d) for _, d in zip(range(count), dumps)]
        if len(mine) < count:
            break
        out[name] = mine if count == 1 else [_minus(b, a) for a, b in zip(mine, mine[1:])]
    return out


def _dump_metrics(dump: Dump) -> dict[str, dict[str, Any]]:
    """Each host's metrics of one dump, as roi_stats gives them."""
    metrics: dict[str, dict[str, Any]] = dict(host_metrics(dump))
    for host, values in splits(dump).items():
        if host in metrics:
            metrics[host].update(values)
    for host, cpus in per_cpu(dump).items():
        if host in metrics:
            metrics[host]["cpu_ticks"] = cpus
    end = int(dump.value("finalTick"))
    for of_host in metrics.values():
        of_host["region_ticks"] = (end - int(dump.value("simTicks")), end)
    return metrics


def _minus(later: dict[str, dict[str, Any]], earlier: dict[str, dict[str, Any]]
           ) -> dict[str, dict[str, Any]]:
    """What happened between two dumps that count from one reset: every
    counter's difference (a counter gem5 left out, being 0, counts 0), the
    CPUs' busy and all time CPU by CPU (_window_cpu_time), the ticks between
    the two dumps' ends."""
    out = {}
    for host, b in later.items():
        a = earlier.get(host, {})
        diff: dict[str, Any] = {}
        for k, v in b.items():
            if k == "region_ticks":
                diff[k] = (a[k][1] if k in a else v[0], v[1])
            elif k == "cpu_ticks":
                diff[k] = _window_cpu_time(v, a.get(k))
            else:
                diff[k] = v - a.get(k, 0)
        out[host] = diff
    return out


def _window_cpu_time(later: list[tuple[float, float]], earlier: list[tuple[float, float]] | None
                     ) -> list[tuple[float, float]]:
    """Each CPU's (busy, all) ticks between two dumps that count from one
    reset: the differences of each dump's busy and all ticks since the reset
    (stats/cpu_time.py), not of gem5's cycle counts, which a halted CPU
    brings up to date only when it wakes (their differences went negative, or
    to nothing for a CPU that slept through a window of a 16-CPU host)."""
    before = earlier or [(0.0, 0.0)] * len(later)
    return [(busy - b0, total - t0) for (busy, total), (b0, t0) in zip(later, before)]


def cpu(gem5: dict[str, Any], threads_per_core: int) -> dict[str, Any]:
    """CPU utilisation from gem5's cycle counters (stats/cpu_time.py): per host,
    per CPU and per core, and the CPUs' busy seconds over the dump."""
    cpus, seconds = gem5.get("cpu_ticks"), gem5.get("sim_seconds")
    if not cpus or not seconds or not all(total > 0 for _, total in cpus):
        return {}
    each = [busy / total for busy, total in cpus]
    return {"cpu_util": sum(b for b, _ in cpus) / sum(t for _, t in cpus),
            "cpu_busy_s": sum(each) * seconds,
            "cpu_util_per_cpu": each,
            "cpu_util_max": max(each),
            "cpu_util_per_core": per_core(each, threads_per_core)}


def region(gem5: dict[str, Any], guest: tuple[int, int] | None) -> dict[str, Any]:
    """The host's counters of the region (roi_stats), their remainders and
    their shares of its packets. `guest`: the guest's (received, sent) packets, the denominators where the
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
    for k in _PER_PKT:
        if k in gem5:
            out[k] = gem5[k]
            out[f"{k}_per_pkt"] = per(gem5[k], packets)
            out[f"{k}_per_rx_pkt"] = per(gem5[k], rx)
            out[f"{k}_per_tx_pkt"] = per(gem5[k], tx)
    # NetFrame's D-cache miss rate: misses per instruction (every mode here).
    if gem5.get("insts") and "l1d_misses" in gem5:
        out["l1d_misses_per_inst"] = gem5["l1d_misses"] / gem5["insts"]
    if "sim_seconds" in gem5:
        out["sim_seconds"] = gem5["sim_seconds"]
    busy = [gem5[k] for k in _PCIE_BUSY if k in gem5]
    if busy and gem5.get("sim_ticks"):
        out["pcie_link_util"] = max(busy) / gem5["sim_ticks"]
    return {k: v for k, v in out.items() if v is not None}


def _gem5(name: str) -> RunMetric:
    m = COUNTERS.get(name)
    unit, description = (m.unit, m.description) if m else _DERIVED[name]
    return RunMetric(name, unit, "gem5", description)


# Per-packet denominators: every packet, received ones, sent ones.
_DENOMINATORS = {"pkt": "per packet", "rx_pkt": "per received packet", "tx_pkt": "per sent packet"}


def _gem5_per_pkt(name: str) -> tuple[RunMetric, ...]:
    m = _gem5(name)
    return tuple(RunMetric(f"{name}_per_{d}", f"{m.unit}/pkt", "gem5", f"{m.description}, {words}")
                 for d, words in _DENOMINATORS.items())


METRICS: tuple[RunMetric, ...] = (
    _gem5("sim_seconds"), _gem5("nic_rx_pkts"), _gem5("nic_tx_pkts"), _gem5("pcie_link_util"),
    RunMetric("cpu_busy_s", "s", "gem5", "CPU time not idle, all CPUs of the host added, from "
                                         "gem5's cycle counters (g5net/stats/cpu_time.py)"),
    RunMetric("gem5_packets", "count", "gem5", "packets of the region by the NIC model's counters "
                                               "(the guest's count where the NIC has none)"),
    RunMetric("cpu_util_per_cpu", "fraction", "gem5", "each CPU's share of the region not halted "
                                                      "(a list, by CPU number)"),
    RunMetric("cpu_util_max", "fraction", "gem5", "the busiest CPU's share of the region not "
                                                  "halted: one CPU doing the work while others idle"),
    RunMetric("cpu_util_per_core", "fraction", "gem5", "each core's: the mean of its threads' CPUs "
                                                       "(a list, by core number)"),
    *(m for name in _PER_PKT for m in (_gem5(name), *_gem5_per_pkt(name))),
    RunMetric("l1d_misses_per_inst", "misses/inst", "gem5", "L1 data cache misses per committed "
                                                          "instruction, user and kernel together"),
)

