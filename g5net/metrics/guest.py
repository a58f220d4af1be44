"""The guest's metrics of a workload: what its tool reported, and the guest's
/proc over the region of interest, per second and per packet (both engines),
each defined here beside the code that computes it."""

from __future__ import annotations

from typing import Any

from ..guest.protocol import USER_HZ
from .metric import RunMetric, per

# Carried over from the workload's own report when present.
MEASURED = ("throughput_mbps", "sent_mbps", "received_mbps", "latency_us", "peak_mbps", "loss_pct",
             "requests_per_s", "latency_p99_us")

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
            "ipi_irqs_per_pkt": per(ipi, packets), "other_irqs_per_pkt": per(other, packets),
            "nic_irqs_per_rx_pkt": per(roi["nic_irqs"], roi["rx_packets"])}


# The kernel's share of /proc/stat's time: system calls, interrupts and
# softirqs, where a stack's receive work runs (NetFrame's "system time").
SYSTEM_TICKS = ("system", "irq", "softirq")


def region(roi: dict[str, Any]) -> dict[str, Any]:
    """The guest's figures of the region of interest, from its /proc before and after."""
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
        ctxt_per_pkt=per(roi["ctxt"], packets),
        intr_per_pkt=per(roi["intr"], packets),
        nic_irqs_per_pkt=per(roi["nic_irqs"], packets),
        pkts_per_nic_irq=per(packets, roi["nic_irqs"]),
        cpu_us_per_pkt=per(busy_ticks * 1e6 / USER_HZ, packets),
        system_pct=per(100 * sum(ticks.get(k, 0) for k in SYSTEM_TICKS), sum(ticks.values())),
        # Where a stream lost packets: TCP resent them; the driver counts the
        # NIC's receive drops and overruns (missed packets, FIFO overflows).
        tcp_retrans=roi.get("snmp", {}).get("Tcp.RetransSegs"),
        rx_dropped=sum(d["rx_drop"] + d["rx_fifo"] for d in roi.get("netdev", {}).values()),
        stack_drops=_stack_drops(roi),
    )


# TcpExt counters of received segments TCP threw away for want of room: the
# socket's backlog full while its owner held it, no receive memory for the
# in-order or out-of-order queue, a window closed to zero (net/ipv4/tcp_input.c,
# tcp_ipv4.c).
TCP_RECEIVE_DROPS = ("TCPBacklogDrop", "TCPRcvQDrop", "TCPOFODrop", "TCPZeroWindowDrop")


def _stack_drops(roi: dict[str, Any]) -> int | None:
    """Packets the kernel dropped after the NIC delivered them (None where the
    snapshots lack /proc/net/netstat and softnet_stat)."""
    if "netstat" not in roi or "softnet_stat" not in roi:
        return None
    return roi["softnet_stat"]["dropped"] + sum(roi["netstat"].get(f"TcpExt.{c}", 0)
                                                 for c in TCP_RECEIVE_DROPS)


# What the guest measured over its own clock (10 ms ticks of /proc): kept as
# guest_<name>; the unprefixed name is gem5's figure where gem5 ran.
GUEST_CLOCKED = ("elapsed_s", "cpu_util", "pkts_per_s", "rx_pkts_per_s", "ctxt_per_s",
                 "intr_per_s", "cpu_us_per_pkt", "nic_irqs_per_s", "ipi_irqs_per_s", "other_irqs_per_s")
# Counts of the region that are also reported per second.
_RATES = ("packets", "rx_packets", "ctxt", "intr", "nic_irqs", "ipi_irqs", "other_irqs")


def _rate_name(count: str) -> str:
    return {"packets": "pkts", "rx_packets": "rx_pkts"}.get(count, count) + "_per_s"


def rates(out: dict[str, Any], seconds: float | None) -> dict[str, Any]:
    """The region's counts per second of `seconds`."""
    return {_rate_name(k): per(out.get(k), seconds) for k in _RATES}


def _guest(name: str, unit: str, description: str) -> RunMetric:
    return RunMetric(name, unit, "guest", description)


METRICS: tuple[RunMetric, ...] = (
    _guest("throughput_mbps", "Mbit/s", "without windows: the workload's throughput as its tool "
                                       "reports it on this host (iperf, iperf3, wrk): a stream's "
                                       "client reports what it sent, its server what it received, "
                                       "each over its own start and end, so the two ends of one "
                                       "stream differ; sent_mbps and received_mbps say which; "
                                       "NetPIPE has peak_mbps instead. With windows "
                                       "(experiment.windows): the wire's, per window, in the "
                                       "directions the host's data goes (wire_sent_mbps, "
                                       "wire_received_mbps), on which a stream's two ends agree; "
                                       "the tool's own is then app_throughput_mbps"),
    _guest("sent_mbps", "Mbit/s", "streams: what the host's application reports it sent, all its "
                                  "flows together (0 on a host that only receives); with "
                                  "windows app_sent_mbps, and wire_sent_mbps the wire's"),
    _guest("received_mbps", "Mbit/s", "streams: what the host's application reports it received, "
                                      "all its flows together; the studies' throughput is the "
                                      "receiving server's; with windows app_received_mbps, and "
                                      "wire_received_mbps the wire's"),
    _guest("latency_us", "us", "NetPIPE: half the round trip of its smallest message; "
                               "web: wrk's mean request latency"),
    _guest("peak_mbps", "Mbit/s", "NetPIPE: the highest throughput over its message sizes"),
    _guest("loss_pct", "%", "UDP streams: datagrams lost, as the receiver's iperf reports them "
                            "(the receiving server's is the flow's loss); with windows, over the "
                            "benchmark's whole run, without spread"),
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
    _guest("stack_drops", "count", "received packets the kernel dropped after the NIC delivered "
                                   "them: a CPU's backlog full (/proc/net/softnet_stat dropped, "
                                   "net.core.netdev_max_backlog) or TCP out of room (TcpExt "
                                   + ", ".join(TCP_RECEIVE_DROPS) + "); none where the "
                                   "snapshots lack those files (windowed runs recorded before "
                                   "they were added)"),
    _guest("cpu_us_per_pkt", "us/pkt", "busy CPU time per packet: gem5's where gem5 ran, else "
                                       "/proc/stat's user, system, irq and softirq time"),
    _guest("system_pct", "%", "the kernel's share of all CPUs' time, idle included (/proc/stat "
                              "system + irq + softirq over every tick, by the guest's clock; "
                              "under gem5 with windows, over the warm-up and windows together)"),
)
# Where gem5 ran, these are by gem5's time; the guest's own figures stay beside them.
METRICS += tuple(_guest(f"guest_{m.name}", m.unit, f"{m.name} by the guest's own clock (/proc)")
                 for m in METRICS if m.name in GUEST_CLOCKED)

