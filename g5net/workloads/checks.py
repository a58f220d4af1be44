"""The checks of a spec's workloads that need their kinds: each kind's own
(WorkloadKind.check) and the CPU lists, one per flow.

spec.py cannot hold them: gem5's embedded Python imports spec.py (to
validate the resolved spec once more), but not the kinds. So the host reads
every spec through g5net.model.specs, which runs the schema's checks and then
these: a spec file, a sweep's points, a run record's spec; gem5 only ever
reads a spec that the host has checked this way.
"""

from __future__ import annotations

from ..errors import SpecError
from ..spec import FLOW_PORTS, Host, Spec, check_cpu_list, sampled
from . import flows, registry


def check(spec: Spec) -> None:
    """SpecError naming the first workload key of `spec` that its kind cannot run."""
    _check_flow_ports(spec)
    for w in spec.workloads:
        key = f"workloads.{w.name}"
        registry.kind(w.kind).check(spec, w, key)
        for h in spec.hosts:
            _check_flow_cpus(f"{key}.{h.role}_cpus", w.server_cpus if h.role == "server" else w.client_cpus,
                             h, len(flows.flows_of(spec, h, w)))
    _check_windows(spec)


def _check_windows(spec: Spec) -> None:
    """With experiment.windows: one stream, measured as windows, and after it
    only workloads whose kind runs after windows (NetPIPE), each a region of
    its own (workloads/windows.py); the kinds have checked each workload."""
    e = spec.experiment
    if not e.windows:
        return
    streams = [w for w in spec.workloads if registry.kind(w.kind).streams]
    if len(streams) > 1:
        keys = ", ".join(f"workloads.{w.name}" for w in streams[:-1]) + f" and workloads.{streams[-1].name}"
        raise SpecError(f"experiment.windows: {keys} are streams, and windows measure one stream "
                        f"per spec: they are gem5's periodic stats dumps, which gem5 "
                        f"cannot stop once started, so a second stream's windows would mix "
                        f"with the first's; run each stream as a spec of its own (a sweep "
                        f"point); netpipe or mpi workloads may follow the windowed stream")
    for i, w in enumerate(spec.workloads):
        if registry.kind(w.kind).streams:
            continue
        key = f"workloads.{w.name}.kind"
        if not streams:
            raise SpecError(f"{key}: experiment.windows measure inside a running stream, and "
                            f"{w.kind} is no stream (its own repetitions are its measurement): it "
                            f"runs after a windowed stream, as a region of its own; add an iperf "
                            f"workload before it, or use a spec without windows")
        if i < spec.workloads.index(streams[0]):
            raise SpecError(f"{key}: {w.kind} runs after the windowed stream "
                            f"(workloads.{streams[0].name}), as a region of its own, but the spec "
                            f"lists it before; list it after workloads.{streams[0].name}")
        if sampled(e):
            raise SpecError(f"{key}: sampled windows (experiment.window_method) end inside the "
                            f"stream: gem5 fast-forwards it into warm checkpoints and stops, and "
                            f"each window restores one, so no process runs a workload after it; "
                            f"use window_method = \"consecutive\", or a spec of its own")


def _check_flow_ports(spec: Spec) -> None:
    count = sum(len(flows.flows(spec, w)) for w in spec.workloads)
    if FLOW_PORTS[0] + count - 1 > FLOW_PORTS[1]:
        raise SpecError(f"workloads: {count} flows (clients x NICs x instances x directions, over "
                        f"every workload) need a port each from {FLOW_PORTS[0]}, past the last, "
                        f"{FLOW_PORTS[1]}; at most {FLOW_PORTS[1] - FLOW_PORTS[0] + 1} flows")


def _check_flow_cpus(key: str, cpus: list, h: Host, count: int) -> None:
    """One CPU list for every process of the host, or one list per flow."""
    if not any(isinstance(c, list) for c in cpus):
        check_cpu_list(key, cpus, h.cpu.count, host=h.name)
        return
    if len(cpus) != count or not all(isinstance(c, list) for c in cpus):
        raise SpecError(f"{key}: a list of CPU lists needs one list per instance: hosts.{h.name} "
                        f"runs {count} of this workload (NICs x instances x directions"
                        f"{' x clients' if h.role == 'server' else ''}), got {len(cpus)} entries")
    for one in cpus:
        check_cpu_list(key, one, h.cpu.count, host=h.name)
