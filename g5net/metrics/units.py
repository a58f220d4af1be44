"""What each metric of a run's `metrics.json` is (g5net/metrics/derive.py writes
them): its unit, where it comes from and what it means. `g5net.load`'s `unit`
column and docs/metrics.md are read from here.

Values are stored as measured: `cpu_util` is a fraction, the breakdown's
shares are percent.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..stats.catalogue import METRICS as GEM5_METRICS
from .derive import GEM5_DERIVED, GEM5_PER_PKT, GUEST_CLOCKED, SUMMED
from .profile import CATEGORIES

# Where a metric comes from.
SOURCES = {
    "guest": "the workload's own report, and /proc in the guest over the workload's region of "
             "interest (both engines)",
    "gem5": "gem5's statistics of the workload's region of interest, summed per host as "
            "g5net/stats/catalogue.py says (gem5 runs only)",
    "profile": "where the CPU time of a workload goes: gem5's program-counter samples where "
               "the spec sets `experiment.pc_sample_us` (unperturbed), else the guest's kernel "
               "function profile of a workload with `profile = true` (g5net/metrics/profile.py; "
               "metrics.json's `breakdown` says which)",
    "aggregate": "every client of a workload together: metrics.json's `aggregate`, under "
                 "host `aggregate`",
}


@dataclass(frozen=True)
class RunMetric:
    name: str
    unit: str
    source: str  # one of SOURCES
    description: str


def _guest(name: str, unit: str, description: str) -> RunMetric:
    return RunMetric(name, unit, "guest", description)


GUEST: tuple[RunMetric, ...] = (
    _guest("throughput_mbps", "Mbit/s", "the workload's throughput as its tool reports it "
                                       "(iperf, iperf3, wrk); NetPIPE has peak_mbps instead"),
    _guest("sent_mbps", "Mbit/s", "streams: what the host sent, all its flows together"),
    _guest("received_mbps", "Mbit/s", "streams: what the host received, all its flows together"),
    _guest("latency_us", "us", "NetPIPE: half the round trip of its smallest message; "
                               "web: wrk's mean request latency"),
    _guest("peak_mbps", "Mbit/s", "NetPIPE: the highest throughput over its message sizes"),
    _guest("loss_pct", "%", "UDP streams: datagrams lost"),
    _guest("requests_per_s", "1/s", "web: requests completed per second"),
    _guest("latency_p99_us", "us", "web: the 99th percentile of request latency"),
    _guest("elapsed_s", "s", "length of the region of interest: simulated seconds where gem5 "
                             "ran, else the guest's clock"),
    _guest("cpu_util", "fraction", "share of CPU time not idle, all CPUs of the host (0..1): from "
                                   "gem5's busy and idle cycles of each CPU where gem5 ran, else /proc/stat"),
    _guest("packets", "count", "packets received and sent by the host's NICs"),
    _guest("rx_packets", "count", "packets received by the host's NICs"),
    _guest("tx_packets", "count", "packets sent by the host's NICs"),
    _guest("pkts_per_s", "1/s", "packets per second of the region (elapsed_s)"),
    _guest("rx_pkts_per_s", "1/s", "packets received per second of the region (elapsed_s)"),
    _guest("ctxt", "count", "context switches (/proc/stat ctxt)"),
    _guest("intr", "count", "interrupts of every source (/proc/stat intr)"),
    _guest("nic_irqs", "count", "interrupts of the NICs (/proc/interrupts eth*)"),
    _guest("ctxt_per_s", "1/s", "context switches per second"),
    _guest("intr_per_s", "1/s", "interrupts per second"),
    _guest("ctxt_per_pkt", "1/pkt", "context switches per packet"),
    _guest("intr_per_pkt", "1/pkt", "interrupts per packet"),
    _guest("nic_irqs_per_pkt", "1/pkt", "NIC interrupts per packet"),
    _guest("pkts_per_nic_irq", "pkt", "packets per NIC interrupt (interrupt coalescing)"),
    _guest("ipi_irqs", "count", "inter-processor interrupts: function calls (cross-calls), "
                                "reschedules, TLB shootdowns (/proc/interrupts CAL, RES, TLB)"),
    _guest("other_irqs", "count", "interrupts neither the NIC's nor inter-processor"),
    _guest("nic_irqs_per_s", "1/s", "NIC interrupts per second"),
    _guest("ipi_irqs_per_s", "1/s", "inter-processor interrupts per second"),
    _guest("other_irqs_per_s", "1/s", "other interrupts per second"),
    _guest("ipi_irqs_per_pkt", "1/pkt", "inter-processor interrupts per packet"),
    _guest("other_irqs_per_pkt", "1/pkt", "other interrupts per packet"),
    _guest("nic_irqs_per_rx_pkt", "1/pkt", "NIC interrupts per received packet"),
    _guest("tcp_retrans", "count", "TCP segments the host resent (/proc/net/snmp RetransSegs): "
                                   "packets lost on the way"),
    _guest("rx_dropped", "count", "received packets the host's NICs dropped or overran "
                                  "(/proc/net/dev rx drop + fifo)"),
    _guest("cpu_us_per_pkt", "us/pkt", "busy CPU time per packet: gem5's where gem5 ran, else "
                                       "/proc/stat's user, system, irq and softirq time"),
)
# Where gem5 ran, these are by gem5's time; the guest's own figures stay beside them.
GUEST += tuple(_guest(f"guest_{m.name}", m.unit, f"{m.name} by the guest's own clock (/proc)")
               for m in GUEST if m.name in GUEST_CLOCKED)


def _gem5(name: str) -> RunMetric:
    m = GEM5_METRICS.get(name)
    unit, description = (m.unit, m.description) if m else GEM5_DERIVED[name]
    return RunMetric(name, unit, "gem5", description)


# Per-packet denominators: every packet, received ones, sent ones.
_PER = {"pkt": "per packet", "rx_pkt": "per received packet", "tx_pkt": "per sent packet"}


def _gem5_per_pkt(name: str) -> tuple[RunMetric, ...]:
    m = _gem5(name)
    return tuple(RunMetric(f"{name}_per_{d}", f"{m.unit}/pkt", "gem5", f"{m.description}, {words}")
                 for d, words in _PER.items())


GEM5 = (
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
    *(m for name in GEM5_PER_PKT for m in (_gem5(name), *_gem5_per_pkt(name))),
)

PROFILE = tuple(
    m for c in CATEGORIES for m in (
        RunMetric(f"time_{c}_pct", "%", "profile", f"share of the CPU time spent in {c} "
                                                   f"(the categories add up to 100)"),
        RunMetric(f"time_{c}_us_per_pkt", "us/pkt", "profile", f"CPU time in {c} per packet "
                                                               f"(of gem5's busy time where gem5 ran)"),
    )) + (
    RunMetric("profile_throughput_change_pct", "%", "profile",
              "throughput with the profiler against the same workload without it (the spec's "
              "unprofiled twin); negative: profiling slowed it"),
    RunMetric("profile_cpu_us_per_pkt_change_pct", "%", "profile",
              "CPU time per packet with the profiler against its unprofiled twin"),
)

_GUEST_UNITS = {m.name: m.unit for m in GUEST}

AGGREGATE = (
    RunMetric("clients", "count", "aggregate", "clients of the workload"),
    *(RunMetric(f"{k}_sum", _GUEST_UNITS.get(k, ""), "aggregate", f"{k} of every client, summed")
      for k in SUMMED),
    RunMetric("latency_us_mean", "us", "aggregate", "latency_us, mean over the clients"),
    RunMetric("latency_us_max", "us", "aggregate", "latency_us, highest of the clients"),
)

CATALOGUE: tuple[RunMetric, ...] = GUEST + GEM5 + PROFILE + AGGREGATE
BY_NAME = {m.name: m for m in CATALOGUE}


def unit_of(name: str) -> str | None:
    """The unit of a metrics.json metric; None for one this catalogue lacks."""
    m = BY_NAME.get(name)
    return m.unit if m else None
