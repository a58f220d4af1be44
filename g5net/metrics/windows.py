"""A workload measured as windows (experiment.windows): each window's
metrics, the workload's as their means with a 95% confidence interval, and the
throughput that both ends of a stream agree on, from bytes on the wire.

Each window is a region of its own: under gem5 a difference of two stats
dumps (metrics/gem5.py roi_stats), under QEMU of two guest snapshots
(workloads/proc.py). Its metrics are derived as a whole-life region's are
(derive.workload_metrics), plus the wire's rates. The workload's value of a
metric is its mean over the windows, and `spread` says how sure that mean is:
the windows are consecutive batches of one stationary stream, so their means
are treated as independent samples (batch means) and the interval is Student
t's with n-1 degrees of freedom (spread.py). Where the guest snapshot only
around the windows (gem5, whose job sleeps through them), the guest's own
figures (context switches, interrupts) are of the warm-up and the windows
together, without spread (workloads/windows.py says why).

Sampled windows (experiment.window_method = "sampled", gem5 only) are not
consecutive: the stream is fast-forwarded on cpu.boot_model into a warm
checkpoint every sample_every_ms, and each window is restored from one in a
gem5 process of its own, warmed (functional_warming_ms on cpu.boot_model
with the caches, then detailed_warming_ms on cpu.model) and measured as that
process's one stats dump (engines/gem5/sampled.py; `window-K/` of the run
directory). Their means, spread and `per_window` are computed as for
consecutive windows; the windows are further apart, so more nearly
independent. No guest snapshots a sampled window: its figures are gem5's
alone (no context switches, interrupts or app_* figures), and run.json's
`region` says which method measured the run.

`throughput_mbps` of a windowed run is the wire's: the Ethernet bytes the
host's NICs sent in the directions it sends data, plus those they received in
the directions it receives data, per second (gem5's NIC counters, or the
guest's /proc/net/dev). A stream's sender and receiver count the same frames,
so they agree within what is in flight at the windows' edges. What the
benchmark itself reported over its whole run is `app_throughput_mbps`,
`app_sent_mbps` and `app_received_mbps`; a UDP stream's `loss_pct` is its
receiver's over the whole run too (iperf 2's server, which reports once its
client, stopped after the windows, has ended the flow), without spread.

One stream per run is measured as windows. NetPIPE workloads after it each
have their whole life as their region, their figures NetPIPE's own and the
guest's /proc over that region, by the guest's clock; no gem5 counters: under
gem5 the windows' periodic dumps go on until the simulation ends, so no dump
of the workload's own could be told from them, and its job takes none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import spread
from .metric import RunMetric

# The benchmark's own figures, renamed in a windowed run: over its whole run,
# start-up and end included, each end by its own clock.
APP_FIGURES = {"throughput_mbps": "app_throughput_mbps", "sent_mbps": "app_sent_mbps",
               "received_mbps": "app_received_mbps"}
# The benchmark's own figures that no window measures, kept under their names:
# a UDP stream's loss, which its receiver reports over its whole run.
WHOLE_RUN = ("loss_pct",)
# gem5: the windows in which the host's CPUs ran no cycle (each halted
# throughout) and its NICs moved no byte: a stalled host, not a measurement
# of the knob; named only where there are any.
STALLED = "stalled_windows"
# gem5: the windows in which frames reached the host's NICs and their DMA
# moved nothing to or from memory: each frame was dropped in the NIC's FIFO,
# though the NIC counts it received (nic_rx_bytes, and so wire_received_mbps):
# a stalled NIC; named only where there are any.
NIC_STALLED = "nic_stalled_windows"
# gem5: what the NICs' DMA wrote to memory, per second of the window (dma).
DMA_RECEIVED = "dma_received_mbps"


def wire(tx_bytes: float, rx_bytes: float, seconds: float | None, sends: bool, receives: bool,
         cpu_busy_s: float | None = None) -> dict[str, float]:
    """The window's wire rates: each way, and the data's (`throughput_mbps`);
    with the host's busy CPU time, that time per byte of the data's."""
    if not seconds:
        return {}
    sent, received = tx_bytes * 8 / seconds / 1e6, rx_bytes * 8 / seconds / 1e6
    out = {"wire_sent_mbps": sent, "wire_received_mbps": received,
           "throughput_mbps": sent * sends + received * receives}
    # A cost per byte compares runs whose rates differ (MTU 9000 against 1500):
    # a window's CPU time alone grows with what it carried.
    data = tx_bytes * sends + rx_bytes * receives
    if cpu_busy_s is not None and data:
        out["cpu_ns_per_byte"] = cpu_busy_s * 1e9 / data
    return out


def dma(written_bytes: float, seconds: float | None) -> dict[str, float]:
    """The window's rate of what the host's NICs wrote to memory by DMA: the
    frames they received that reached memory, where wire_received_mbps also
    counts those their FIFOs dropped."""
    return {DMA_RECEIVED: written_bytes * 8 / seconds / 1e6} if seconds else {}


def guest_wire_bytes(roi: dict[str, Any]) -> tuple[int, int]:
    """(sent, received) Ethernet bytes of the host's NICs over a guest region."""
    devs = roi.get("netdev", {}).values()
    return sum(d["tx_bytes"] for d in devs), sum(d["rx_bytes"] for d in devs)


def combine(windows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The workload's metrics from its windows': each numeric metric that
    every window has, as its mean, with `spread`; lists (per CPU) as their
    element-wise means; `per_window`, every window's numbers; `n_windows`."""
    if not windows:
        return {}
    out: dict[str, Any] = {spread.N_WINDOWS: len(windows)}
    spreads = {}
    for k in windows[0]:
        values = [w.get(k) for w in windows]
        if all(map(spread.is_number, values)):
            s = spread.summary([float(x) for x in values if x is not None])
            out[k] = s.mean
            spreads[k] = s.to_dict()
        elif (means := spread.element_means(values)) is not None:
            out[k] = means
    out[spread.SPREAD] = spreads
    out[spread.PER_WINDOW] = [{k: v for k, v in w.items() if spread.is_number(v)} for w in windows]
    return out


_STALL_WORDS = {STALLED: "every CPU of the host halted and its NICs moved no byte",
                NIC_STALLED: "frames reached its NICs and their DMA moved nothing: every one was dropped "
                             "in the NIC, though its wire figures count it received (gem5's IGbE "
                             "under overload: configs/README.md, the e1000 under UDP overload, and "
                             "host.nic.rx_wthresh)"}


def stalls(metrics: dict[str, Any]) -> list[str]:
    """A line for each host's workload of a run's metrics that stalled in some
    of its windows (STALLED, NIC_STALLED)."""
    return [f"warning: {host}.{name} stalled in {m[key]} of its {m[spread.N_WINDOWS]} windows: "
            f"{words} (metrics.json {key})"
            for host, workloads in metrics.get("hosts", {}).items()
            for name, m in workloads.items() if isinstance(m, dict)
            for key, words in _STALL_WORDS.items() if m.get(key)]


def measure(n: int, window: Callable[[int], dict[str, Any]]) -> dict[str, Any]:
    """`combine` of windows 0..n-1, each measured by `window`; {} where a
    window has nothing (its stats dump or its snapshots are missing)."""
    each = [window(k) for k in range(n)]
    return combine(each) if all(each) else {}


def _windows(name: str, unit: str, description: str) -> RunMetric:
    return RunMetric(name, unit, "windows", description)


METRICS: tuple[RunMetric, ...] = (
    _windows("n_windows", "count", "windows the workload was measured in (experiment.windows); "
                                   "each other metric is its mean over them"),
    _windows(STALLED, "count", "gem5: windows in which no CPU of the host ran a cycle and its NICs "
                               "moved no byte, every CPU halted throughout: the host stalled (its zeros "
                               "stay in the means); only where there are any"),
    _windows(NIC_STALLED, "count", "gem5: windows in which frames reached the host's NICs and their "
                                   "DMA moved nothing across their PCIe links (nic_dma_lines 0): every "
                                   "frame was dropped in the NIC, though nic_rx_bytes and "
                                   "wire_received_mbps count it; only where there are any"),
    _windows("wire_sent_mbps", "Mbit/s", "Ethernet bytes the host's NICs sent, per second of the "
                                         "window (gem5's NIC counters; under QEMU the guest's "
                                         "/proc/net/dev)"),
    _windows("wire_received_mbps", "Mbit/s", "Ethernet bytes the host's NICs received, per second "
                                             "of the window"),
    _windows(DMA_RECEIVED, "Mbit/s", "gem5: bytes the host's NICs wrote to memory by DMA across "
                                     "their PCIe links, per second of the window, each write "
                                     "counted as a whole cache line (the board's): the frames that "
                                     "reached memory, rounded up to lines, and the descriptors "
                                     "written back. Where a NIC's FIFO drops frames (UDP overload) "
                                     "it is what arrived, and wire_received_mbps is what was sent "
                                     "to the NIC; where none are dropped it is above "
                                     "wire_received_mbps by the rounding and the descriptors (5.6% "
                                     "with 1500-byte frames and a descriptor written back each)"),
    _windows("cpu_ns_per_byte", "ns/B", "gem5: busy CPU time (cpu_busy_s) per Ethernet byte of the "
                                        "host's data direction in the window: what its throughput "
                                        "costs the CPUs, comparable across rates and MTUs"),
    _windows("app_throughput_mbps", "Mbit/s", "with windows: the benchmark's own throughput over "
                                              "its whole run (throughput_mbps of a run without "
                                              "windows)"),
    _windows("app_sent_mbps", "Mbit/s", "with windows: what the benchmark reports it sent, over "
                                        "its whole run"),
    _windows("app_received_mbps", "Mbit/s", "with windows: what the benchmark reports it "
                                            "received, over its whole run"),
)
