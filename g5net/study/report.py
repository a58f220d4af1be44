"""A study's report: `report.md` with each figure (g5net beside the paper) and
the summary table finding | paper | g5net | reproduced | why."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..analysis import check
from ..machine import atomic
from ..report import readme as readme_blocks
from ..report import runs as runsmod
from ..report.runs import Run, fmt_value, selected, short, varying
from . import figures, findings, paper
from .builtin import Study, Table, measured, metric
from . import results

REPORT = "report.md"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# Said under a summary table that has a comparison within noise: that verdict is
# about the runs' precision, not a disagreement of the model with the paper.
NOISE_NOTE = ("Within noise: a comparison of metrics measured over windows whose difference is not "
              "significant (Welch's t test, two-sided at 95 %, each window a batch) neither holds nor "
              "fails: the runs cannot tell the two sides apart. A finding is \"within noise\" where "
              "every comparison is, \"partly\" where some hold.")


def summary_table(rows: Sequence[findings.Row], scale: str,
                  so_far: tuple[int, int] | None = None) -> list[str]:
    """The table of findings at `scale` (each with that scale's why), and what
    "within noise" means where a comparison was. With `so_far` (runs, points),
    the scale is under way: its own whys were written by hand on earlier
    results and are marked so, since the runs committed so far may no longer hold the
    figures they quote (they are written again once every point is run)."""
    lines = ["| finding | paper | g5net | reproduced | why |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        why = r.finding.why_at(scale) or "-"
        if so_far and scale in dict(r.finding.why):  # a why of every scale ("not modelled") quotes no run
            why = _earlier(so_far) + why
        lines.append("| " + " | ".join(_cell(c) for c in (r.finding.text, r.finding.paper, r.g5net,
                                                            r.verdict, why)) + " |")
    return lines + (["", NOISE_NOTE] if any(r.within_noise for r in rows) else [])


def _earlier(so_far: tuple[int, int]) -> str:
    """The mark of a why written before its scale's current run."""
    return f"(Written on this scale's earlier results; {so_far[0]} of its {so_far[1]} points run since.) "


# Said under a [[table]] with a value measured with spread.
SPREAD_NOTE = ("mean ± half-width: the 95 % confidence interval of a run's mean over its windows "
               "(or repeats).")


def _number(v: object) -> str:
    """A value check.fmt does not write: a list (per CPU, per core) as its items to 4 digits
    joined by /; anything else that is not a number as -."""
    if isinstance(v, list):
        return "/".join(_number(x) for x in v) or "-"
    return f"{v:.4g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"


def table_lines(table: Table, runs: Sequence[Run]) -> list[str]:
    """A study's [[table]]: one row per selected run, its varying parameters, then the metrics,
    each as `g5net check` writes a value (a measured spread as mean ± half-width)."""
    rows = selected(runs, table.where)
    keys = varying(rows)
    rows = sorted(rows, key=lambda r: [repr(r.params.get(k)) for k in keys])
    head = [short(k) for k in keys] + list(table.columns)
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    any_value = with_spread = False
    for r in rows:
        cells = [fmt_value(r.params.get(k)) for k in keys]
        for c in table.columns:
            value = measured(r, c)
            cells.append(_number(metric(r, c)) if value is None else check.fmt(value, 4))
            any_value |= cells[-1] != "-"
            with_spread |= value is not None and figures.interval(value) is not None
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if not any_value:
        return [f"No run here has these metrics ({', '.join(table.columns)})."]
    return lines + (["", SPREAD_NOTE] if with_spread else [])


def _so_far(provenance: dict) -> str:
    """Of results saved while their sweep still ran: how many of its points."""
    counts = results.so_far(provenance)
    failed = results.failed(provenance)
    return (f" ({counts[0]} of its {counts[1]} points so far" + (f"; {failed} failed" if failed else "") + ")"
            if counts else "")


def write(study: Study, runs: Sequence[Run], source: str, provenance: dict,
          out: Path) -> tuple[Path, list[findings.Row]]:
    """The report of `runs` (the study's results from `source`) under `out`, and its summary rows."""
    points = paper.load(study.paper_csv)
    rows = findings.evaluate(study, runs)
    lines = [f"# {study.title}", "", f"Paper: {study.paper}", "", study.about, "",
             f"Results: {source}, {len(runs)} runs; " + (
                 f"the committed {provenance['scale']} scale{_so_far(provenance)}, made by gem5 "
                 f"{', '.join(provenance['gem5_version'])} with configs {provenance['configs_digest'][:12]}"
                 + "".join(f"; {said}" for said in (results.superseded(provenance), results.images(provenance))
                           if said) + "."
                 if provenance else "not the committed results."),
             "", "## Summary", "", *summary_table(rows, provenance.get("scale", ""),
                                                   results.so_far(provenance) if provenance else None), ""]
    if study.stand_ins:
        lines += ["## What stands in for what the paper had", "", "| the paper | g5net |", "| --- | --- |"]
        lines += [f"| {_cell(s.paper)} | {_cell(s.g5net)} |" for s in study.stand_ins]
        lines.append("")
    for table in study.tables:
        lines += [f"## {table.title}", "", *table_lines(table, runs), ""]
    lines += ["## Figures", ""]
    for fig in study.figures:
        png = figures.draw(fig, runs, points, out)
        lines.append(f"### {fig.title} (paper: {fig.paper_ref})")
        lines.append("")
        lines.append(f"![{fig.title}]({png.name})" if png else
                     f"No run here has a point of this figure ({fig.y} against {fig.x}"
                     + (", " + ", ".join(f"{k} = {fmt_value(v)}" for k, v in fig.where) if fig.where else "")
                     + "), and the paper gives none.")
        lines.append("")
    out.mkdir(parents=True, exist_ok=True)
    return atomic.write_text(out / REPORT, "\n".join(lines) + "\n"), rows


README_BEGIN = "<!-- study summaries: written by `make docs` from studies/*/results -->"
README_END = "<!-- end of study summaries -->"


def readme_block(studies: Sequence[Study]) -> str:
    """The README's study section: each study's summary table on the committed
    results of its largest whole scale (results.largest) and a link to that
    scale's report, and a line for each larger scale under way; a study
    without results says so."""
    lines = [README_BEGIN, ""]
    for study in studies:
        lines += [f"### {study.title}", ""]
        have = results.committed(study)
        if not have:
            lines += [f"No committed results yet: `g5net study run {study.name}`.", ""]
            continue
        scale = results.largest(study)
        runs = runsmod.load(study.results(scale))
        lines += [f"[Report with figures]({_report_link(study, scale)}) · "
                  f"`g5net study run {study.name}` · {len(runs)} runs, {scale} scale", ""]
        if older := results.superseded(results.provenance(study, scale)):
            lines += [f"These results were {older}.", ""]
        for larger in have[have.index(scale) + 1:]:
            done, points = results.under_way(study, larger) or (0, 0)
            failed = results.failed(results.provenance(study, larger))
            lines += [f"The {larger} scale is under way: {done} of its {points} points committed"
                      + (f", {failed} failed (its report says why)" if failed else "")
                      + f" ([report]({_report_link(study, larger)})).", ""]
        lines += [*summary_table(findings.evaluate(study, runs), scale, results.under_way(study, scale)), ""]
    return "\n".join([*lines, README_END])


def _report_link(study: Study, scale: str) -> Path:
    return study.report_dir(scale).relative_to(study.path.parents[1]) / REPORT


def with_readme_block(readme: str, block: str) -> str:
    """`readme` with its study section replaced by `block`."""
    return readme_blocks.with_block(readme, README_BEGIN, README_END, block)
