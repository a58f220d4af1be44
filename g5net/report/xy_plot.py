"""One metric against any parameter of the runs (`g5net report --x KEY --y
METRIC [--hue KEY]`): a line per series where the key is numeric (MTU, cache
size, message size), grouped bars where it is not (NIC placement, CPU model).

A series is one value of --hue, of every other parameter that varies on its
own (so that two configurations never share a point), and each host and
workload that has the metric. Runs with identical parameters are repeats: the
point or bar is their mean, and an error bar spans their minimum to maximum.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.ticker import NullLocator

from ..errors import ReportError
from ..metrics.units import unit_of
from .axes import axis_label, tick_labels
from .figure_files import SERIES_COLOURS, Figure, bytes_label, plt, save, style
from .runs import Run, fmt_value, follows, label, partners, short, varying

LINE_STYLES = ("-", "--", ":", "-.")
DODGE = 0.012  # of the x range (of a doubling, on a log axis) between neighbouring series
MARKERS = ("o", "s", "^", "D", "v", "P")


@dataclass(frozen=True)
class XY:
    """What to plot: parameter `x`, metric `y`, coloured by parameter `hue`, of
    `hosts` and `workloads` (every host but `aggregate` and every workload with
    the metric where empty)."""
    x: str
    y: str
    hue: str | None = None
    hosts: tuple[str, ...] = ()
    workloads: tuple[str, ...] = ()


@dataclass(frozen=True)
class Point:
    order: tuple  # where the series comes: by hue value, then the other parameters'
    group: str  # the hue and other parameters: the colour
    line: str  # host and workload: the line style (bars: part of the colour's label)
    x: Any
    values: tuple[float, ...]  # one per run: several are repeats

    @property
    def mean(self) -> float:
        return statistics.fmean(self.values)

    @property
    def spread(self) -> tuple[float, float]:
        """Below and above the mean, to the smallest and largest repeat."""
        return self.mean - min(self.values), max(self.values) - self.mean


def resolve(runs: Sequence[Run], key: str, flag: str) -> str:
    """`key` as the runs name it: exactly, `hosts.NAME.K` of a key every host
    shares (`host.K`), or a unique dotted ending of a varying key (`nic.mtu`, `mtu`)."""
    known = {k for r in runs for k in r.params}
    if key in known:
        return key
    if key.startswith("hosts.") and key.count(".") >= 2 and f"host.{key.split('.', 2)[2]}" in known:
        return f"host.{key.split('.', 2)[2]}"
    keys = varying(runs)
    # A varying key first: `mtu` is host.nic.mtu where only that one varies.
    ending = ([k for k in keys if k.endswith(f".{key}")]
              or [k for k in sorted(known) if k.endswith(f".{key}")])
    if len(ending) == 1:
        return ending[0]
    why = f"is ambiguous ({', '.join(ending)})" if ending else "is no parameter of these runs"
    raise ReportError(f"{flag} {key}: {why}; the runs vary {', '.join(keys) or 'nothing'}")


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _rank(v: Any) -> tuple:
    """Numbers in order, then everything else by its spelling."""
    return (0, v, "") if _numeric([v]) else (1, 0, fmt_value(v))


def apart(runs: Sequence[Run], xy: XY) -> dict[str, list[str]]:
    """The parameters that vary on their own, besides x and hue: each with the
    keys that move with it, which its name stands for in the legend."""
    given = [xy.x, *([xy.hue] if xy.hue else [])]
    out: dict[str, list[str]] = {}
    for k in varying(runs):
        if k in given or follows(runs, given, k):
            continue
        lead = next((o for o in out if follows(runs, [o], k) and follows(runs, [k], o)), None)
        if lead is None:
            out[k] = []
        else:
            out[lead].append(k)
    return out


def points(runs: Sequence[Run], xy: XY) -> list[Point]:
    """The points of the plot, in series order then x order."""
    group_keys = [*([xy.hue] if xy.hue else []), *apart(runs, xy)]
    found: dict[tuple[tuple, str, str, str, str], list[float]] = {}
    xs: dict[str, Any] = {}
    for run in runs:
        hosts = xy.hosts or tuple(run.hosts)
        for host in hosts:
            for workload, metrics in run.metrics_of(host).items():
                value = metrics.get(xy.y)
                if ((xy.workloads and workload not in xy.workloads)
                        or not isinstance(value, (int, float)) or isinstance(value, bool)):
                    continue
                x = run.params.get(xy.x)
                xs.setdefault(repr(x), x)
                group = label(run, group_keys) if group_keys else ""
                order = tuple(_rank(run.params.get(k)) for k in group_keys)
                found.setdefault((order, group, host, workload, repr(x)), []).append(value)
    if not found:
        where = f" of host {', '.join(xy.hosts)}" if xy.hosts else ""
        raise ReportError(f"--y {xy.y}: no run has this metric{where} "
                          f"(`g5net collect --long` lists every metric)")
    one_host = len({k[2] for k in found}) == 1
    one_workload = len({k[3] for k in found}) == 1
    return sorted((Point(order, group, " ".join(p for p, alone in ((h, one_host), (w, one_workload))
                                                if not alone), xs[x], tuple(values))
                   for (order, group, h, w, x), values in found.items()),
                  key=lambda p: (p.order, p.line, _rank(p.x)))


def _file_name(xy: XY) -> str:
    name = f"{xy.y}-vs-{short(xy.x)}" + (f"-by-{short(xy.hue)}" if xy.hue else "")
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name)


def _legend_name(p: Point) -> str:
    return " ".join(s for s in (p.group, p.line) if s) or "mean"


def resolved(runs: Sequence[Run], xy: XY) -> XY:
    """`xy` with its keys named as the runs name them; an x that takes one value is an error."""
    x = resolve(runs, xy.x, "--x")
    hue = resolve(runs, xy.hue, "--hue") if xy.hue else None
    if x not in varying(runs):
        raise ReportError(f"--x {xy.x}: every run has {short(x)}={fmt_value(runs[0].params.get(x))}; "
                          f"the runs vary {', '.join(varying(runs)) or 'nothing'}")
    if hue == x:
        raise ReportError(f"--hue {xy.hue}: is --x already")
    out = XY(x, xy.y, hue, xy.hosts, xy.workloads)
    points(runs, out)  # no run with the metric is an error before any file is written
    return out


def draw(runs: Sequence[Run], xy: XY, out: Path) -> Figure:
    """Write the plot of `xy` (resolved) into `out` as PNG, SVG and PDF."""
    found = points(runs, xy)
    values = sorted({repr(p.x): p.x for p in found}.values(), key=_rank)
    numeric = _numeric(values)
    log = numeric and values[0] > 0 and values[-1] / values[0] >= 8
    pair = partners(runs, xy.x)
    groups = list(dict.fromkeys(p.group for p in found))
    lines = list(dict.fromkeys(p.line for p in found))
    series = list(dict.fromkeys((p.group, p.line) for p in found))
    width = max(5.6, 1.1 * len(values) * (1 if numeric else max(1, len(series)) ** 0.6) + 2.4)
    fig, ax = plt.subplots(figsize=(min(width, 13), 4.2))
    fmt = bytes_label if xy.x.endswith("_bytes") else fmt_value
    for gi, li in [(groups.index(g), lines.index(line)) for g, line in series]:
        mine = [p for p in found if (p.group, p.line) == (groups[gi], lines[li])]  # in x order
        colour = SERIES_COLOURS[gi % len(SERIES_COLOURS)]
        if numeric:
            # Series side by side, a little apart, so that their error bars do not hide each other.
            shift = (series.index((groups[gi], lines[li])) - (len(series) - 1) / 2) * DODGE
            span = values[-1] - values[0]
            xs = [p.x * 2 ** shift if log else p.x + shift * span for p in mine]
            ax.errorbar(xs, [p.mean for p in mine],
                        yerr=_yerr(mine), label=_legend_name(mine[0]), color=colour,
                        linestyle=LINE_STYLES[li % len(LINE_STYLES)], marker=MARKERS[li % len(MARKERS)],
                        markersize=5, linewidth=1.8, capsize=4)
        else:
            at = series.index((groups[gi], lines[li]))
            bar_width = 0.8 / len(series)
            xs = [values.index(p.x) + (at - (len(series) - 1) / 2) * bar_width for p in mine]
            bars = ax.bar(xs, [p.mean for p in mine], bar_width * 0.92, yerr=_yerr(mine),
                          label=_legend_name(mine[0]), color=colour, capsize=4,
                          alpha=1.0 if li == 0 else 0.6, hatch=("", "//", "..", "xx")[li % 4],
                          edgecolor="white", linewidth=0.6)
            ax.bar_label(bars, labels=[f"{p.mean:,.3g}" for p in mine], label_type="center",
                         color="white", fontsize=8, fontweight="bold")
    if log:
        ax.set_xscale("log", base=2)
    if numeric:
        ax.set_xticks(values)
        ax.xaxis.set_minor_locator(NullLocator())
    else:
        ax.set_xticks(range(len(values)))
    ax.set_xticklabels(tick_labels(runs, xy.x, values, pair, fmt))
    unit = unit_of(xy.y)
    ax.set_xlabel(axis_label(short(xy.x), pair))
    ax.set_ylabel(f"{xy.y} ({unit})" if unit else xy.y)
    ax.set_ylim(bottom=0)
    style(ax)
    if not numeric:
        ax.grid(axis="x", visible=False)
    if len(series) > 1:
        ax.legend(title=short(xy.hue) if xy.hue and len(lines) == 1 else None, frameon=False,
                  loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, title_fontsize=8)
    repeats = max(len(p.values) for p in found)
    title = f"{xy.y} vs {short(xy.x)}" + (f" by {short(xy.hue)}" if xy.hue else "")
    notes = [f"{short(k)} stands for {', '.join(short(m) for m in more)}, which vary with it"
             for k, more in apart(runs, xy).items() if more]
    if repeats > 1:
        notes.append(f"mean of up to {repeats} runs with identical parameters; error bars: min to max")
    ax.set_title("\n".join([title, *notes]), fontsize=10, loc="left")
    return save(fig, out, _file_name(xy), title)


def _yerr(mine: Sequence[Point]) -> list[list[float]] | None:
    if all(len(p.values) == 1 for p in mine):
        return None
    return [[p.spread[0] for p in mine], [p.spread[1] for p in mine]]
