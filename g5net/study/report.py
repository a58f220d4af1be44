"""A study's report: `report.md` with each figure (g5net beside the paper) and
the summary table finding | paper | g5net | reproduced | why."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .. import atomic
from ..report.runs import Run
from . import figures, findings, paper
from .catalog import Study

REPORT = "report.md"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def summary_table(rows: Sequence[findings.Row]) -> list[str]:
    lines = ["| finding | paper | g5net | reproduced | why |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append("| " + " | ".join(_cell(c) for c in (r.finding.text, r.finding.paper, r.g5net,
                                                            r.verdict, r.finding.why or "-")) + " |")
    return lines


def write(study: Study, runs: Sequence[Run], source: str, provenance: dict,
          out: Path) -> tuple[Path, list[findings.Row]]:
    """The report of `runs` (the study's results from `source`) under `out`, and its summary rows."""
    points = paper.load(study.paper_csv)
    rows = findings.evaluate(study, runs)
    lines = [f"# {study.title}", "", f"Paper: {study.paper}", "", study.about, "",
             f"Results: {source}, {len(runs)} runs; " + (
                 f"the committed {provenance['scale']} scale, made by gem5 "
                 f"{', '.join(provenance['gem5_version'])} with configs {provenance['configs_digest'][:12]}."
                 if provenance else "not the committed results."),
             "", "## Summary", "", *summary_table(rows), ""]
    if study.stand_ins:
        lines += ["## What stands in for what the paper had", "", "| the paper | g5net |", "| --- | --- |"]
        lines += [f"| {_cell(s.paper)} | {_cell(s.g5net)} |" for s in study.stand_ins]
        lines.append("")
    lines += ["## Figures", ""]
    for fig in study.figures:
        png = figures.draw(fig, runs, points, out)
        lines.append(f"### {fig.title} (paper: {fig.paper_ref})")
        lines.append("")
        lines.append(f"![{fig.title}]({png.name})" if png else
                     "No point of g5net or the paper has this figure's metric yet.")
        lines.append("")
    out.mkdir(parents=True, exist_ok=True)
    return atomic.write_text(out / REPORT, "\n".join(lines) + "\n"), rows
