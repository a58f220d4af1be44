"""A report of a run or a sweep: tables first for a single run, plots first for a sweep."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from . import plots, render, tables, xy_plot
from .figure_files import Figure
from .runs import load, short, varying


def build(sources: Sequence[Path], out: Path, xy: xy_plot.XY | None = None) -> list[Path]:
    """Write report.md, report.html and their figures into `out`, with the plot
    `xy` first where one is asked for; returns the files written. The runs of
    several sources are reported together (a sweep and its repeat)."""
    # A run named twice (a sweep and a folder holding it) is one run, not a repeat.
    runs = list({r.path.resolve(): r for source in sources for r in load(source)}.values())
    xy = xy_plot.resolved(runs, xy) if xy else None  # a bad --x or --y writes nothing
    out.mkdir(parents=True, exist_ok=True)
    figures = ([xy_plot.draw(runs, xy, out)] if xy else []) + plots.figures(runs, out)
    found = [tables.summary(runs), tables.breakdown(runs), tables.top_functions(runs)]
    keys = varying(runs)
    meta = (f"{len(runs)} run(s) from {', '.join(map(str, sources))}"
            + (f"; varying {', '.join(short(k) for k in keys)}" if keys else "")
            + f"; status: {', '.join(sorted({r.status for r in runs}))}")
    sections: list[render.Section] = [*figures, *(t for t in found if t is not None)]
    md, htm = render.write(out, f"g5net report: {', '.join(s.name for s in sources)}", meta, sections)
    return [md, htm] + [out / file for f in figures if isinstance(f, Figure) for file in f.files]
