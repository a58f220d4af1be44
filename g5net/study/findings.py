"""Whether each finding of a paper reproduced: its expect.toml relation,
evaluated on the study's runs.

A finding's relation compares pairs of runs that differ only in one key
(g5net/analysis/check.py); each comparison holds, fails, or, where the runs
measured their metrics over windows, may be within noise (the difference is
not significant by Welch's t test at 95 %). Over a finding's comparisons:

    yes            every comparison holds
    partly         some hold, the others fail or are within noise
    no             none holds, and some fail (the rest may be within noise)
    within noise   every comparison is within noise: the runs cannot tell

Nothing to compare (the metric is missing, or the scale lacks the points):
"not measured"; a finding with no relation: "not modelled" (the study says
why). A run in which some host's NICs stalled (metrics/windows.py
NIC_STALLED: frames arrived and none reached memory, though the NIC's wire
figures count them) measured the model's defect, not the knob: no finding
uses it, and its "not measured" says how many were left out. The g5net column gives the measured sides: how many comparisons hold
(and how many are within noise, where some are), the median ratio left/right
of the means over the comparisons, and the values of the first (as mean ±
half-width of the 95 % interval where it has spread).

A magnitude (`measure`) gives its values over the runs instead: with the
paper's `range`, every value inside it is "yes", some "partly", none "no"
(a windowed metric's value is its mean); without one the verdict is
"measured" and the figures and the why compare.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis import check
from ..errors import StudyError
from ..metrics import spread, windows
from ..report.runs import Run, selected
from .builtin import Finding, Study, measured

VERDICTS = ("yes", "partly", "no", "within noise", "measured", "not measured", "not modelled")


@dataclass(frozen=True)
class Row:
    finding: Finding
    verdict: str
    g5net: str
    within_noise: int = 0  # comparisons within noise, for the report's note


def verdict_of(results: Sequence[check.Result]) -> str:
    """A relation's verdict from its comparisons' results (the module docstring's table)."""
    held = results.count(check.Result.HOLDS)
    if held == len(results):
        return "yes"
    if held:
        return "partly"
    return "no" if check.Result.FAILS in results else "within noise"


def _measured(comparisons: Sequence[check.Comparison]) -> str:
    held = sum(c.holds for c in comparisons)
    noise = sum(c.result is check.Result.WITHIN_NOISE for c in comparisons)
    first = comparisons[0]
    ratios = [spread.mean(c.left) / spread.mean(c.right) for c in comparisons if spread.mean(c.right)]
    ratio = f", left/right x{statistics.median(ratios):.3g} (median)" if ratios else ""
    within = f", {noise} within noise" if noise else ""
    return (f"{held}/{len(comparisons)} comparisons hold{within}{ratio}; e.g. {first.host}.{first.workload} "
            f"{check.fmt(first.left, 4)} vs {check.fmt(first.right, 4)}")


def _magnitude(f: Finding, runs: Sequence[Run]) -> Row:
    chosen = [v for r in selected(runs, f.where) if (v := measured(r, f.measure)) is not None]
    if not chosen:
        among = f" among the runs with {', '.join(f'{k} = {v!r}' for k, v in f.where)}" if f.where else ""
        return Row(f, "not measured", f"no run has {f.measure}{among}")
    values = [spread.mean(v) for v in chosen]
    lo, hi = min(values), max(values)
    if len(chosen) == 1:
        # One run: its value with its windows' interval, as a comparison shows it.
        text = check.fmt(chosen[0], 4)
    else:
        text = f"{lo:.4g}" if lo == hi else f"{lo:.4g} to {hi:.4g} over {len(values)} runs"
    if f.range is None:
        return Row(f, "measured", text)
    inside = sum(f.range[0] <= v <= f.range[1] for v in values)
    verdict = "yes" if inside == len(values) else "no" if inside == 0 else "partly"
    return Row(f, verdict, f"{text}; {inside} inside {f.range[0]:g}-{f.range[1]:g}")


def nic_stalled(run: Run) -> bool:
    """Whether some host's NICs stalled in some window of the run (NIC_STALLED)."""
    return any(isinstance(m, dict) and m.get(windows.NIC_STALLED)
               for workloads in run.hosts.values() for m in workloads.values())


def evaluate(study: Study, runs: Sequence[Run]) -> list[Row]:
    stalled = sum(map(nic_stalled, runs))
    runs = [r for r in runs if not nic_stalled(r)]
    left_out = (f" ({stalled} run{'s' * (stalled > 1)} left out: some host's NICs stalled, "
                f"{windows.NIC_STALLED})") if stalled else ""
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
        # A key no run of the scale has (the full scale's replicas) compares
        # nothing here; among the others, the runs that have it (check.compare).
        made = [c for rel in by_name[f.relation] if any(rel.by in r.params for r in runs)
                for c in check.compare(rel, runs)]
        if not made:
            rows.append(Row(f, "not measured", "no two runs to compare" + left_out))
            continue
        results = [c.result for c in made]
        rows.append(Row(f, verdict_of(results), _measured(made), results.count(check.Result.WITHIN_NOISE)))
    return rows
