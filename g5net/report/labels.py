"""What a figure calls a parameter, a metric and a value: words and a unit,
not an identifier. A spec key's unit is in its name (`msg_bytes`, `delay_us`;
every key is in g5net/model/keys.py), a metric's comes from the catalogue
(g5net/metrics/units.py); sizes are written in KiB and MiB, which no reader
mistakes for powers of ten."""

from __future__ import annotations

import numbers
import textwrap
from collections.abc import Sequence
from typing import Any

from ..metrics.units import unit_of
from .runs import Run, fmt_value, label, short

# A name's last word that is its unit, as spec keys and metrics spell them.
_SUFFIX_UNITS = {"bytes": "bytes", "kib": "KiB", "mb": "MiB", "us": "us", "ns": "ns", "s": "s",
                 "gbps": "Gbit/s", "mbps": "Mbit/s", "ghz": "GHz", "pct": "%", "cycles": "cycles"}
# Keys whose unit is not in their name (the spec's docs say bytes).
_KEY_UNITS = {"bytes": "bytes", "mtu": "bytes", "pcie_max_read_request": "bytes", "pcie_max_payload": "bytes"}
# Keys and metrics a reader knows by another name.
_NAMES = {"msg_bytes": "message size", "window_bytes": "socket buffer", "attach": "NIC placement",
          "model": "CPU model", "bytes": "bytes per transfer", "streams": "connections",
          "count": "NICs per host", "cpu_util": "CPU utilisation", "cpu_util_max": "busiest CPU's utilisation",
          "pcie_max_read_request": "PCIe read request size", "switch": "switch between the hosts",
          "cores": "CPU cores", "dca": "direct cache access", "speed_gbps": "link speed",
          "delay_us": "link delay", "memory_mb": "guest memory", "clock_ghz": "CPU clock",
          "l2_kib": "L2 cache size", "l3_kib": "L3 cache size", "l1d_kib": "L1D cache size",
          "received_mbps": "throughput received", "sent_mbps": "throughput sent"}
# Abbreviations as a sentence writes them.
_WORDS = {"mtu": "MTU", "cpu": "CPU", "nic": "NIC", "pkt": "packet", "pkts": "packets", "rx": "received",
          "tx": "sent", "ctxt": "context switches", "intr": "interrupts", "irqs": "interrupts", "irq": "interrupt",
          "ipi": "inter-processor", "l1i": "L1I", "l1d": "L1D", "l2": "L2", "l3": "L3", "pcie": "PCIe",
          "msg": "message", "util": "utilisation", "dca": "DCA", "tcp": "TCP", "retrans": "retransmits",
          "sim": "simulated", "insts": "instructions", "p99": "99th percentile"}
LONGEST = 28  # characters of a tick, legend or facet label before it wraps
NAMED_KEYS = 3  # runs that differ in more keys than this are named by their directories


def _unit(name: str) -> str | None:
    head, _, last = name.rpartition("_")
    return _SUFFIX_UNITS[last] if head and last in _SUFFIX_UNITS else _KEY_UNITS.get(name)


def _words(name: str) -> str:
    """`time_driver_us_per_pkt` -> time in driver per packet: units dropped (the axis
    says them), abbreviations spelled out."""
    tokens = name.split("_")
    out = []
    for i, t in enumerate(tokens):
        after_per = i > 0 and tokens[i - 1] == "per"
        if t in _SUFFIX_UNITS and not after_per and i > 0:
            continue
        out.append("second" if (t == "s" and after_per) else _WORDS.get(t, t))
    if out[0] == "time" and len(out) > 1:
        out.insert(1, "in")
    return " ".join(out)


def key_unit(key: str) -> str | None:
    """The unit of a spec key (`host.nic.mtu` -> bytes); None for a count or a choice."""
    return _unit(key.rpartition(".")[2])


def key_words(key: str) -> str:
    """A spec key in words: `workloads.stream.msg_bytes` -> message size."""
    name = key.rpartition(".")[2]
    return _NAMES.get(name) or _words(name)


def key_axis(key: str, log: bool = False) -> str:
    """An axis along a key: its words, unit and scale, then the key as --x names it."""
    unit = key_unit(key)
    scale = [printed(unit)] if unit else []
    if log:
        scale.append("log scale")
    return f"{key_words(key)}" + (f" ({', '.join(scale)})" if scale else "") + f" [{short(key)}]"


def metric_words(metric: str) -> str:
    """A metric in words: `l1d_misses_per_pkt` -> L1D misses per packet."""
    name = metric.rpartition(".")[2]
    return _NAMES.get(name) or _words(name)


def metric_unit(metric: str) -> str | None:
    """A metric's unit from the catalogue; a fraction is drawn in percent (see `scale`)."""
    unit = unit_of(metric.rpartition(".")[2])
    return "%" if unit == "fraction" else unit


def scale(metric: str) -> float:
    """What a metric's stored value is multiplied by to be drawn in `metric_unit`."""
    return 100.0 if unit_of(metric.rpartition(".")[2]) == "fraction" else 1.0


def metric_axis(metric: str) -> str:
    """A metric's axis: its words and unit, where the words do not already say it
    (`per packet` says /pkt, a count has none)."""
    words, unit = metric_words(metric), metric_unit(metric) or ""
    for said, by in (("/pkt", "per packet"), ("/s", "per second")):
        if by in words:
            unit = unit.removesuffix(said)
    shown = unit not in ("", "1", "count", "pkt")
    return words + (f" ({printed(unit)})" if shown else "")


def printed(unit: str) -> str:
    """A unit as a figure prints it: microseconds with their own letter."""
    return "\u00b5s" if unit == "us" else unit


def size_text(v: Any) -> str:
    """1024 -> 1 KiB, 65536 -> 64 KiB, 1500 -> 1500 B: exact, never a rounded K."""
    # numbers.Real: a tick's value is numpy's, not a Python number.
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        n = float(v)
        for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if n >= size and n % size == 0:
                return f"{int(n // size)}\u00a0{unit}"  # no break: a wrapped label keeps 64 KiB whole
        return f"{n:.0f}\u00a0B" if n == int(n) else f"{n:g}\u00a0B"
    return fmt_value(v)


def value_text(key: str, v: Any) -> str:
    """A value of `key` as a tick or legend writes it: sizes exact in KiB/MiB, the rest as TOML does."""
    return size_text(v) if key_unit(key) == "bytes" else fmt_value(v)


def wrapped(text: str, width: int = LONGEST) -> str:
    """Lines of at most `width` characters (a longer word is cut where it must be):
    a figure's labels never widen it past its panels."""
    return "\n".join(part.rstrip() for line in text.split("\n")
                     for part in (textwrap.wrap(line, width, break_long_words=len(line) > 2 * width) or [""]))


def run_label(run: Run, keys: Sequence[str]) -> str:
    """A run among others: `mtu=9000 window_bytes=64 KiB` where a few
    keys tell them apart, else its directory's name (a folder of unrelated runs,
    whose every difference would not fit a legend)."""
    return run.name if len(keys) > NAMED_KEYS else label(run, keys, value_text)


def listed(names: Sequence[str], most: int = 3) -> str:
    """`a, b, c and 4 more`: a list a figure's note can hold."""
    head = ", ".join(names[:most])
    return head + (f" and {len(names) - most} more" if len(names) > most else "")
