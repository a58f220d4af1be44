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

A workload measured as windows (experiment.windows) has each metric's mean
over its windows, and `n_windows`, `spread` and `per_window` (windows.py); a
workload after it has its whole life's guest figures, and no gem5 counters.

Each family of metrics is computed, and each of its metrics defined (unit and
meaning), in its own module: guest.py, gem5.py (gem5's counters in
stats/catalogue.py), profile.py, windows.py and aggregate.py; this one puts
them together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runs import record as run_record
from ..runs.rundir import RunDir
from ..spec import Host, Spec, Workload
from ..spec import sampled as sampled_windows
from ..stats import pc_samples, system
from ..workloads.flows import instances
from ..workloads.windows import measured as as_windows
from . import aggregate, gem5, guest, profile, windows


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
        # A window has no guest count of its own under gem5 (windows.py): the model's.
        packets = packets if roi else out.get("gem5_packets")
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
    n = spec.experiment.windows
    if sampled_windows(spec.experiment):
        counters = _sampled_windows(spec, rd)
    elif n:
        # The windowed stream's dumps only: a workload after it took none (windows.py).
        counters = gem5.roi_stats(rd.stats_txt, [(w.name, n + 1) for w in spec.workloads
                                                 if as_windows(spec, w)])
    else:
        counters = gem5.roi_stats(rd.stats_txt, [(w.name, 1) for w in spec.workloads])
    sampled = _sampled(spec, rd, counters, {name: run_record.board(boards, name) for name in results})
    hosts: dict[str, dict[str, Any]] = {}
    for name, r in results.items():
        prefix = run_record.board(boards, name)
        threads = spec.host(name).cpu.threads_per_core
        hosts[name] = {}
        for w in spec.workloads:
            if w.name not in r.get("workloads", {}):
                continue
            got = r["workloads"][w.name]
            regions = [c.get(prefix) for c in counters.get(w.name, [])]
            samples = sampled.get((w.name, name), [])
            if as_windows(spec, w):
                hosts[name][w.name] = _windowed(spec, spec.host(name), w, got, regions, samples,
                                                _line_bytes(rd, name, prefix))
            else:
                hosts[name][w.name] = workload_metrics(got, regions[0] if regions else None, threads,
                                                       samples[0] if samples else None)
        for profiled, plain in profile.profiled_twins(spec):
            if profiled in hosts[name] and plain in hosts[name]:
                hosts[name][profiled].update(profile.perturbation(hosts[name][profiled], hosts[name][plain]))
    return {"hosts": hosts, "aggregate": aggregate.combine(spec, hosts)}


def _line_bytes(rd: RunDir, host: str, board: str) -> int | None:
    """The host's board's cache line, from gem5's config.ini of the run (of
    its first sampled window, or of the host's own process); None without one."""
    for ini in (rd.config_ini, rd.window(0).config_ini, rd.process_out(host) / rd.config_ini.name):
        if ini.is_file():
            return system.line_bytes(system.read(ini), board)
    return None


def _sampled_windows(spec: Spec, rd: RunDir) -> dict[str, list[dict[str, dict[str, Any]]]]:
    """The one workload's windows, each the one dump of its own gem5 process
    (engines/gem5/sampled.py), as roi_stats gives consecutive ones; none
    where a window is missing."""
    (w,) = spec.workloads  # workloads/checks.py: nothing runs after sampled windows
    regions = [gem5.roi_stats(rd.window(k).stats_txt, [(w.name, 1)]).get(w.name, [{}])[0]
               for k in range(spec.experiment.windows)]
    return {w.name: regions} if all(regions) else {}


def _windowed(spec: Spec, host: Host, w: Workload, got: dict[str, Any],
              regions: list[dict[str, Any] | None], samples: list[profile.Breakdown | None],
              line_bytes: int | None = None) -> dict[str, Any]:
    """A windowed workload's metrics on one host (windows.py): the guest's
    figures of the windows together, each window's measured and combined, the
    benchmark's own as app_*; `line_bytes`, the board's cache line, which
    each of the NICs' DMA writes counted in gem5's regions moves at most."""
    directions = {i.direction for i in instances(spec, host, w)}
    sends, receives = "send" in directions, "receive" in directions
    threads = host.cpu.threads_per_core
    guest_windows = got.get("windows")
    stalled: list[int] = []
    nic_stalled: list[int] = []

    def window(k: int) -> dict[str, Any]:
        c = regions[k] if k < len(regions) else None
        if c:
            seconds = c.get("sim_seconds")
            tx, rx = c.get("nic_tx_bytes", 0), c.get("nic_rx_bytes", 0)
            m = workload_metrics({}, c, threads, samples[k] if k < len(samples) else None)
            if not (tx or rx or m.get("cycles")):
                stalled.append(k)
            if c.get("nic_rx_pkts") and c.get("nic_dma_lines") == 0:
                nic_stalled.append(k)
            if line_bytes and "nic_dma_writes" in c:
                m |= windows.dma(c["nic_dma_writes"] * line_bytes, seconds)
        elif guest_windows:
            roi = guest_windows[k]
            seconds = roi["elapsed_s"]
            tx, rx = windows.guest_wire_bytes(roi)
            m = workload_metrics({"roi": roi}, None, threads)
        else:
            return {}
        return m | windows.wire(tx, rx, seconds, sends, receives, m.get("cpu_busy_s"))

    out = workload_metrics({"roi": got["roi"]}) if "roi" in got else {}
    out.update(windows.measure(spec.experiment.windows, window))
    if stalled:
        # Its zeros stay in the means: a stall is what the stream did there.
        out[windows.STALLED] = len(stalled)
    if nic_stalled:
        out[windows.NIC_STALLED] = len(nic_stalled)
    out.update({app: got[k] for k, app in windows.APP_FIGURES.items() if k in got})
    out.update({k: got[k] for k in windows.WHOLE_RUN if k in got})
    return out


def _sampled(spec: Spec, rd: RunDir, counters: Mapping[str, list[dict[str, dict[str, Any]]]],
             boards: Mapping[str, str]) -> dict[tuple[str, str], list[profile.Breakdown | None]]:
    """(workload, host) -> the breakdown of gem5's program-counter samples over
    each of the workload's regions, where the run sampled them."""
    if not spec.experiment.pc_sample_us or not rd.pc_samples.is_file():
        return {}
    samples = pc_samples.read(rd.pc_samples)
    out: dict[tuple[str, str], list[profile.Breakdown | None]] = {}
    for wname, regions in counters.items():
        for k, by_board in enumerate(regions):
            ticks = next((m["region_ticks"] for m in by_board.values() if "region_ticks" in m), None)
            if ticks is None:
                continue
            start, end = ticks
            for host, counts in pc_samples.functions(samples, start, end, boards).items():
                found = out.setdefault((wname, host), [None] * len(regions))
                found[k] = profile.sampled(counts, spec.experiment.pc_sample_us)
    return out
