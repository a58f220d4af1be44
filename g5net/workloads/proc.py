"""The kernel's counters around a region of interest: the `/proc` snapshots
g5_snapshot (workloads/lib.sh) takes before and after each workload, parsed,
and what they add up to over the region."""

from __future__ import annotations

from typing import Any

from ..errors import GuestError
from ..guest.protocol import USER_HZ
from . import windows

PROC_FILES = ("stat", "interrupts", "softirqs", "snmp", "dev")
# Snapshot files a region's figures use where they are there: runs recorded
# before g5_window_snap read them have neither.
OPTIONAL_FILES = ("netstat", "softnet_stat")


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
    """`/proc/net/snmp` as `Proto.Field` -> value (header line, then values
    line); `/proc/net/netstat` (TcpExt, IpExt) has the same form.

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


def parse_softnet(text: str) -> dict[str, int]:
    """`/proc/net/softnet_stat`, all CPUs together: packets processed, packets
    dropped because the CPU's backlog was full (net.core.netdev_max_backlog),
    and NET_RX runs that ended with work left (budget or time exhausted). One
    line a CPU, hexadecimal columns in that order (net/core/net-procfs.c)."""
    out = {"processed": 0, "dropped": 0, "time_squeeze": 0}
    for line in text.splitlines():
        for key, col in zip(out, line.split()):
            out[key] += int(col, 16)
    return out


def _delta(before: Any, after: Any) -> Any:
    if isinstance(after, dict):
        return {k: _delta(before.get(k, 0) if isinstance(before, dict) else 0, v)
                for k, v in after.items()}
    return after - before


def roi_deltas(items: dict[str, str], name: str) -> dict[str, Any]:
    """Counters over one workload's region of interest (g5_roi_begin and
    g5_roi_end's snapshots), and rates derived from them."""
    snaps = []
    for when in ("before", "after"):
        snap = {f: items[f"{name}.{when}.{f}"] for f in PROC_FILES + OPTIONAL_FILES
                if f"{name}.{when}.{f}" in items}
        if f"{name}.uptime.{when}" in items:
            snap["uptime"] = items[f"{name}.uptime.{when}"]
        snaps.append(snap)
    before, after = snaps
    return deltas(before, after, f"workload {name}", f"{name}.before.{{f}} / {name}.after.{{f}}")


def window_deltas(items: dict[str, str], name: str, first: int, last: int) -> dict[str, Any]:
    """Counters between two of a windowed workload's snapshots (g5_window_snap
    NAME.w<first> and NAME.w<last>, workloads/windows.sh)."""
    tags = [windows.snapshot(name, k) for k in (first, last)]
    missing = [t for t in tags if t not in items]
    if missing:
        raise GuestError(f"workload {name}: missing snapshot {missing[0]}")
    before, after = (split_heads(items[t]) for t in tags)
    return deltas(before, after, f"workload {name}", " / ".join(tags))


# g5_window_snap's files, by the name each has in a g5_snapshot.
_HEADS = {"/proc/uptime": "uptime", "/proc/stat": "stat", "/proc/interrupts": "interrupts",
          "/proc/softirqs": "softirqs", "/proc/net/snmp": "snmp", "/proc/net/dev": "dev",
          "/proc/net/netstat": "netstat", "/proc/net/softnet_stat": "softnet_stat"}


def split_heads(text: str) -> dict[str, str]:
    """The files of one `head FILE...` output: name -> text, by the `==> FILE
    <==` lines head puts before each (the blank line between files dropped)."""
    out: dict[str, list[str]] = {}
    lines: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("==> ") and line.endswith(" <==") and line[4:-4] in _HEADS:
            lines = out.setdefault(_HEADS[line[4:-4]], [])
        elif lines is not None:
            lines.append(line)
    return {f: "\n".join(lines).strip("\n") + "\n" for f, lines in out.items()}


def deltas(before: dict[str, str], after: dict[str, str], what: str, where: str) -> dict[str, Any]:
    """Counters between two snapshots (file -> text, PROC_FILES, `uptime` and
    any of OPTIONAL_FILES), and rates derived from them; `what` and `where`
    (its `{f}` the file's name) say in errors whose snapshots they were."""
    parsers = {"stat": parse_stat, "interrupts": parse_interrupts, "softirqs": parse_softirqs,
               "snmp": parse_snmp, "dev": parse_netdev, "netstat": parse_snmp,
               "softnet_stat": parse_softnet}
    snap = {}
    for f in PROC_FILES:
        if f not in before or f not in after:
            raise GuestError(f"{what}: missing /proc/{f} snapshot ({where.format(f=f)})")
        snap[f] = _delta(parsers[f](before[f]), parsers[f](after[f]))
    optional = {f: _delta(parsers[f](before[f]), parsers[f](after[f]))
                for f in OPTIONAL_FILES if f in before and f in after}
    stat = snap["stat"]
    ncpu = parse_stat(after["stat"])["cpus"]
    ticks = sum(stat["cpu"].values())
    elapsed = _elapsed(before.get("uptime"), after.get("uptime")) or (ticks / USER_HZ / max(ncpu, 1))
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
    } | optional


def _elapsed(before: str | None, after: str | None) -> float | None:
    try:
        return float(after.split()[0]) - float(before.split()[0])  # type: ignore[union-attr]
    except (AttributeError, IndexError, ValueError):
        return None
