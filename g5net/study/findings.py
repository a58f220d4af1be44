"""Whether each finding of a paper reproduced: its expect.toml relation,
evaluated on the study's runs.

A finding's relation compares pairs of runs that differ only in one key
(g5net/analysis/check.py). Every comparison holds: "yes"; some: "partly"; none: "no";
nothing to compare (the metric is missing, or the scale lacks the points):
"not measured"; a finding with no relation: "not modelled" (the study says
why). The g5net column gives the measured sides: the median ratio left/right
over the comparisons, and the values of the first.

A magnitude (`measure`) gives its values over the runs instead: with the
paper's `range`, every value inside it is "yes", some "partly", none "no";
without one the verdict is "measured" and the figures and the why compare.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis import check
from ..errors import StudyError
from ..report.runs import Run
from .builtin import Finding, Study, metric

VERDICTS = ("yes", "partly", "no", "measured", "not measured", "not modelled")


@dataclass(frozen=True)
class Row:
    finding: Finding
    verdict: str
    g5net: str


def _measured(comparisons: Sequence[check.Comparison]) -> str:
    held = sum(c.holds for c in comparisons)
    first = comparisons[0]
    ratios = [c.left / c.right for c in comparisons if c.right]
    ratio = f", left/right x{statistics.median(ratios):.3g} (median)" if ratios else ""
    return (f"{held}/{len(comparisons)} comparisons hold{ratio}; e.g. {first.host}.{first.workload} "
            f"{first.left:.4g} vs {first.right:.4g}")


def _magnitude(f: Finding, runs: Sequence[Run]) -> Row:
    values = [v for r in runs if isinstance(v := metric(r, f.measure), (int, float))]
    if not values:
        return Row(f, "not measured", f"no run has {f.measure}")
    lo, hi = min(values), max(values)
    measured = f"{lo:.4g}" if lo == hi else f"{lo:.4g} to {hi:.4g} over {len(values)} runs"
    if f.range is None:
        return Row(f, "measured", measured)
    inside = sum(f.range[0] <= v <= f.range[1] for v in values)
    verdict = "yes" if inside == len(values) else "no" if inside == 0 else "partly"
    return Row(f, verdict, f"{measured}; {inside} inside {f.range[0]:g}-{f.range[1]:g}")


def evaluate(study: Study, runs: Sequence[Run]) -> list[Row]:
    expectations = check.load(study.expect)
    by_name: dict[str, list[check.Relation]] = {}
    for rel in expectations.relations:
        by_name.setdefault(rel.name, []).append(rel)
    rows = []
    for f in study.findings:
        if f.measure:
            rows.append(_magnitude(f, runs))
            continue
        if not f.relation:
            rows.append(Row(f, "not modelled", "-"))
            continue
        if f.relation not in by_name:
            raise StudyError(f"{study.path / 'study.toml'}: finding {f.name}: no [[relation]] named "
                             f"{f.relation!r} in {study.expect}")
        # A key these runs do not have (the full scale's replicas) compares nothing here.
        made = [c for rel in by_name[f.relation] if all(rel.by in r.params for r in runs)
                for c in check.compare(rel, runs)]
        if not made:
            rows.append(Row(f, "not measured", "no two runs to compare"))
            continue
        held = sum(c.holds for c in made)
        verdict = "yes" if held == len(made) else "no" if held == 0 else "partly"
        rows.append(Row(f, verdict, _measured(made)))
    return rows
