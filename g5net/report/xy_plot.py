"""One metric against any parameter of the runs (`g5net report --x KEY --y
METRIC [--hue KEY] [--where KEY=VALUE]`): lines where the key is numeric (MTU,
cache size, message size), bars on their category's tick where it is not (NIC
placement, CPU model).

--hue alone decides the colours: one per value. Every other parameter that
varies on its own among the plotted runs makes panels, one per combination of
its values (at most MAX_PANELS, in rows of PANEL_COLUMNS), so that two
configurations never share a point and a legend never spells out a spec; where
the combinations are more, the plot is refused and --where picks some. Hosts
and workloads, where several are plotted, are line styles. Runs with identical
parameters are repeats: the point or bar is their mean, and an error bar spans
their minimum to maximum. A single run that measured the metric with spread
(experiment.windows or repeats) has its 95% confidence interval as its bar.
"""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from ..errors import ReportError
from ..metrics.spread import SPREAD
from .axes import axis_label, tick_labels
from .figure_files import SERIES_COLOURS, Figure, plt, save, style
from .labels import (NAMED_KEYS, key_axis, key_words, listed, metric_axis, metric_words, run_label, scale,
                     value_text, wrapped)
from .runs import Run, fmt_value, follows, partners, short, system_first, varying

LineStyle = Literal["-", "--", ":", "-."]
LINE_STYLES: tuple[LineStyle, ...] = ("-", "--", ":", "-.")
DODGE = 0.012  # of the x range (of a doubling, on a log axis) between neighbouring series
MARKERS = ("o", "s", "^", "D", "v", "P")
LISTED = 12  # keys an error names before `and N more`
MAX_PANELS = 9
PANEL_COLUMNS = 3
MAX_WIDTH_IN, PANEL_HEIGHT_IN, HEADER_IN = 13.0, 3.4, 0.7


@dataclass(frozen=True)
class XY:
    """What to plot: parameter `x`, metric `y`, coloured by parameter `hue`, of
    `hosts` and `workloads` (the servers, else the clients, and every workload
    with the metric where empty), among the runs with every `where` value
    (KEY, VALUE as the TOML spells it)."""
    x: str
    y: str
    hue: str | None = None
    hosts: tuple[str, ...] = ()
    workloads: tuple[str, ...] = ()
    where: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Point:
    panel: str  # the other varying parameters' values: one panel each ("" where none)
    order: tuple  # where the point comes: by panel, then hue value
    hue: Any  # the value of --hue: the colour (None without --hue)
    line: str  # host and workload: the line style ("" where only one is plotted)
    x: Any
    values: tuple[float, ...]  # one per run: several are repeats
    # The 95% interval's half-width of a lone run's value (metrics.json's
    # `spread`: its windows or repeats); None where it has none.
    ci95: float | None = None

    @property
    def mean(self) -> float:
        return statistics.fmean(self.values)

    @property
    def spread(self) -> tuple[float, float]:
        """Below and above the mean: to the smallest and largest of several
        runs, or a lone run's confidence interval."""
        if len(self.values) == 1 and self.ci95 is not None:
            return self.ci95, self.ci95
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
    raise ReportError(f"{flag} {key}: {why}; the runs vary {listed(keys, LISTED) or 'nothing'}")


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _rank(v: Any) -> tuple:
    """Numbers in order, then everything else by its spelling."""
    return (0, v, "") if _numeric([v]) else (1, 0, fmt_value(v))


def chosen(runs: Sequence[Run], xy: XY) -> list[Run]:
    """The runs with every `where` value of `xy` (keys resolved)."""
    out = [r for r in runs if all(fmt_value(r.params.get(k)) == v for k, v in xy.where)]
    if not out:
        took = "; ".join(f"{short(k)} takes {', '.join(sorted({fmt_value(r.params.get(k)) for r in runs}))}"
                         for k, _ in xy.where)
        raise ReportError(f"--where {' '.join(f'{short(k)}={v}' for k, v in xy.where)}: no run has "
                          f"these values ({took})")
    return out


def _has(run: Run, host: str, xy: XY) -> bool:
    return any(isinstance(m.get(xy.y), (int, float)) and not isinstance(m.get(xy.y), bool)
               for w, m in run.metrics_of(host).items() if not xy.workloads or w in xy.workloads)


def default_hosts(runs: Sequence[Run], xy: XY) -> tuple[str, ...]:
    """The servers that have the metric (the receiving side of a stream), else
    the clients (a ping-pong's latency is the client's), else none."""
    for role in ("server", "client"):
        names = {h for r in runs for h in r.hosts
                 if r.params.get(f"hosts.{h}.role", r.params.get("host.role")) == role and _has(r, h, xy)}
        if names:
            return tuple(sorted(names))
    return ()


def apart(runs: Sequence[Run], xy: XY) -> dict[str, list[str]]:
    """The parameters that vary on their own among `runs`, besides x and hue:
    each with the keys that move with it, which its name stands for."""
    given = [xy.x, *([xy.hue] if xy.hue else [])]
    out: dict[str, list[str]] = {}
    for k in system_first(varying(runs)):
        if k in given or follows(runs, given, k):
            continue
        lead = next((o for o in out if follows(runs, [o], k) and follows(runs, [k], o)), None)
        if lead is None:
            out[k] = []
        else:
            out[lead].append(k)
    return out


def _plotted(runs: Sequence[Run], xy: XY) -> list[Run]:
    """The runs of `xy`'s selection with the metric for one of its hosts."""
    return [r for r in chosen(runs, xy) if any(_has(r, h, xy) for h in xy.hosts or r.hosts)]


def points(runs: Sequence[Run], xy: XY) -> list[Point]:
    """The points of the plot, in panel, hue and line order, then x order."""
    mine = _plotted(runs, xy)
    panel_keys = list(apart(mine, xy))
    # A panel holds the runs with one combination of the panel keys' values, titled by them
    # (by the runs' names where the keys are too many to spell out).
    combination = {r.path: repr([r.params.get(k) for k in panel_keys]) for r in mine}
    titles: dict[str, list[str]] = {}
    for r in mine:
        titles.setdefault(combination[r.path], []).append(r.name)
    found: dict[tuple[tuple, str, Any, str, str, str], list[float]] = {}
    cis: dict[tuple[tuple, str, Any, str, str, str], float] = {}
    xs: dict[str, Any] = {}
    for run in mine:
        for host in xy.hosts or tuple(run.hosts):
            for workload, metrics in run.metrics_of(host).items():
                value = metrics.get(xy.y)
                if ((xy.workloads and workload not in xy.workloads)
                        or not isinstance(value, (int, float)) or isinstance(value, bool)):
                    continue
                x = run.params.get(xy.x)
                xs.setdefault(repr(x), x)
                hue = run.params.get(xy.hue) if xy.hue else None
                order = (*(_rank(run.params.get(k)) for k in panel_keys), _rank(hue))
                panel = ("" if not panel_keys else run_label(run, panel_keys) if len(panel_keys) <= NAMED_KEYS
                         else listed(sorted(titles[combination[run.path]])))
                at = (order, panel, hue, host, workload, repr(x))
                found.setdefault(at, []).append(value)
                ci = metrics.get(SPREAD, {}).get(xy.y, {}).get("ci95")
                if ci is not None:
                    cis[at] = ci
    if not found:
        where = f" of host {', '.join(xy.hosts)}" if xy.hosts else ""
        raise ReportError(f"--y {xy.y}: no run has this metric{where} "
                          f"(`g5net collect --long` lists every metric)")
    one_host = len({k[3] for k in found}) == 1
    one_workload = len({k[4] for k in found}) == 1
    return sorted((Point(panel, order, hue, " ".join(p for p, alone in ((h, one_host), (w, one_workload))
                                                      if not alone), xs[x], tuple(values),
                          cis.get((order, panel, hue, h, w, x)))
                   for (order, panel, hue, h, w, x), values in found.items()),
                  key=lambda p: (p.order, p.line, _rank(p.x)))


def _file_name(xy: XY) -> str:
    name = f"{xy.y}-vs-{short(xy.x)}" + (f"-by-{short(xy.hue)}" if xy.hue else "")
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name)


def resolved(runs: Sequence[Run], xy: XY) -> XY:
    """`xy` with its keys named as the runs name them and its hosts chosen; an x
    that takes one value, or more panels than a figure holds, is an error."""
    where = tuple((resolve(runs, k, "--where"), v) for k, v in xy.where)
    mine = chosen(runs, XY(xy.x, xy.y, where=where))
    x = resolve(mine, xy.x, "--x")
    hue = resolve(mine, xy.hue, "--hue") if xy.hue else None
    if x not in varying(mine):
        raise ReportError(f"--x {xy.x}: every run has {short(x)}={fmt_value(mine[0].params.get(x))}; "
                          f"the runs vary {listed(varying(mine), LISTED) or 'nothing'}")
    if hue == x:
        raise ReportError(f"--hue {xy.hue}: is --x already")
    out = XY(x, xy.y, hue, xy.hosts, xy.workloads, where)
    if not out.hosts:
        out = dataclasses.replace(out, hosts=default_hosts(mine, out))
    found = points(runs, out)  # no run with the metric is an error before any file is written
    panels = {p.panel for p in found}
    if len(panels) > MAX_PANELS:
        plotted = _plotted(runs, out)
        keys = list(apart(plotted, out))
        counts = ", ".join(f"{short(k)} ({len({repr(r.params.get(k)) for r in plotted})} values)" for k in keys)
        example = keys[0]
        raise ReportError(
            f"--y {xy.y} --x {short(x)}{f' --hue {short(hue)}' if hue else ''}: besides these the "
            f"runs vary {counts}: {len(panels)} combinations, more than the {MAX_PANELS} panels a "
            f"figure holds; pick some with --where KEY=VALUE (e.g. --where {short(example)}="
            f"{fmt_value(plotted[0].params.get(example))}), or make one of them --hue")
    return out


def _panel_grid(n: int, per_panel: int) -> tuple[int, int, float]:
    """Columns, rows and each panel's width (inches) for `n` panels of `per_panel` ticks."""
    cols = min(PANEL_COLUMNS, n)
    width = min(max(3.8, 1.2 + 0.7 * per_panel), MAX_WIDTH_IN / cols)
    return cols, math.ceil(n / cols), width


class _Styles:
    """Colour by hue value, line style, marker and hatch by host and workload."""

    def __init__(self, hues: Sequence[Any], lines: Sequence[str]):
        self.hues, self.lines = list(hues), list(lines)

    def __call__(self, hue: Any, line: str) -> tuple[str, LineStyle, str]:
        li = self.lines.index(line)
        return (SERIES_COLOURS[self.hues.index(hue) % len(SERIES_COLOURS)],
                LINE_STYLES[li % len(LINE_STYLES)], MARKERS[li % len(MARKERS)])


def _lines(ax, mine: Sequence[Point], styles: _Styles, values: Sequence[Any], log: bool) -> None:
    series = list(dict.fromkeys((p.hue, p.line) for p in mine))
    span = values[-1] - values[0]
    for i, (hue, line) in enumerate(series):
        these = [p for p in mine if (p.hue, p.line) == (hue, line)]  # in x order
        # Series side by side, a little apart, so that their error bars do not hide each other.
        shift = (i - (len(series) - 1) / 2) * DODGE
        xs = [p.x * 2 ** shift if log else p.x + shift * span for p in these]
        colour, linestyle, marker = styles(hue, line)
        ax.errorbar(xs, [p.mean for p in these], yerr=_yerr(these), color=colour, linestyle=linestyle,
                    marker=marker, markersize=5, linewidth=1.8, capsize=4)
    # Every panel spans every x, whichever it has points at, with room for the end markers.
    if log:
        ax.set_xscale("log", base=2)
        ax.set_xlim(values[0] / 2 ** 0.4, values[-1] * 2 ** 0.4)
    else:
        ax.set_xlim(values[0] - 0.06 * span, values[-1] + 0.06 * span)
    ax.set_xticks(values)
    ax.xaxis.set_minor_locator(NullLocator())


def _bars(ax, mine: Sequence[Point], styles: _Styles, values: Sequence[Any], most: int) -> None:
    """Each category's bars side by side, centred on its tick; `most` bars in the fullest category."""
    width = 0.8 / most
    for at, value in enumerate(values):
        here = [p for p in mine if repr(p.x) == repr(value)]
        for i, p in enumerate(here):
            colour, _, _ = styles(p.hue, p.line)
            bars = ax.bar([at + (i - (len(here) - 1) / 2) * width], [p.mean], width * 0.92,
                          yerr=_yerr([p]), color=colour, capsize=4, edgecolor="white", linewidth=0.6,
                          hatch=("", "//", "..", "xx")[styles.lines.index(p.line) % 4])
            if width >= 0.2:
                ax.bar_label(bars, labels=[f"{p.mean:,.3g}"], label_type="center", color="white",
                             fontsize=8, fontweight="bold")
    ax.set_xticks(range(len(values)))
    ax.set_xlim(-0.6, len(values) - 0.4)


def draw(runs: Sequence[Run], xy: XY, out: Path) -> Figure:
    """Write the plot of `xy` (resolved) into `out` as PNG, SVG and PDF."""
    fig, title = figure(runs, xy)
    return save(fig, out, _file_name(xy), title)


def figure(runs: Sequence[Run], xy: XY) -> tuple[Any, str]:
    """The plot of `xy` (resolved), as matplotlib's open figure, and its title."""
    k = scale(xy.y)
    found = [dataclasses.replace(p, values=tuple(v * k for v in p.values),
                                 ci95=None if p.ci95 is None else p.ci95 * k)
             for p in points(runs, xy)]
    values = sorted({repr(p.x): p.x for p in found}.values(), key=_rank)
    numeric = _numeric(values)
    log = numeric and values[0] > 0 and values[-1] / values[0] >= 8
    panels = list(dict.fromkeys(p.panel for p in found))
    styles = _Styles(sorted({repr(p.hue): p.hue for p in found}.values(), key=_rank),
                     list(dict.fromkeys(p.line for p in found)))
    most = max(len([p for p in found if (p.panel, repr(p.x)) == at])
               for at in {(p.panel, repr(p.x)) for p in found})
    cols, rows, width = _panel_grid(len(panels), len(values) * (1 if numeric else most))
    height = PANEL_HEIGHT_IN * rows + HEADER_IN
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height), squeeze=False, sharey=True)
    plotted = _plotted(runs, xy)
    pair = partners(plotted, xy.x)
    ticks = [wrapped(t, 18) for t in tick_labels(plotted, xy.x, values, pair, lambda v: value_text(xy.x, v))]
    for i, (ax, panel) in enumerate(zip(axes.flat, panels)):
        mine = [p for p in found if p.panel == panel]
        if numeric:
            _lines(ax, mine, styles, values, log)
        else:
            _bars(ax, mine, styles, values, most)
            ax.grid(axis="x", visible=False)
        ax.set_xticklabels(ticks, fontsize=8, rotation=30 if len(values) > 8 else 0)
        if panel:
            ax.set_title(wrapped(panel, 44), fontsize=8)
        if i % cols == 0:
            ax.set_ylabel(metric_axis(xy.y))
        if i >= len(panels) - cols:
            ax.set_xlabel(wrapped(axis_label(key_axis(xy.x, log), pair), int(width * 9)), fontsize=9)
        style(ax)
    # Once every panel is drawn (they share it), with room for the top marker and error bar.
    axes.flat[0].set_ylim(0, 1.08 * max(p.mean + p.spread[1] for p in found) or 1.0)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    _legend(fig, xy, styles, numeric)
    repeats = max(len(p.values) for p in found)
    title = f"{metric_words(xy.y)[:1].upper()}{metric_words(xy.y)[1:]} vs {key_words(xy.x)}" + (
        f", by {key_words(xy.hue)}" if xy.hue else "")
    notes = [_hosts_note(runs, xy)]
    notes += [f"{short(k)} stands for {listed([short(m) for m in more])}, which vary with it"
              for k, more in list(apart(plotted, xy).items())[:NAMED_KEYS] if more]
    if xy.where:
        notes.append("runs with " + ", ".join(f"{short(k)}={v}" for k, v in xy.where))
    if repeats > 1:
        notes.append(f"mean of up to {repeats} runs with identical parameters; error bars: min to max")
    if any(len(p.values) == 1 and p.ci95 is not None for p in found):
        notes.append("a run measured over windows or repeats: its error bar is the 95% confidence "
                     "interval of its mean")
    fig.suptitle(title, x=0.01, ha="left", fontsize=11, fontweight="bold")
    fig.text(0.01, 1 - 0.35 / height, wrapped("; ".join(notes), 130), ha="left", va="top", fontsize=8,
             color="#444444")
    fig.tight_layout(rect=(0, 0, 1, 1 - HEADER_IN / height))
    return fig, title


def _hosts_note(runs: Sequence[Run], xy: XY) -> str:
    """Which hosts are drawn, and what they are: a reader must know whose throughput it is."""
    roles = {r.params.get(f"hosts.{h}.role", r.params.get("host.role")) for r in runs for h in xy.hosts}
    what = {"server": "the receiving side of a stream", "client": "no server has this metric"}
    role = next(iter(roles)) if len(roles) == 1 else None
    return (f"host {', '.join(xy.hosts)}" + (f" ({what[role]})" if role in what else "")
            + "; --host chooses another")


def _legend(fig, xy: XY, styles: _Styles, numeric: bool) -> None:
    """One entry per hue value (its colour), then one per host and workload (its line style)."""
    handles, labels = [], []
    if xy.hue:
        for hue in styles.hues:
            handles.append(Line2D([], [], color=styles(hue, styles.lines[0])[0], linewidth=6 if not numeric else 2,
                                  marker=None if not numeric else "o"))
            labels.append(wrapped(value_text(xy.hue, hue)))
    if len(styles.lines) > 1:
        for line in styles.lines:
            _, linestyle, marker = styles(styles.hues[0], line)
            handles.append(Line2D([], [], color="#555555", linestyle=linestyle, marker=marker))
            labels.append(wrapped(line))
    if handles:
        fig.legend(handles, labels, title=wrapped(key_words(xy.hue)) if xy.hue else None, frameon=False,
                   loc="upper left", bbox_to_anchor=(1.0, 0.9), fontsize=8, title_fontsize=8)


def _yerr(mine: Sequence[Point]) -> list[list[float]] | None:
    return error_bars([p.spread if len(p.values) > 1 or p.ci95 is not None else None for p in mine])


def error_bars(spreads: Sequence[tuple[float, float] | None]) -> list[list[float]] | None:
    """matplotlib's `yerr` of points with these spreads below and above their values: none
    where no point has one; a point without one (None) gets no bar rather than one of length 0,
    whose caps would claim an interval it was not measured with."""
    if all(s is None for s in spreads):
        return None
    return [[math.nan if s is None else s[side] for s in spreads] for side in (0, 1)]
