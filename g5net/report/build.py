"""A report of a run or a sweep: tables first for a single run, plots first for a sweep."""

from __future__ import annotations

from pathlib import Path

from . import plots, render, tables
from .runs import load, short, varying


def build(source: Path, out: Path) -> list[Path]:
    """Write report.md, report.html and their PNGs into `out`; returns the files written."""
    runs = load(source)
    out.mkdir(parents=True, exist_ok=True)
    figures = plots.figures(runs, out)
    found = [tables.summary(runs), tables.breakdown(runs), tables.top_functions(runs)]
    keys = varying(runs)
    meta = (f"{len(runs)} run(s) from {source}"
            + (f"; varying {', '.join(short(k) for k in keys)}" if keys else "")
            + f"; status: {', '.join(sorted({r.status for r in runs}))}")
    sections = [*figures, *(t for t in found if t is not None)]
    md, htm = render.write(out, f"g5net report: {source.name}", meta, sections)
    return [md, htm] + [out / f.file for f in figures]
