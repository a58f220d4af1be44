"""A study's figures: g5net's series and the paper's on the same axes (PNG).

g5net's points are solid lines with filled markers, the paper's dashed with
open markers, one colour per series. Where absolute values cannot compare
(different machines), a figure with `normalise = true` divides every series
by its own value at its smallest x, and its axis says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: reports are written on machines without a display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import ScalarFormatter  # noqa: E402

from ..errors import StudyError  # noqa: E402
from ..machine.data_paths import child  # noqa: E402
from ..report.runs import Run, fmt_value, selected  # noqa: E402
from .builtin import Figure, metric  # noqa: E402
from .paper import PaperPoint  # noqa: E402

Series = dict[str, list[tuple[float, float]]]
LOG_X_SPAN = 16


def ours(fig: Figure, runs: Sequence[Run]) -> Series:
    """label -> sorted (x, y) of g5net's runs: one series per value of `hue` (per
    combination of values where it names several parameters)."""
    out: Series = {}
    for r in selected(runs, fig.where):
        value = metric(r, fig.y)
        x = r.params.get(fig.x)
        if not isinstance(value, (int, float)) or not isinstance(x, (int, float)):
            continue
        label = " ".join(["g5net", *(f"{h.rpartition('.')[2]}={fmt_value(r.params.get(h))}"
                                     for h in fig.hue)])
        out.setdefault(label, []).append((float(x), float(value)))
    return {k: sorted(v) for k, v in out.items()}


def theirs(fig: Figure, points: Sequence[PaperPoint]) -> Series:
    out: Series = {}
    for p in points:
        if p.figure == fig.name:
            label = p.series if p.series.startswith("paper") else f"paper {p.series}"
            out.setdefault(label, []).append((p.x, p.y))
    return {k: sorted(v) for k, v in out.items()}


def _normalised(series: Series) -> Series:
    return {k: [(x, y / v[0][1]) for x, y in v] for k, v in series.items() if v and v[0][1]}


def draw(fig: Figure, runs: Sequence[Run], points: Sequence[PaperPoint], out: Path) -> Path | None:
    """The figure as `out/<name>.png`; None when neither g5net nor the paper has a point."""
    # The name is the study's data: it makes a path only where it is a plain file name.
    path = child(out, fig.name, f"figure {fig.name!r}", StudyError, ".png")
    mine, paper = ours(fig, runs), theirs(fig, points)
    if not mine and not paper:
        return None
    if fig.normalise:
        mine, paper = _normalised(mine), _normalised(paper)
    units = sorted({p.unit for p in points if p.figure == fig.name})
    ylabel = fig.y.split(".")[-1] + (f" ({', '.join(units)})" if units and not fig.normalise else "")
    if fig.normalise:
        ylabel += ", relative to the series' smallest x"
    f, ax = plt.subplots(figsize=(6.4, 4.0))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    # A paper series named for the value of a one-parameter hue ("paper pcie")
    # takes the colour of ours with that value ("g5net attach=pcie").
    slot: dict[str, int] = {}
    for label, xy in [*mine.items(), *paper.items()]:
        xs, ys = zip(*xy)
        paper_series = label.startswith("paper")
        value = label.removeprefix("paper ") if paper_series else \
            " ".join(part.partition("=")[2] for part in label.split()[1:])
        i = slot.setdefault(value, len(slot))
        ax.plot(xs, ys, linestyle="--" if paper_series else "-", marker="o",
                markerfacecolor="none" if paper_series else None, color=colours[i % len(colours)],
                label=label)
    ax.set_xlabel(fig.x)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{fig.title} (paper: {fig.paper_ref})", fontsize=10)
    xs_all = {x for xy in [*mine.values(), *paper.values()] for x, _ in xy}
    # Sizes that span powers of two (64 B to 64 KiB) read best on a log axis,
    # labelled in plain numbers; a narrower range (MTUs) stays linear.
    if len(xs_all) >= 2 and min(xs_all) > 0 and max(xs_all) / min(xs_all) >= LOG_X_SPAN:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    f.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    f.savefig(path, dpi=130)
    plt.close(f)
    return path
