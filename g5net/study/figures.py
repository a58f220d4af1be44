"""A study's figures: g5net's series and the paper's (PNG).

One colour and marker per value of the figure's hue, g5net's points on solid
lines with filled markers, the paper's dashed with open markers; runs that the
figure's `where` and hue leave at one x are series of their own, named by what
tells them apart, never one line through both. A g5net point
measured with spread (over windows or repeats: metrics.json's `spread`) has
its 95% confidence interval as an error bar of its colour. Where the two
compare (one unit, peaks within FAR of each other) they share one axis; where
they do not (our hosts are not the paper's machines), each has its own panel
and axis, so that ours are not squashed flat under the paper's. A figure with
`normalise = true` divides every series, intervals too, by its own value at
its smallest x, and its axis says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import StudyError
from ..metrics import spread
from ..metrics.spread import Spread, Value
from ..model.data_paths import child
from ..report.labels import key_axis, key_unit, metric_axis, metric_unit, printed, scale, value_text, wrapped
from ..report.runs import Run, follows, selected, system_first, varying
from .builtin import Figure, measured
from .paper import PaperPoint

Series = dict[str, list[tuple[float, Value]]]  # label -> (x, y), y a Spread where measured with one
LOG_X_SPAN = 16
FAR = 3.0  # peaks further apart than this factor get an axis each
MARKERS = ("o", "s", "^", "D", "v", "P")
PNG_DPI = 130


def _sorted(series: Series) -> Series:
    return {k: sorted(v, key=lambda xy: (xy[0], spread.mean(xy[1]))) for k, v in series.items()}


def ours(fig: Figure, runs: Sequence[Run]) -> Series:
    """label -> sorted (x, y) of g5net's runs: one series per value of `hue` (per
    combination of values where it names several parameters). Runs that `where`
    and `hue` leave at one x (three I/O sizes at one core count) are not joined
    by one line: the parameters they differ in join their series' labels."""
    chosen = [(r, float(r.params[fig.x]), value) for r in selected(runs, fig.where)
              if (value := measured(r, fig.y)) is not None and isinstance(r.params.get(fig.x), (int, float))]
    keys = [*fig.hue, *_apart(fig, [r for r, _, _ in chosen])]
    out: Series = {}
    for r, x, value in chosen:
        label = " ".join(["g5net", *(f"{k.rpartition('.')[2]}={value_text(k, r.params.get(k))}" for k in keys)])
        out.setdefault(label, []).append((x, spread.scaled(value, scale(fig.y))))
    return _sorted(out)


def _apart(fig: Figure, runs: Sequence[Run]) -> list[str]:
    """The parameters besides the figure's x and hue that tell apart runs one
    series would hold at one x, each but those that follow from the ones before
    it (a zipped partner says nothing more)."""
    at: dict[str, list[Run]] = {}
    for r in runs:
        at.setdefault(repr([r.params.get(k) for k in (fig.x, *fig.hue)]), []).append(r)
    keys: list[str] = []
    for group in (g for g in at.values() if len(g) > 1):
        for k in system_first(varying(group)):
            if k != fig.x and k not in fig.hue and k not in keys and not follows(group, [fig.x, *fig.hue, *keys], k):
                keys.append(k)
    return keys


def theirs(fig: Figure, points: Sequence[PaperPoint]) -> Series:
    out: Series = {}
    for p in points:
        if p.figure == fig.name:
            label = p.series if p.series.startswith("paper") else f"paper {p.series}"
            # A fraction is drawn in percent, as ours is (labels.scale).
            out.setdefault(label, []).append((p.x, p.y * (100 if p.unit == "fraction" else 1)))
    return _sorted(out)


def _normalised(series: Series) -> Series:
    return {k: [(x, spread.scaled(y, 1 / spread.mean(v[0][1]))) for x, y in v]
            for k, v in series.items() if v and spread.mean(v[0][1])}


def interval(v: Value) -> tuple[float, float] | None:
    """Below and above a point: its 95% interval, where it has one wider than nothing."""
    return (v.ci95, v.ci95) if isinstance(v, Spread) and v.ci95 > 0 else None


def _value(fig: Figure, label: str) -> str:
    """The hue value a series stands for, as ours are written: `g5net attach=pcie` and
    `paper pcie` are both pcie; the paper's `65536` of a size is 64 KiB."""
    if label.startswith("g5net"):
        return " ".join(part.partition("=")[2] for part in label.split(" ")[1:])  # not at a size's no-break space
    text = label.removeprefix("paper").strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return value_text(fig.hue[0], int(number) if number == int(number) else number) if len(fig.hue) == 1 else text


def _shown(fig: Figure, label: str, named: dict[str, str], split: bool) -> str:
    """A series' legend entry: named by its hue as ours of that value are (the paper's `65536`
    as `window_bytes=64 KiB`), with whose it is where both share an axis."""
    value = _value(fig, label)
    name = named.get(value) or value
    return name if split else f"{label.partition(' ')[0]} {name}".strip()


def _peak(series: Series) -> float:
    return max((abs(spread.mean(y)) for xy in series.values() for _, y in xy), default=0.0)


def apart(mine: Series, paper: Series, our_unit: str | None, paper_units: Sequence[str]) -> bool:
    """Whether ours and the paper's need an axis each: other units (`our_unit` as labels.metric_unit
    gives it), or peaks more than FAR apart."""
    if not mine or not paper:
        return False
    shown = {"%" if u == "fraction" else u for u in paper_units}
    if shown != {our_unit}:
        return True
    a, b = _peak(mine), _peak(paper)
    return min(a, b) == 0 or max(a, b) / min(a, b) > FAR


def _x_axis(ax, fig: Figure, xs: set[float]) -> None:
    # Sizes that span powers of two (64 B to 64 KiB) read best on a log axis;
    # a narrower range (MTUs) stays linear. Sizes swept in powers of two get a
    # tick each, written as sizes are (64 KiB).
    log = len(xs) >= 2 and min(xs) > 0 and max(xs) / min(xs) >= LOG_X_SPAN
    if log:
        ax.set_xscale("log", base=2)
        ax.minorticks_off()
    if key_unit(fig.x) == "bytes" and all(x > 0 and int(x) & (int(x) - 1) == 0 for x in xs):
        ax.set_xticks(sorted(xs))
        ax.xaxis.set_major_formatter(lambda v, _p: value_text(fig.x, int(v) if v == int(v) else v))
    elif xs and all(x == int(x) for x in xs) and max(xs) - min(xs) <= 16:  # counts: whole numbers
        ax.set_xticks(range(int(min(xs)), int(max(xs)) + 1))
    ax.set_xlabel(wrapped(key_axis(fig.x, log), 44), fontsize=9)


def draw(fig: Figure, runs: Sequence[Run], points: Sequence[PaperPoint], out: Path) -> Path | None:
    """The figure as `out/<name>.png`; None when neither g5net nor the paper has a point."""
    from ..report.figure_files import plt  # pyplot only when a figure is drawn: `g5net --help` imports us

    # The name is the study's data: it makes a path only where it is a plain file name.
    path = child(out, fig.name, f"figure {fig.name!r}", StudyError, ".png")
    f = figure(fig, runs, points)
    if f is None:
        return None
    out.mkdir(parents=True, exist_ok=True)
    f.savefig(path, dpi=PNG_DPI)
    plt.close(f)
    return path


def figure(fig: Figure, runs: Sequence[Run], points: Sequence[PaperPoint]) -> Any:
    """The figure as matplotlib's open figure; None when neither g5net nor the paper has a point."""
    from ..report.figure_files import SERIES_COLOURS, plt, style
    from ..report.xy_plot import error_bars

    mine, paper = ours(fig, runs), theirs(fig, points)
    if not mine and not paper:
        return None
    if fig.normalise:
        mine, paper = _normalised(mine), _normalised(paper)
    paper_units = sorted({p.unit for p in points if p.figure == fig.name})
    our_axis = metric_axis(fig.y)
    split = not fig.normalise and apart(mine, paper, metric_unit(fig.y), paper_units)
    f, axes = plt.subplots(1, 2 if split else 1, figsize=(10.0 if split else 6.4, 4.0), squeeze=False,
                           sharex=True)
    slot: dict[str, int] = {}  # hue value -> colour and marker: the paper's pcie is ours's colour
    # Each panel says whose it is: a series is named by its hue, the paper's as ours of that
    # value (by the hue's part of ours' names where the parameters of _apart join them).
    named = {_value(fig, k): k.removeprefix("g5net ") for k in mine}
    for k in mine:
        hue = k.split(" ")[1:1 + len(fig.hue)]  # not at a size's no-break space
        named.setdefault(" ".join(part.partition("=")[2] for part in hue), " ".join(hue))
    # Every series is an error bar container, one with no bars where none has spread
    # (the paper's): the legend keeps the order they are drawn in.
    for label, xy in [*mine.items(), *paper.items()]:
        on_paper = label.startswith("paper")
        ax = axes[0][1] if split and on_paper else axes[0][0]
        i = slot.setdefault(_value(fig, label), len(slot))
        ax.errorbar([x for x, _ in xy], [spread.mean(y) for _, y in xy],
                    yerr=error_bars([interval(y) for _, y in xy]), capsize=3, elinewidth=1.2,
                    linestyle="--" if on_paper else "-", marker=MARKERS[i % len(MARKERS)],
                    markerfacecolor="none" if on_paper else None, color=SERIES_COLOURS[i % len(SERIES_COLOURS)],
                    label=wrapped(_shown(fig, label, named, split)),
                    markersize=6, linewidth=1.8)
    xs_all = {x for xy in [*mine.values(), *paper.values()] for x, _ in xy}
    ylabel = ("relative to the series' value at the smallest x" if fig.normalise else our_axis)
    axes[0][0].set_ylabel(wrapped(ylabel, 40))
    if split:
        axes[0][0].set_title("g5net", fontsize=9)
        axes[0][1].set_title(f"the paper ({fig.paper_ref})", fontsize=9)
        unit = printed("%" if paper_units == ["fraction"] else ", ".join(paper_units))
        axes[0][1].set_ylabel(wrapped(f"{our_axis.partition(' (')[0]} ({unit})", 40))
    for ax in axes[0]:
        _x_axis(ax, fig, xs_all)
        # The caps are lines too, NaN where a point has no bar: the points' own lines give the top.
        top = max((y for c in ax.containers for y in c.lines[0].get_ydata()), default=1.0)
        ax.set_ylim(0, max(ax.get_ylim()[1], 1.08 * top))  # a point at the top keeps its whole marker
        style(ax)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, frameon=False)
    f.suptitle(f"{fig.title} (paper: {fig.paper_ref})" + (
        "\ng5net and the paper each on an axis of their own: their values are far apart" if split else "") + (
        "\nerror bars: the 95% confidence interval of a g5net run's mean over its windows or repeats"
        if any(interval(y) for xy in mine.values() for _, y in xy) else ""), fontsize=10)
    f.tight_layout()
    return f
