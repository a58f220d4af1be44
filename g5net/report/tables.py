"""The report's tables: one row per run, host and workload."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..metrics.profile import CATEGORIES
from .runs import Run, label, varying


@dataclass(frozen=True)
class Column:
    header: str
    metric: str
    scale: float = 1.0
    digits: int = 1


@dataclass(frozen=True)
class Table:
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


# In the order a reader looks for them; a column no row has is left out.
SUMMARY = (
    Column("throughput Mb/s", "throughput_mbps"),
    Column("latency us", "latency_us", digits=2),
    Column("CPU %", "cpu_util", 100),
    Column("packets", "packets", digits=0),
    Column("pkts/s", "pkts_per_s", digits=0),
    Column("CPU us/pkt", "cpu_us_per_pkt", digits=2),
    Column("ctxt/s", "ctxt_per_s", digits=0),
    Column("intr/s", "intr_per_s", digits=0),
    Column("ctxt/pkt", "ctxt_per_pkt", digits=3),
    Column("intr/pkt", "intr_per_pkt", digits=3),
    Column("pkts/NIC irq", "pkts_per_nic_irq", digits=2),
    Column("insts/pkt", "insts_per_pkt", digits=0),
    Column("L1I miss/pkt", "l1i_misses_per_pkt", digits=2),
    Column("L1D miss/pkt", "l1d_misses_per_pkt", digits=2),
    Column("L2 miss/pkt", "l2_misses_per_pkt", digits=2),
    Column("mem B/pkt", "mem_bytes_per_pkt", digits=0),
)


def rows(runs: Sequence[Run]) -> Iterator[tuple[Run, str, str, Mapping[str, Any]]]:
    """(run, host, workload, metrics) in run, host and workload order."""
    for run in runs:
        for host, workloads in run.hosts.items():
            for wl, metrics in workloads.items():
                yield run, host, wl, metrics


def fmt(v: Any, scale: float = 1.0, digits: int = 1) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return "-"
    return f"{v * scale:,.{digits}f}"


def summary(runs: Sequence[Run]) -> Table:
    keys = varying(runs)
    found = list(rows(runs))
    cols = [c for c in SUMMARY if any(c.metric in m for *_, m in found)]
    header = ("point", "status", "host", "workload") + tuple(c.header for c in cols)
    body = tuple((label(r, keys), r.status, h, w) + tuple(fmt(m.get(c.metric), c.scale, c.digits)
                                                          for c in cols)
                 for r, h, w, m in found)
    return Table("Per-packet metrics", header, body)


def breakdown(runs: Sequence[Run]) -> Table | None:
    """CPU time by category: share of the total, and microseconds per packet."""
    keys = varying(runs)
    found = [(r, h, w, m) for r, h, w, m in rows(runs) if f"time_{CATEGORIES[0]}_pct" in m]
    if not found:
        return None
    header = ("point", "host", "workload", "basis") + CATEGORIES
    body = []
    for r, h, w, m in found:
        cells = []
        for c in CATEGORIES:
            pct, us = m.get(f"time_{c}_pct"), m.get(f"time_{c}_us_per_pkt")
            cells.append("-" if pct is None else
                         f"{pct:.1f}%" + ("" if us is None else f" ({us:.2f} us)"))
        body.append((label(r, keys), h, w, m.get("breakdown", {}).get("basis", "-"), *cells))
    return Table("CPU time breakdown: share of CPU time (time per packet)", header, tuple(body))


def top_functions(runs: Sequence[Run], limit: int = 8) -> Table | None:
    """The kernel functions that took the most time, for the first profiled point."""
    keys = varying(runs)
    for r, h, w, m in rows(runs):
        top = m.get("breakdown", {}).get("top")
        if top:
            body = tuple((f["function"], f["category"], f"{f['kernel_pct']:.1f}%") for f in top[:limit])
            return Table(f"Top kernel functions: {label(r, keys)} {h}/{w}",
                         ("function", "category", "share of kernel time"), body)
    return None
