"""Turn a guest's console into measurements.

The guest reports raw files (workloads/README.md); everything is parsed here,
where it can be tested: each instance's output by its workload's kind, and
the `/proc` snapshots taken around each region of interest (proc.py).

A workload a host ran as several instances at once (one per flow: client,
NIC, instance, direction; flows.instances) has the host's figures (throughput
and bytes summed) and `instances`, each one's own figures with its peer, NIC
and direction. A stream workload's entry also has `sent_mbps` and
`received_mbps`: the host's throughput each way.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import GuestError
from ..guest.protocol import BEGIN, END, panic_line
from ..spec import Host, Spec, Workload
from . import registry, windows
from .flows import SETUP_STEPS, Instance, instances
from .kind import WorkloadKind
from .proc import roi_deltas, window_deltas


def extract_block(console: str) -> dict | None:
    """The results block printed by g5init, or None when the guest never got there."""
    start = console.rfind(BEGIN)
    if start < 0:
        return None
    end = console.find(END, start)
    if end < 0:
        raise GuestError("results block has no end marker (console cut short?)")
    body = console[start + len(BEGIN):end].strip().replace("\r", "")
    try:
        return json.loads(body)
    except json.JSONDecodeError as e:
        raise GuestError(f"results block is not valid JSON: {e}") from e


# Figures that add up over a host's instances; the others (duration, jitter,
# loss %) are the worst instance's.
_ADDITIVE = ("bytes", "throughput_mbps", "streams", "lost", "datagrams", "cpu_host_pct",
             "requests", "requests_per_s", "errors")


def _rc(items: dict[str, str], name: str) -> int:
    return int(items.get(f"{name}.rc", "-1").strip() or -1)


def _failure(items: dict[str, str], name: str, e: GuestError) -> dict[str, Any]:
    out = {"error": str(e)}
    err = items.get(f"{name}.err", "").strip()
    if err and err[-300:] not in out["error"]:
        out["stderr_tail"] = err[-300:]
    return out


def _instance(items: dict[str, str], inst: Instance, kind: WorkloadKind) -> dict[str, Any]:
    """What one instance measured, or why it did not."""
    rc = _rc(items, inst.item)
    try:
        if rc != 0:
            raise GuestError(f"exit status {rc}: {items.get(f'{inst.item}.err', '').strip()[-300:]}")
        return kind.measure(items, inst)
    except GuestError as e:
        return _failure(items, inst.item, e)


def _combine(found: list[tuple[Instance, dict[str, Any]]]) -> dict[str, Any]:
    """A workload run as several instances at once: the host's totals and each one's figures."""
    each = [{"item": i.item, "peer": i.peer.name, "nic": i.flow.nic, "instance": i.flow.index,
             "direction": i.direction, **f} for i, f in found]
    failed = [f"{e['item']}: {e['error']}" for e in each if "error" in e]
    if failed:
        return {"error": "; ".join(failed), "instances": each}
    out: dict[str, Any] = {}
    for _, f in found:
        for k in f:
            if k not in out and k not in ("rc", "points"):
                values = [g[k] for _, g in found if k in g]
                out[k] = sum(values) if k in _ADDITIVE else max(values)
    out["instances"] = each
    return out


def _region(items: dict[str, str], spec: Spec, w: Workload) -> dict[str, Any]:
    """The guest's counters over a workload's region: `roi`, and for one
    measured as windows, where the guest snapshot every window's edge, each
    window's as `windows` (windows.py)."""
    name = w.name
    if not windows.measured(spec, w):
        return {"roi": roi_deltas(items, name)}
    n = spec.experiment.windows
    out: dict[str, Any] = {"roi": window_deltas(items, name, 0, n)}
    if all(windows.snapshot(name, k) in items for k in range(1, n)):
        out["windows"] = [window_deltas(items, name, k - 1, k) for k in range(1, n + 1)]
    return out


def _workload(items: dict[str, str], spec: Spec, host: Host, w: Workload) -> dict[str, Any]:
    kind = registry.kind(w.kind)
    insts = instances(spec, host, w)
    rcs = [_rc(items, i.item) for i in insts]
    out: dict[str, Any] = {"kind": w.kind, "rc": next((rc for rc in rcs if rc), 0)}
    try:
        out.update(_region(items, spec, w))
    except GuestError as e:
        out.update(_failure(items, w.name, e))
    else:
        found = [(i, {"rc": rc, **_instance(items, i, kind)}) for i, rc in zip(insts, rcs)]
        if len(found) == 1:
            out.update({k: v for k, v in found[0][1].items() if k != "rc"})
        else:
            out.update(_combine(found))
        if "error" not in out:
            out.update(kind.host_figures(found))
    if w.profile:
        out["profile"] = {k: v for k, v in items.items() if k.startswith(f"{w.name}.prof")}
    return out


def host_results(console: str, spec: Spec, host: Host) -> dict[str, Any]:
    """Everything one guest measured, or GuestError saying why there is nothing."""
    block = extract_block(console)
    if block is None:
        panic = panic_line(console)
        raise GuestError(panic or "guest printed no results block")
    items = block.get("items", {})
    out = {
        "role": host.role,
        "job_rc": block.get("job_rc"),
        "workloads": {w.name: _workload(items, spec, host, w) for w in spec.workloads},
    }
    setup = _setup(items)
    if setup:
        out["setup"] = setup
    return out


def _setup(items: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Each setup step the job ran (flows.SETUP_STEPS, NIC i's as `STEP.nic<i>`):
    its exit status, what it printed (a register as it read afterwards, the
    steering mask the kernel took) and, where there is any, its stderr."""
    out: dict[str, dict[str, Any]] = {}
    for key in sorted(items):
        name, _, part = key.rpartition(".")
        if part == "rc" and name.split(".")[0] in SETUP_STEPS:
            step: dict[str, Any] = {"rc": _rc(items, name), "out": items.get(f"{name}.out", "").strip()}
            if items.get(f"{name}.err", "").strip():
                step["err"] = items[f"{name}.err"].strip()
            out[name] = step
    return out


def workload_errors(results: dict[str, Any]) -> list[str]:
    """`host/workload: message` for every workload that did not produce a
    measurement, and `host/setup STEP: ...` for every setup step that failed
    (its workloads then ran on another NIC than the spec's)."""
    return [f"{h}/{name}: {w['error']}"
            for h, r in results.items() for name, w in r.get("workloads", {}).items()
            if "error" in w] + \
        [f"{h}/setup {name}: exit status {s['rc']}" + (f": {s['err']}" if "err" in s else "")
         for h, r in results.items() for name, s in r.get("setup", {}).items() if s["rc"] != 0]
