"""How many host hours a study's points take: an estimate for a dry run, from
the rates the studies' committed gem5 runs measured.

A committed run says how long its measured phase took on its machine (run.json's
timings: wall_s less the boot it did, boot_s) and how much simulated time it
covered: gem5's simulated seconds from the restore to the end (timings'
simulated_s), or, in a run recorded before that, its workloads' regions
(metrics.json's elapsed_s). By CPU model, over every committed run:

    rate          simulated ms per host second, per simulated host (the
                  simulated time times the hosts, over the host time)
    stream        a byte-bound stream's throughput as its iperf reported it
                  (median), and the simulated time its region took beyond its
                  bytes at that throughput (median: iperf starting and ending)
    windows       a windowed stream's simulated time besides its warm-up and
                  windows (median: the job starting, the flows connecting, the
                  stream stopping, the results printed): the run's simulated
                  time less the warm-up, the windows and the regions of the
                  workloads after it
    start         of a run without windows, its simulated time besides its
                  workloads' regions (median: the job starting, the results
                  printed)
    other kinds   the region a workload of that kind took (median): netpipe's
                  and mpi's work is their message sizes and repeats
    sampled       of sampled windows (run.json's timings.sampled): the
                  fast-forward's pace (simulated ms per host second per host,
                  on the boot CPU model) and the simulated time before its
                  flows connected (median), and a window process's pace over
                  its warming and window

A point's rates are those of the committed runs of its own shape (its CPU
model, its largest host's CPU count, and whether it samples program
counters) where there are any, else of every run of its CPU model.

A point's estimate is its workloads' simulated time (a byte-bound stream: the
time beyond plus its bytes at the throughput; a windowed one: the time besides,
the warm-up and the windows; a timed one: its duration_s; another kind: as
measured) times its hosts, over the rate, times its experiment.repeats (a
run of repeats is measured as their sums of host and simulated time). A point
of sampled windows is its fast-forward (the time to connect and to its last
warm checkpoint) and its windows (each its warming and window), times its
hosts, each over its pace;
points of one sweep that share a fast-forward count it once. A point of
consecutive windows on a CPU model that only sampled runs measured (O3) runs
at the pace of their windows' detailed part (a window's wall less its
functional warming at its run's fast-forward pace), its simulated time
besides its windows as the other models' runs and those fast-forwards
measured it (the longest: an upper bound). A boot is the
measured boot seconds per simulated host, by boot CPU model. Nothing is
invented: a point whose CPU model, engine or workload kind no committed run
measured (of sampled windows: no committed sampled run; of consecutive ones
on a model that only sampled runs measured, a workload kind that no run of
another model measured) has no estimate, and
the dry run says why.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import engines
from ..errors import G5netError
from ..model import specs
from ..runs.locate import locate
from ..runs.rundir import RunDir
from ..runs.sweepdir import PlannedPoint
from ..spec import Spec, Workload, sample_offsets_ms, sampled
from ..workloads import registry
from . import builtin, results

HOUR_S = 3600.0


@dataclass
class _Samples:
    """What the committed runs of one CPU model measured."""
    runs: int = 0
    region_host_s: float = 0.0  # simulated region seconds times hosts
    host_s: float = 0.0
    stream_mbps: list[float] = field(default_factory=list)
    stream_start_s: list[float] = field(default_factory=list)
    windows_start_s: list[float] = field(default_factory=list)
    start_s: list[float] = field(default_factory=list)
    kind_region_s: dict[str, list[float]] = field(default_factory=dict)


@dataclass(frozen=True)
class Rate:
    runs: int
    sim_ms_per_host_s: float  # per simulated host
    stream_mbps: float | None
    stream_start_s: float | None
    kind_region_s: dict[str, float]
    windows_start_s: float | None = None
    # Of a run without windows: its simulated time besides its workloads' regions.
    start_s: float | None = None


@dataclass
class _SampledSamples:
    """What the committed runs of sampled windows on one CPU model measured
    (run.json's timings.sampled)."""
    runs: int = 0
    fast_forward_sim_s: float = 0.0  # simulated seconds times hosts
    fast_forward_host_s: float = 0.0
    fast_forward_start_s: list[float] = field(default_factory=list)
    window_sim_s: float = 0.0  # each window's warming and window, times hosts
    window_host_s: float = 0.0
    detailed_sim_s: float = 0.0  # each window's detailed warming and window, times hosts
    detailed_host_s: float = 0.0  # each window's wall less its functional warming


@dataclass(frozen=True)
class SampledRate:
    runs: int
    fast_forward_ms_per_host_s: float  # per simulated host, on the boot CPU model
    fast_forward_start_s: float  # simulated seconds from the restore to the flows connected (median)
    window_ms_per_host_s: float  # per simulated host, over a window's warming and window
    # Per simulated host on the detailed model alone: a window's detailed
    # warming and window over its wall less its functional warming at the
    # run's fast-forward pace (None: nothing left of the wall once that is off).
    detailed_ms_per_host_s: float | None = None


@dataclass(frozen=True)
class Rates:
    runs: int
    by_model: dict[str, Rate]
    boot_s_per_host: dict[str, float]  # by boot CPU model
    boots: int
    # The same, of the runs of one shape (_shape) alone: (model, shape) -> rate.
    by_shape: dict[tuple[str, str], Rate] = field(default_factory=dict)
    # Of sampled windows, by CPU model and by (model, shape).
    sampled_by_model: dict[str, SampledRate] = field(default_factory=dict)
    sampled_by_shape: dict[tuple[str, str], SampledRate] = field(default_factory=dict)


def _model(spec: Spec, boot: bool = False) -> str:
    """The CPU model the hosts measure (boot: boot) with; models joined by + where they differ."""
    return "+".join(sorted({h.cpu.boot_model if boot else h.cpu.model for h in spec.hosts}))


def _shape(spec: Spec) -> str:
    """What sets a run's pace besides its CPU model: its largest host's CPUs
    (16 threads at 1.2 GHz simulate as slowly per host as 2 CPUs at 2 GHz,
    but 32 connections on them take twice as long to start and stop) and
    whether gem5 traces program counters (every 50 us on 32 CPUs, about
    twice the host time of an untraced run)."""
    cpus = max(h.cpu.count for h in spec.hosts)
    return f"{cpus} CPUs a host" + (", PC-sampled" if spec.experiment.pc_sample_us else "")


def _hosts(spec: Spec) -> int:
    return sum(h.replicas for h in spec.hosts)


def _byte_bound(w: Workload) -> bool:
    return registry.kind(w.kind).streams and w.bytes > 0


def _windows_s(spec: Spec) -> float:
    """The simulated seconds of a windowed run's warm-up and windows."""
    e = spec.experiment
    return (e.warmup_ms + e.windows * e.window_ms) * 1e-3


def _sampled_window_s(spec: Spec) -> float:
    """The simulated seconds of one sampled window's process: its warming and window."""
    e = spec.experiment
    return (e.functional_warming_ms + e.detailed_warming_ms + e.window_ms) * 1e-3


def _last_checkpoint_s(spec: Spec) -> float:
    """How far after the flows connected the fast-forward runs: its last warm checkpoint."""
    return sample_offsets_ms(spec.experiment)[-1] * 1e-3


def _committed_runs(root: Path) -> list[RunDir]:
    out: list[RunDir] = []
    for name in builtin.names(root):
        try:
            study = builtin.load(name, root)
        except G5netError:
            continue  # `g5net study list` names a damaged study
        for scale in results.committed(study):
            out += locate(study.results(scale)).runs
    return out


def measured(root: Path | None = None) -> Rates:
    """The rates of every committed gem5 run of the studies under `root`."""
    samples: dict[str, _Samples] = {}
    shaped: dict[tuple[str, str], _Samples] = {}
    by_sampled: dict[str, _SampledSamples] = {}
    sampled_shaped: dict[tuple[str, str], _SampledSamples] = {}
    boots: dict[str, list[tuple[float, int]]] = {}
    for rd in _committed_runs(root or builtin.STUDIES):
        try:
            record, metrics = rd.read_run(), rd.read_metrics()["hosts"]
            spec = specs.from_dict(record["spec"], source=str(rd.run_json))
        except G5netError:
            continue  # a damaged run: the others measure
        timings = record.get("timings", {})
        wall_s, simulated_s = timings.get("wall_s"), timings.get("simulated_s")
        windowed = bool(spec.experiment.windows)
        if (record["status"] != "done" or record.get("engine", {}).get("name") != "gem5"
                or not isinstance(wall_s, (int, float))):
            continue
        boot_s = max((v for v in timings.get("boot_s", {}).values()
                      if isinstance(v, (int, float))), default=0.0)
        if boot_s:
            boots.setdefault(_model(spec, boot=True), []).append((boot_s, _hosts(spec)))
        if sampled(spec.experiment):
            for ss in (by_sampled.setdefault(_model(spec), _SampledSamples()),
                       sampled_shaped.setdefault((_model(spec), _shape(spec)), _SampledSamples())):
                _add_sampled(ss, spec, timings.get("sampled"))
            continue
        if windowed and not isinstance(simulated_s, (int, float)):
            continue
        regions = {w.name: max((ms.get(w.name, {}).get("elapsed_s") or 0.0 for ms in metrics.values()),
                               default=0.0) for w in spec.workloads}
        if not all(regions.values()) or wall_s <= boot_s:
            continue
        for s in (samples.setdefault(_model(spec), _Samples()),
                  shaped.setdefault((_model(spec), _shape(spec)), _Samples())):
            _add(s, spec, metrics, regions, wall_s - boot_s, simulated_s)
    per_host = {m: sum(b for b, _ in v) / sum(n for _, n in v) for m, v in sorted(boots.items())}
    return Rates(sum(s.runs for s in samples.values()) + sum(s.runs for s in by_sampled.values()),
                 {m: _rate(s) for m, s in sorted(samples.items())},
                 per_host, sum(len(v) for v in boots.values()),
                 {k: _rate(s) for k, s in sorted(shaped.items())},
                 {m: r for m, s in sorted(by_sampled.items()) if (r := _sampled_rate(s))},
                 {k: r for k, s in sorted(sampled_shaped.items()) if (r := _sampled_rate(s))})


def _add_sampled(s: _SampledSamples, spec: Spec, took: object) -> None:
    """One committed sampled run's host seconds (run.json's timings.sampled),
    into `s`; nothing where it has none (made before they were recorded)."""
    if not isinstance(took, dict):
        return
    ff, windows = took.get("fast_forward"), took.get("windows_wall_s")
    if not isinstance(ff, dict) or not isinstance(windows, list):
        return
    wall, simulated = ff.get("wall_s"), ff.get("simulated_s")
    measured_windows = [w for w in windows if isinstance(w, (int, float)) and w > 0]
    if not (isinstance(wall, (int, float)) and isinstance(simulated, (int, float)) and wall > 0
            and measured_windows):
        return
    s.runs += 1
    s.fast_forward_sim_s += simulated * _hosts(spec)
    s.fast_forward_host_s += wall
    s.fast_forward_start_s.append(max(simulated - _last_checkpoint_s(spec), 0.0))
    s.window_sim_s += _sampled_window_s(spec) * _hosts(spec) * len(measured_windows)
    s.window_host_s += sum(measured_windows)
    e = spec.experiment
    functional_host_s = e.functional_warming_ms * 1e-3 * wall / simulated
    s.detailed_sim_s += (e.detailed_warming_ms + e.window_ms) * 1e-3 * _hosts(spec) * len(measured_windows)
    s.detailed_host_s += sum(max(w - functional_host_s, 0.0) for w in measured_windows)


def _sampled_rate(s: _SampledSamples) -> SampledRate | None:
    if not s.runs:
        return None
    return SampledRate(s.runs, s.fast_forward_sim_s * 1e3 / s.fast_forward_host_s,
                       statistics.median(s.fast_forward_start_s), s.window_sim_s * 1e3 / s.window_host_s,
                       s.detailed_sim_s * 1e3 / s.detailed_host_s if s.detailed_host_s > 0 else None)


def _add(s: _Samples, spec: Spec, metrics: dict, regions: dict[str, float], host_s: float,
         simulated_s: float | None) -> None:
    """One committed run's measurements, into `s`."""
    windowed = bool(spec.experiment.windows)
    # A run of repeats: its host and simulated seconds are its repeats' sums,
    # its regions (pooled metrics) one repeat's.
    repeats = spec.experiment.repeats
    s.runs += 1
    s.region_host_s += (simulated_s or sum(regions.values()) * repeats) * _hosts(spec)
    s.host_s += host_s
    streams = [w for w in spec.workloads if registry.kind(w.kind).streams]
    if windowed and simulated_s:
        after = sum(regions[w.name] for w in spec.workloads if w not in streams)
        s.windows_start_s.append(max(simulated_s / repeats - _windows_s(spec) - after, 0.0))
    elif simulated_s:
        s.start_s.append(max(simulated_s / repeats - sum(regions.values()), 0.0))
    for w in spec.workloads:
        if windowed and w in streams:
            continue
        if not _byte_bound(w):
            s.kind_region_s.setdefault(w.kind, []).append(regions[w.name])
            continue
        mbps = max((ms.get(w.name, {}).get("throughput_mbps") or 0.0 for ms in metrics.values()),
                   default=0.0)
        if mbps > 0:
            s.stream_mbps.append(mbps)
            s.stream_start_s.append(max(regions[w.name] - w.bytes * 8 / (mbps * 1e6), 0.0))


def _rate(s: _Samples) -> Rate:
    return Rate(s.runs, s.region_host_s * 1e3 / s.host_s,
                statistics.median(s.stream_mbps) if s.stream_mbps else None,
                statistics.median(s.stream_start_s) if s.stream_start_s else None,
                {k: statistics.median(v) for k, v in s.kind_region_s.items()},
                statistics.median(s.windows_start_s) if s.windows_start_s else None,
                statistics.median(s.start_s) if s.start_s else None)


def point_host_s(rates: Rates, spec: Spec) -> tuple[float | None, str]:
    """The host seconds a run of `spec` takes after its boot, or None and why
    there is no estimate: each of its experiment.repeats restores the boot and
    runs it all again."""
    seconds, why = _repeat_host_s(rates, spec)
    return (None if seconds is None else seconds * spec.experiment.repeats), why


def _repeat_host_s(rates: Rates, spec: Spec) -> tuple[float | None, str]:
    model = _model(spec)
    if spec.experiment.engine != "gem5":
        return None, f"engine {spec.experiment.engine}: the committed runs are gem5's"
    if sampled(spec.experiment):
        rate = _sampled_rate_of(rates, spec)
        if rate is None:
            return None, f"CPU model {model}: no committed run of sampled windows measured it"
        windows = spec.experiment.windows * _sampled_window_s(spec) * _hosts(spec)
        return fast_forward_host_s(rate, spec) + windows / (rate.window_ms_per_host_s * 1e-3), ""
    if model not in rates.by_model:
        detailed = _detailed_rate(rates, model)
        if detailed is None:
            return None, f"CPU model {model}: no committed run measured it"
        return _host_s(detailed, spec, model)
    # Committed runs of the point's own shape where they measured all it runs,
    # else every run of its model.
    shaped = rates.by_shape.get((model, _shape(spec)))
    seconds, why = _host_s(shaped, spec, model) if shaped else (None, "")
    return (seconds, why) if seconds is not None else _host_s(rates.by_model[model], spec, model)


def _detailed_rate(rates: Rates, model: str) -> Rate | None:
    """A rate for a model no consecutive run measured, whose sampled windows
    measured its detailed pace: that pace, with the simulated times of the
    other models' runs and of its own fast-forwards for what is not the
    windows (the job starting, the flows connecting, NetPIPE's region), the
    longest of them (a detailed CPU is the faster one: an upper bound)."""
    sampled_rate = rates.sampled_by_model.get(model)
    if sampled_rate is None or sampled_rate.detailed_ms_per_host_s is None:
        return None
    others = list(rates.by_model.values())
    starts = [sampled_rate.fast_forward_start_s] + [r.windows_start_s for r in others
                                                    if r.windows_start_s is not None]
    kinds: dict[str, float] = {}
    for r in others:
        for kind, region_s in r.kind_region_s.items():
            kinds[kind] = max(kinds.get(kind, 0.0), region_s)
    return Rate(sampled_rate.runs, sampled_rate.detailed_ms_per_host_s, None, None, kinds, max(starts))


def _sampled_rate_of(rates: Rates, spec: Spec) -> SampledRate | None:
    """The rates of committed sampled runs of the spec's shape, else of its CPU model."""
    model = _model(spec)
    return rates.sampled_by_shape.get((model, _shape(spec))) or rates.sampled_by_model.get(model)


def fast_forward_host_s(rate: SampledRate, spec: Spec) -> float:
    """The host seconds of a sampled spec's fast-forward: from the restore to
    its last warm checkpoint, on the boot CPU model."""
    simulated = (rate.fast_forward_start_s + _last_checkpoint_s(spec)) * _hosts(spec)
    return simulated / (rate.fast_forward_ms_per_host_s * 1e-3)


def _host_s(rate: Rate, spec: Spec, model: str) -> tuple[float | None, str]:
    # A run without windows: the job starting, the workloads ending (where a
    # committed run measured it; the runs before timings.simulated_s did not).
    region_s = (rate.start_s or 0.0) if not spec.experiment.windows else 0.0
    for w in spec.workloads:
        if spec.experiment.windows and registry.kind(w.kind).streams:
            if rate.windows_start_s is None:
                return None, f"CPU model {model}: no committed windowed stream"
            region_s += rate.windows_start_s + _windows_s(spec)
        elif _byte_bound(w):
            if rate.stream_mbps is None or rate.stream_start_s is None:
                return None, f"CPU model {model}: no committed byte-bound stream"
            region_s += rate.stream_start_s + w.bytes * 8 / (rate.stream_mbps * 1e6)
        elif registry.kind(w.kind).streams:
            region_s += w.duration_s
        elif w.kind in rate.kind_region_s:
            region_s += rate.kind_region_s[w.kind]
        else:
            return None, f"{w.kind} on CPU model {model}: no committed run measured it"
    return region_s * _hosts(spec) / (rate.sim_ms_per_host_s * 1e-3), ""


@dataclass(frozen=True)
class HostTime:
    """A dry run's estimate: host hours per point (None: no estimate), and what
    it rests on and comes to, a line each."""
    hours: dict[int, float | None]
    lines: list[str]


def _basis(rates: Rates) -> str:
    if not rates.runs:
        return "no committed gem5 run to measure rates from"
    models = "; ".join(
        f"{m} {r.sim_ms_per_host_s:.3g} simulated ms per host s"
        + (f", streams at {r.stream_mbps:.0f} Mbit/s after {r.stream_start_s:.3g} s"
           if r.stream_mbps is not None and r.stream_start_s is not None else "")
        + (f", a windowed stream {r.windows_start_s:.3g} s besides its warm-up and windows"
           if r.windows_start_s is not None else "")
        + (f", a run without windows {r.start_s:.3g} s besides its workloads" if r.start_s is not None else "")
        for m, r in rates.by_model.items())
    models += "".join(
        f"; sampled windows on {m}: a fast-forward at {r.fast_forward_ms_per_host_s:.3g} simulated ms "
        f"per host s after {r.fast_forward_start_s:.3g} s to connect, a window's process at "
        f"{r.window_ms_per_host_s:.3g} over its warming and window"
        + (f", {r.detailed_ms_per_host_s:.3g} over its detailed part alone (the pace of a run "
           f"of consecutive windows on {m} where none was committed)"
           if r.detailed_ms_per_host_s is not None and m not in rates.by_model else "")
        + f" (from {r.runs} runs)"
        for m, r in rates.sampled_by_model.items())
    boots = ", ".join(f"{m} {s:.0f} host s per simulated host" for m, s in rates.boot_s_per_host.items())
    return (f"from {rates.runs} committed runs (host time less boot, over the simulated time "
            f"they covered times their hosts): {models}"
            + (f"; a boot, from {rates.boots}: {boots}" if boots else "")
            + (f"; a point of a shape that committed runs have ({len(rates.by_shape)}: CPUs a host, "
               f"PC-sampled or not) from those runs alone" if rates.by_shape else ""))


def host_time(points: Sequence[PlannedPoint], todo: Sequence[PlannedPoint],
              boots: Sequence[PlannedPoint]) -> HostTime:
    """The estimate for a sweep's `points`, totalled over those `todo` and the
    boots to make (a point of each boot checkpoint not built yet)."""
    rates = measured()
    hours: dict[int, float | None] = {}
    why: dict[str, int] = {}
    to_run = {p.index for p in todo}
    fast_forwarded: set[str] = set()
    for p in points:
        spec = p.load_spec()
        seconds, reason = point_host_s(rates, spec)
        # Points that share a fast-forward make it once (the first of them).
        key = engines.get(spec.experiment.engine).fast_forward_key(spec)
        if seconds is not None and key is not None and (rate := _sampled_rate_of(rates, spec)):
            if key in fast_forwarded:
                seconds -= fast_forward_host_s(rate, spec)
            fast_forwarded.add(key)
        hours[p.index] = None if seconds is None else seconds / HOUR_S
        if seconds is None and p.index in to_run:
            why[reason] = why.get(reason, 0) + 1
    known = [hours[p.index] for p in todo if hours[p.index] is not None]
    boot_h = []
    for p in boots:
        spec = p.load_spec()
        per_host = rates.boot_s_per_host.get(_model(spec, boot=True))
        if per_host is not None and spec.experiment.engine == "gem5":
            boot_h.append(per_host * _hosts(spec) / HOUR_S)
    lines = [f"Host time estimated {_basis(rates)}."]
    total = sum(h for h in known if h is not None)
    lines.append(f"Estimate: {total:.1f} host hours for the {len(known)} points to run"
                 + (f" ({total / len(known):.2g} a point on average)" if known else "")
                 + (f", and {sum(boot_h):.1f} for {len(boot_h)} boots" if boot_h else "")
                 + (f"; {len(boots) - len(boot_h)} boots not estimated" if len(boot_h) < len(boots) else "")
                 + ".")
    lines += [f"No estimate for {n} points: {reason}." for reason, n in sorted(why.items())]
    return HostTime(hours, lines)
