"""Turn a guest's console into measurements.

The guest reports raw files (workloads/README.md); everything is parsed here,
where it can be tested: iperf CSV, iperf3 JSON, NetPIPE tables and `/proc`
snapshots taken around each region of interest.

A workload a host ran as several instances at once (one per flow: client,
NIC, instance, direction; job.instances) has the host's figures (throughput
and bytes summed) and `instances`, each one's own figures with its peer, NIC
and direction. A stream workload's entry also has `sent_mbps` and
`received_mbps`: the host's throughput each way.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import GuestError
from ..spec import NETPIPE_KINDS, STREAM_KINDS, Host, Spec, Workload
from . import job
from .protocol import BEGIN, END, USER_HZ, panic_line

PROC_FILES = ("stat", "interrupts", "softirqs", "snmp", "dev")


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


# ------------------------------------------------------------------ /proc


def parse_stat(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {"cpus": 0}
    cols = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "cpu":
            out["cpu"] = dict(zip(cols, map(int, f[1:1 + len(cols)])))
        elif f[0].startswith("cpu"):
            out["cpus"] += 1
        elif f[0] in ("ctxt", "processes", "intr", "softirq"):
            out[f[0]] = int(f[1])
    return out


def parse_interrupts(text: str) -> dict[str, int]:
    """Total count per interrupt source, keyed by device name for numbered IRQs
    (`eth0`, `ata_piix`, ...) and by the symbol for the others (`LOC`, `CAL`)."""
    lines = text.splitlines()
    if not lines:
        return {}
    ncpu = len(lines[0].split())
    out: dict[str, int] = {}
    for line in lines[1:]:
        label, _, rest = line.partition(":")
        f = rest.split()
        counts = [int(x) for x in f[:ncpu] if x.isdigit()]
        label = label.strip()
        key = f[-1] if label.isdigit() and len(f) > len(counts) else label
        out[key] = out.get(key, 0) + sum(counts)
    return out


def parse_softirqs(text: str) -> dict[str, int]:
    out = {}
    for line in text.splitlines()[1:]:
        label, _, rest = line.partition(":")
        out[label.strip()] = sum(int(x) for x in rest.split())
    return out


def parse_snmp(text: str) -> dict[str, int]:
    """`/proc/net/snmp` as `Proto.Field` -> value (header line, then values line).

    The IcmpMsg rows are left out: Linux lists only the ICMP types seen so far, so their
    fields would come and go between runs of one sweep point and change a sweep's table
    columns; the fixed Icmp row counts the same messages.
    """
    out = {}
    lines = text.splitlines()
    for head, vals in zip(lines[::2], lines[1::2]):
        proto, _, names = head.partition(":")
        if proto == "IcmpMsg":
            continue
        _, _, values = vals.partition(":")
        for n, v in zip(names.split(), values.split()):
            out[f"{proto}.{n}"] = int(v)
    return out


def parse_netdev(text: str) -> dict[str, dict[str, int]]:
    cols = ("rx_bytes", "rx_packets", "rx_errs", "rx_drop", "rx_fifo", "rx_frame",
            "rx_compressed", "rx_multicast", "tx_bytes", "tx_packets", "tx_errs",
            "tx_drop", "tx_fifo", "tx_colls", "tx_carrier", "tx_compressed")
    out = {}
    for line in text.splitlines()[2:]:
        name, _, rest = line.partition(":")
        out[name.strip()] = dict(zip(cols, map(int, rest.split())))
    return out


def _delta(before: Any, after: Any) -> Any:
    if isinstance(after, dict):
        return {k: _delta(before.get(k, 0) if isinstance(before, dict) else 0, v)
                for k, v in after.items()}
    return after - before


def roi_deltas(items: dict[str, str], name: str) -> dict[str, Any]:
    """Counters over one workload's region of interest, and rates derived from them."""
    parsers = {"stat": parse_stat, "interrupts": parse_interrupts, "softirqs": parse_softirqs,
               "snmp": parse_snmp, "dev": parse_netdev}
    snap = {}
    for f in PROC_FILES:
        before, after = items.get(f"{name}.before.{f}"), items.get(f"{name}.after.{f}")
        if before is None or after is None:
            raise GuestError(f"workload {name}: missing /proc/{f} snapshot "
                             f"({name}.before.{f} / {name}.after.{f})")
        snap[f] = _delta(parsers[f](before), parsers[f](after))
    stat = snap["stat"]
    ncpu = parse_stat(items[f"{name}.after.stat"])["cpus"]
    ticks = sum(stat["cpu"].values())
    elapsed = _elapsed(items, name) or (ticks / USER_HZ / max(ncpu, 1))
    idle = stat["cpu"]["idle"] + stat["cpu"]["iowait"]
    nic_irqs = sum(v for k, v in snap["interrupts"].items() if k.startswith("eth"))
    eth = {k: v for k, v in snap["dev"].items() if k.startswith("eth")}
    return {
        "elapsed_s": elapsed,
        "cpus": ncpu,
        "cpu_util": (1 - idle / ticks) if ticks else None,
        "cpu_ticks": stat["cpu"],
        "ctxt": stat["ctxt"],
        "intr": stat["intr"],
        "ctxt_per_s": stat["ctxt"] / elapsed if elapsed else None,
        "intr_per_s": stat["intr"] / elapsed if elapsed else None,
        "nic_irqs": nic_irqs,
        "interrupts": snap["interrupts"],
        "softirqs": snap["softirqs"],
        "snmp": snap["snmp"],
        "netdev": eth,
        "rx_packets": sum(d["rx_packets"] for d in eth.values()),
        "tx_packets": sum(d["tx_packets"] for d in eth.values()),
    }


def _elapsed(items: dict[str, str], name: str) -> float | None:
    try:
        before = float(items[f"{name}.uptime.before"].split()[0])
        after = float(items[f"{name}.uptime.after"].split()[0])
    except (KeyError, IndexError, ValueError):
        return None
    return after - before


# ------------------------------------------------------------ benchmarks


def parse_iperf_csv(text: str) -> dict[str, Any]:
    """iperf 2 `-y C`: one line per stream and, with -P > 1, a sum line (id -1).
    UDP adds jitter, lost, total and loss % to the receiver's report."""
    rows = [l.split(",") for l in text.splitlines() if l.count(",") >= 8]
    if not rows:
        raise GuestError("iperf printed no report (did it connect?)")
    sums = [r for r in rows if r[5] == "-1"]
    row = sums[-1] if sums else rows[-1]
    start, _, end = row[6].partition("-")
    out = {
        "bytes": int(row[7]),
        "duration_s": float(end) - float(start),
        "throughput_mbps": int(row[8]) / 1e6,
        "streams": len([r for r in rows if r[5] != "-1"]),
    }
    if len(row) >= 13:
        out.update(jitter_ms=float(row[9]), lost=int(row[10]), datagrams=int(row[11]),
                   loss_pct=float(row[12]))
    return out


def parse_iperf3_json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise GuestError(f"iperf3 output is not JSON: {e}") from e
    if "error" in data:
        raise GuestError(f"iperf3: {data['error']}")
    end = data.get("end", {})
    # The receiver's count where this side has it; a server that sent (the
    # client ran -R) has only its own sending, and its sum_received is empty.
    received = end.get("sum_received")
    summary = received if received and received.get("bytes") else end.get("sum_sent") or end.get("sum")
    if not summary:
        raise GuestError("iperf3 JSON has no end.sum_received / end.sum_sent / end.sum")
    out = {
        "bytes": int(summary["bytes"]),
        "duration_s": float(summary["seconds"]),
        "throughput_mbps": float(summary["bits_per_second"]) / 1e6,
    }
    cpu = end.get("cpu_utilization_percent")
    if cpu:
        out["cpu_host_pct"] = cpu.get("host_total")
    if "lost_percent" in summary:
        out["loss_pct"] = summary["lost_percent"]
    return out


def parse_netpipe(text: str) -> dict[str, Any]:
    """NPtcp's output file: bytes, Mbit/s, seconds (half the round trip) per row."""
    points = []
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 3:
            points.append({"bytes": int(f[0]), "mbps": float(f[1]), "latency_us": float(f[2]) * 1e6})
    if not points:
        raise GuestError("NetPIPE wrote no data points")
    smallest = min(points, key=lambda p: p["bytes"])
    return {
        "latency_us": smallest["latency_us"],
        "latency_bytes": smallest["bytes"],
        "peak_mbps": max(p["mbps"] for p in points),
        "points": points,
    }


def parse_wrk(text: str) -> dict[str, Any]:
    """The summary line g5net's wrk script prints (job._wrk_script)."""
    line = next((l for l in text.splitlines() if l.startswith("G5WRK ")), None)
    if line is None:
        raise GuestError("wrk printed no summary (G5WRK line)")
    f = {k: float(v) for k, v in (kv.split("=", 1) for kv in line.split()[1:])}
    seconds = f["duration_us"] / 1e6
    if f["requests"] == 0 or seconds <= 0:
        raise GuestError(f"wrk completed no request ({int(f['errors'])} errors)")
    return {
        "requests": int(f["requests"]),
        "requests_per_s": f["requests"] / seconds,
        "throughput_mbps": f["bytes"] * 8 / seconds / 1e6,
        "latency_us": f["lat_mean_us"],
        "latency_p50_us": f["lat_p50_us"],
        "latency_p99_us": f["lat_p99_us"],
        "latency_max_us": f["lat_max_us"],
        "errors": int(f["errors"]),
        "duration_s": seconds,
    }


# Figures that add up over a host's instances; the others (duration, jitter,
# loss %) are the worst instance's.
_ADDITIVE = ("bytes", "throughput_mbps", "streams", "lost", "datagrams", "cpu_host_pct",
             "requests", "requests_per_s", "errors")


def _rc(items: dict[str, str], name: str) -> int:
    return int(items.get(f"{name}.rc", "-1").strip() or -1)


def _measure(items: dict[str, str], inst: job.Instance, w: Workload) -> dict[str, Any]:
    """What one instance of `w` measured; GuestError if nothing."""
    name = inst.item
    rc = _rc(items, name)
    if rc != 0:
        raise GuestError(f"exit status {rc}: {items.get(f'{name}.err', '').strip()[-300:]}")
    stdout = items.get(f"{name}.out", "")
    if w.kind == "iperf":
        return parse_iperf_csv(stdout)
    if w.kind == "iperf3":
        return parse_iperf3_json(stdout)
    # Only the client measures: wrk, or NetPIPE's transmitter, which writes
    # the table (TCP or MPI rank 0); the server just answers.
    if inst.serves:
        return {}
    if w.kind == "web":
        return parse_wrk(stdout)
    assert w.kind in NETPIPE_KINDS, w.kind
    return parse_netpipe(items.get(f"{name}.np", ""))


def _failure(items: dict[str, str], name: str, e: GuestError) -> dict[str, Any]:
    out = {"error": str(e)}
    err = items.get(f"{name}.err", "").strip()
    if err and err[-300:] not in out["error"]:
        out["stderr_tail"] = err[-300:]
    return out


def _instance(items: dict[str, str], inst: job.Instance, w: Workload) -> dict[str, Any]:
    try:
        return _measure(items, inst, w)
    except GuestError as e:
        return _failure(items, inst.item, e)


def _directions(found: list[tuple[job.Instance, dict[str, Any]]]) -> dict[str, float]:
    """A stream host's throughput each way: what it sent and what it received."""
    return {f"{d}_mbps": sum(f.get("throughput_mbps", 0.0) for i, f in found
                             if i.direction == way)
            for d, way in (("sent", "send"), ("received", "receive"))}


def _combine(found: list[tuple[job.Instance, dict[str, Any]]]) -> dict[str, Any]:
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


def _workload(items: dict[str, str], spec: Spec, host: Host, w: Workload) -> dict[str, Any]:
    insts = job.instances(spec, host, w)
    rcs = [_rc(items, i.item) for i in insts]
    out: dict[str, Any] = {"kind": w.kind, "rc": next((rc for rc in rcs if rc), 0)}
    try:
        out["roi"] = roi_deltas(items, w.name)
    except GuestError as e:
        out.update(_failure(items, w.name, e))
    else:
        found = [(i, {"rc": rc, **_instance(items, i, w)}) for i, rc in zip(insts, rcs)]
        if len(found) == 1:
            out.update({k: v for k, v in found[0][1].items() if k != "rc"})
        else:
            out.update(_combine(found))
        if w.kind in STREAM_KINDS and "error" not in out:
            out.update(_directions(found))
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
    return {
        "role": host.role,
        "job_rc": block.get("job_rc"),
        "workloads": {w.name: _workload(items, spec, host, w) for w in spec.workloads},
    }


def workload_errors(results: dict[str, Any]) -> list[str]:
    """`host/workload: message` for every workload that did not produce a measurement."""
    return [f"{h}/{name}: {w['error']}"
            for h, r in results.items() for name, w in r.get("workloads", {}).items()
            if "error" in w]
