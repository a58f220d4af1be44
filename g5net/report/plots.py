"""The report's fixed plots (figure_files.py writes them as PNG, SVG and PDF).

A line plot is drawn only where the sweep varies its x parameter; every other
varying parameter that does not follow from x (nic.attach, nic.mtu, ...) makes
its own coloured series, and each host its own line style. Where that would
take more series than there are colours (a folder of unrelated runs), the plot
is left out with a note: `g5net report --x --y --where` draws such runs apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib.ticker import FuncFormatter

from ..metrics.profile import CATEGORIES
from .axes import axis_label, tick_labels
from .figure_files import SERIES_COLOURS, Figure, plt, save, style
from .labels import key_axis, metric_axis, run_label, scale, value_text, wrapped
from .render import Note
from .runs import Run, independent, partners, varying
from .tables import rows


@dataclass(frozen=True)
class LinePlot:
    name: str  # file name without its extension
    title: str
    x: str  # a workload parameter: workloads.<name>.<x>
    panels: tuple[str, ...]  # a metric each, labelled and scaled as labels.py says


LINE_PLOTS = (
    LinePlot("bandwidth-cpu-vs-msg-size", "Bandwidth and CPU utilisation vs message size",
             "msg_bytes", ("throughput_mbps", "cpu_util")),
    LinePlot("misses-vs-connections", "Cache misses per packet vs connections", "streams",
             ("l1i_misses_per_pkt", "l1d_misses_per_pkt", "l2_misses_per_pkt")),
    LinePlot("ctxt-intr-vs-connections", "Context switches and interrupts vs connections", "streams",
             ("ctxt_per_s", "intr_per_s", "ctxt_per_pkt", "intr_per_pkt")),
)

# One colour per category, stable across reports; warm for the network path,
# greys for the rest of the kernel, blue for the application.
CATEGORY_COLOURS = {"driver": "#d62728", "stack": "#ff7f0e", "socket": "#2ca02c", "buffer": "#bcbd22",
                    "copy": "#9467bd", "kernel": "#7f7f7f", "application": "#1f77b4"}
HOST_STYLES = ("-", "--", ":", "-.")
HOST_MARKERS = ("o", "s", "^", "D")


def _line_plot(plot: LinePlot, runs: Sequence[Run], out: Path) -> Figure | Note | None:
    # series key -> x -> value, per panel
    data: dict[str, dict[tuple, list[tuple[float, float]]]] = {p: {} for p in plot.panels}
    workloads = sorted({w for r, _, w, _ in rows(runs) if f"workloads.{w}.{plot.x}" in varying(runs)})
    hosts = sorted({h for r, h, w, _ in rows(runs) if w in workloads})
    for w in workloads:
        xkey = f"workloads.{w}.{plot.x}"
        others = independent(runs, xkey)
        for r, h, wl, m in rows(runs):
            if wl != w:
                continue
            series = (run_label(r, others) if others else "", h, w if len(workloads) > 1 else "")
            for p in plot.panels:
                if isinstance(m.get(p), (int, float)):
                    data[p].setdefault(series, []).append((r.params[xkey], m[p] * scale(p)))
    panels = [p for p in plot.panels if data[p]]
    if not panels:
        return None
    groups = sorted({s[0] for d in data.values() for s in d})
    if len(groups) > len(SERIES_COLOURS):
        return Note(plot.title, f"Left out: these runs differ in {len(others)} parameters besides "
                                f"{plot.x}, {len(groups)} series, more than a legend can tell apart. "
                                f"`g5net report --x {plot.x} --y {panels[0]} --where KEY=VALUE` "
                                f"draws some of them.")
    ncols = 2 if len(panels) == 4 else len(panels)
    nrows = (len(panels) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.6 * nrows), squeeze=False)
    # Keys zipped with or derived from x are named on the axis (one workload's x only).
    xkey = f"workloads.{workloads[0]}.{plot.x}"
    pair = partners(runs, xkey) if len(workloads) == 1 else []
    for ax, p in zip(axes.flat, panels):
        for series, points in sorted(data[p].items()):
            group, host, wl = series
            points.sort()
            hi = hosts.index(host) % len(HOST_STYLES)
            name = " ".join(x for x in (group, host, wl) if x)
            ax.plot([x for x, _ in points], [y for _, y in points], label=wrapped(name),
                    color=SERIES_COLOURS[groups.index(group) % len(SERIES_COLOURS)],
                    linestyle=HOST_STYLES[hi], marker=HOST_MARKERS[hi], markersize=5, linewidth=1.8)
        xs = sorted({x for pts in data[p].values() for x, _ in pts})
        log = xs[0] > 0 and xs[-1] / xs[0] >= 8
        if log:
            ax.set_xscale("log", base=2)
        ax.set_xticks(xs)
        ax.xaxis.set_minor_locator(plt.NullLocator())
        if pair:
            ax.set_xticklabels(tick_labels(runs, xkey, xs, pair, lambda v: value_text(xkey, v)), fontsize=8)
        else:
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: value_text(xkey, v)))
        # Several workloads' x: the key without the workload it belongs to.
        ax.set_xlabel(axis_label(key_axis(xkey if len(workloads) == 1 else plot.x, log), pair))
        ax.set_ylabel(metric_axis(p))
        ax.set_ylim(bottom=0)
        style(ax)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=min(len(labels), 4), frameon=False,
               bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(plot.title, y=1.0 + 0.06 * ((len(labels) + 3) // 4), fontsize=12, fontweight="bold")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.08 * ((len(labels) + 3) // 4) / nrows))
    return save(fig, out, plot.name, plot.title)


def _breakdown(runs: Sequence[Run], out: Path) -> Figure | None:
    """Stacked bars, one per run, host and workload: time per packet by category
    (share of CPU time where packets were not counted)."""
    found = [(r, h, w, m) for r, h, w, m in rows(runs) if f"time_{CATEGORIES[0]}_pct" in m]
    if not found:
        return None
    keys = varying([r for r, *_ in found])
    per_pkt = all(f"time_{CATEGORIES[0]}_us_per_pkt" in m for *_, m in found)
    suffix = "us_per_pkt" if per_pkt else "pct"
    names = [wrapped(f"{run_label(r, keys) if keys else ''} {h}/{w}".strip(), 48) for r, h, w, _ in found]
    lines = max(n.count("\n") + 1 for n in names)
    fig, ax = plt.subplots(figsize=(9, min(12.0, 0.9 + (0.25 + 0.17 * lines) * len(found))))
    left = [0.0] * len(found)
    for c in CATEGORIES:
        values = [m.get(f"time_{c}_{suffix}", 0.0) for *_, m in found]
        bars = ax.barh(names, values, left=left, color=CATEGORY_COLOURS[c], label=c, height=0.6,
                       edgecolor="white", linewidth=0.6)
        total = [sum(m.get(f"time_{k}_{suffix}", 0.0) for k in CATEGORIES) for *_, m in found]
        for bar, v, t in zip(bars, values, total):
            if t and v / t >= 0.07:  # label only segments wide enough to hold it
                ax.text(bar.get_x() + v / 2, bar.get_y() + bar.get_height() / 2,
                        f"{v:.1f}" if per_pkt else f"{v:.0f}%", ha="center", va="center",
                        color="white", fontsize=8, fontweight="bold")
        left = [a + b for a, b in zip(left, values)]
    ax.invert_yaxis()
    ax.set_xlabel("CPU time per packet (\u00b5s)" if per_pkt else "share of CPU time (%)")
    style(ax)
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(CATEGORIES), frameon=False)
    title = "Where the CPU time goes, per packet" if per_pkt else "Where the CPU time goes"
    ax.set_title(title, fontsize=12, fontweight="bold", pad=28)
    return save(fig, out, "breakdown", title)


def figures(runs: Sequence[Run], out: Path) -> list[Figure | Note]:
    """Write every plot the runs have data for into `out`; a note for one left out."""
    made = [_line_plot(p, runs, out) for p in LINE_PLOTS] + [_breakdown(runs, out)]
    return [f for f in made if f is not None]

