"""Expectations on the metrics of a run or a sweep (`g5net check`).

An expectations file is TOML::

    # Every run must have finished with status "done" (the default).
    require_done = true

    # Bounds: a metric against a number, in every run.
    bounds = [
        "client.stream.intr_per_pkt < 5",    # HOST.WORKLOAD.METRIC
        "l1d_misses_per_pkt < 50",           # METRIC: every host and workload
        "*.stream.throughput_mbps > 0",      # HOST and WORKLOAD are globs
        "sum(time_*_pct) == 100",            # sum(): the metrics a glob matches, added
    ]

    # Relations: points of a sweep against each other.
    [[relation]]
    by = "host.nic.attach"                   # a sweep path (see g5net.model.sweep)
    expect = ["integrated.throughput_mbps >= pcie.throughput_mbps"]
    name = "inic-faster"                     # optional: what a study's finding cites

    [[relation]]                             # the right side may be scaled by a number
    by = "workloads.stream.window_bytes"
    expect = ["1048576.received_mbps <= 1.25 * 65536.received_mbps"]
    where = {"workloads.stream.profile" = false}   # optional: only the runs with these values

A reference is `[HOST.WORKLOAD.]METRIC`, a name of metrics.json; with one
segment it means every host and workload *where the metric is present*. The
HOST `aggregate` is every client of the workload together (metrics.json's
`aggregate`: throughputs summed, latency mean and max). In a
relation each side starts with a value of the `by` key (`integrated.`), and
the relation must hold between every two runs that differ only in that key
(and in keys that follow from it); both sides address the same host and
workload. Operators: < <= > >= == != (== and != compare to a relative 1e-9).

A check that finds nothing to compare fails: a misspelt metric is not a pass.

Values with spread. A run that measures its steady state in N windows gives
each windowed metric as the mean over the windows, with the 95 % confidence
interval of that mean (metrics.json's `spread`; g5net/metrics/spread.py); a
run of experiment.repeats gives the mean over its repeats, with theirs.
Where either side of a comparison has spread, the comparison asks first
whether the difference is larger than its uncertainty: Welch's t test,
two-sided at the 95 % level (each window a batch, the standard error of a
side sd/sqrt(N), Welch-Satterthwaite degrees of freedom). A side without
spread (a number, a metric measured once, or windows all alike, sd 0) is a
constant, which makes it the one-sample t test; a bound always is. Then:

    < <= > >=   holds where the difference is significant and in the
                operator's direction, fails where it is significant the other
                way, and is otherwise "within noise" (< and <= alike: noise
                cannot tell a tie from a small difference)
    ==          holds where the difference is not significant, fails where it is
    !=          holds where the difference is significant, fails where it is not

Where neither side varies the comparison is exact, as above. `K * RIGHT`
scales the right side's mean and sd by K. sum() adds the means, and the sds in
quadrature, which assumes the summed metrics vary independently from window
to window. The window and repeat keys (`n_windows`, `spread`, `per_window`,
`n_repeats`, `within_run`, `per_repeat`) are not metrics: a glob never
matches them.

A comparison within noise is not a failure (the exit status stays 0), but is
reported as such, with each side as mean ± half-width of its interval:
`... client.stream is 951.2 ± 8.1 in A vs 948.0 ± 7.5 in B (95% CI): within noise`.
"""

from __future__ import annotations

import math
import operator
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from ..errors import CheckError, quoted
from ..machine import bounded_read
from ..metrics import spread
from ..metrics.spread import Spread, Value
from ..report.runs import Run, fmt_value, independent, selected
from ..spec import AGGREGATE

_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt,
    "==": lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9),
    "!=": lambda a, b: not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9),
}
_EXPR = re.compile(r"^\s*(?P<lhs>\S.*?)\s*(?P<op><=|>=|==|!=|<|>)\s*(?P<rhs>\S.*?)\s*$")
_SUM = re.compile(r"^sum\((?P<ref>[^()]*)\)$")
_SEGMENT = re.compile(r"^[\w*?\[\]!+-]+$")
_KEYS = ("require_done", "bounds", "relation")


@dataclass(frozen=True)
class Ref:
    host: str  # glob
    workload: str  # glob
    metric: str  # a name; a glob only under sum()
    summed: bool

    def values(self, run: Run) -> Iterator[tuple[str, str, Value]]:
        """(host, workload, value) for every host and workload where the metric is present;
        the host `aggregate` (every client together) only where named so."""
        hosts = {AGGREGATE: run.aggregate} if self.host == AGGREGATE else run.hosts
        for host, workloads in hosts.items():
            if not fnmatchcase(host, self.host):
                continue
            for wl, metrics in workloads.items():
                if not fnmatchcase(wl, self.workload):
                    continue
                value = self._value(metrics)
                if value is not None:
                    yield host, wl, value

    def _value(self, metrics: Mapping[str, Any]) -> Value | None:
        if not self.summed:
            return spread.measured(metrics, self.metric)
        parts = [v for k in metrics if k not in spread.WINDOW_KEYS and fnmatchcase(k, self.metric)
                 and (v := spread.measured(metrics, k)) is not None]
        return spread.total(parts) if parts else None


@dataclass(frozen=True)
class Bound:
    where: str  # `bounds[2]`, for messages
    text: str
    ref: Ref
    op: str
    number: float
    ref_left: bool  # `ref OP number` rather than `number OP ref`

    def judge(self, value: Value) -> Result:
        a, b = (value, self.number) if self.ref_left else (self.number, value)
        return judge(a, self.op, b)


@dataclass(frozen=True)
class Relation:
    where: str
    text: str
    by: str
    left_label: str
    left: Ref
    op: str
    right_label: str
    right: Ref
    name: str = ""  # the [[relation]] table's, for the study finding it tests
    factor: float = 1.0  # the right side is this times the right run's value
    # The table's `where`: only runs with these parameter values are compared.
    only: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Expectations:
    source: str
    require_done: bool
    bounds: tuple[Bound, ...]
    relations: tuple[Relation, ...]


# ------------------------------------------------------------------ parsing


def _line_of(text: str, needle: str) -> str:
    """`line N` of the first line holding `needle`, for messages; "" if none does."""
    for n, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return f"line {n}"
    return ""


def _ref(text: str, where: str, labelled: bool) -> tuple[str, Ref]:
    m = _SUM.match(text)
    body = m["ref"].strip() if m else text
    segments = body.split(".")
    label = ""
    if labelled:
        if len(segments) < 2:
            raise CheckError(f"{where}: {quoted(text)} needs a value of the 'by' key first, "
                             f"e.g. integrated.{text}")
        label, segments = segments[0], segments[1:]
    if len(segments) == 1:
        host, wl, metric = "*", "*", segments[0]
    elif len(segments) == 3:
        host, wl, metric = segments
    else:
        raise CheckError(f"{where}: {quoted(text)} is not [HOST.WORKLOAD.]METRIC "
                         f"(a reference has 1 or 3 dotted parts; use * for any host or workload)")
    for s in (label, host, wl, metric):
        if s and not _SEGMENT.match(s):
            raise CheckError(f"{where}: {quoted(s)} in {quoted(text)} is not a name or glob")
    if not m and any(c in metric for c in "*?["):
        raise CheckError(f"{where}: metric {quoted(metric)} is a glob; write sum({body}) to add up what it matches")
    return label, Ref(host, wl, metric, summed=bool(m))


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _split(expr: Any, where: str) -> tuple[str, str, str]:
    if not isinstance(expr, str):
        raise CheckError(f"{where}: expected a string like \"METRIC < 5\", got {quoted(expr)}")
    m = _EXPR.match(expr)
    if not m:
        raise CheckError(f"{where}: {quoted(expr)} is not 'LEFT OP RIGHT' with OP one of {' '.join(_OPS)}")
    return m["lhs"], m["op"], m["rhs"]


def _bound(expr: Any, where: str) -> Bound:
    lhs, op, rhs = _split(expr, where)
    lnum, rnum = _number(lhs), _number(rhs)
    if rnum is not None and lnum is None:
        ref_text, number = lhs, rnum
    elif lnum is not None and rnum is None:
        ref_text, number = rhs, lnum
    else:
        raise CheckError(f"{where}: {quoted(expr)}: a bound compares one metric with one number "
                         f"(relations between points go under [[relation]])")
    _, ref = _ref(ref_text, where, labelled=False)
    return Bound(where, expr, ref, op, number, ref_left=rnum is not None)


def _relation(expr: Any, by: str, where: str, name: str, only: tuple[tuple[str, Any], ...]) -> Relation:
    lhs, op, rhs = _split(expr, where)
    factor = 1.0
    number, star, rest = rhs.partition("*")
    if star and _number(number.strip()) is not None:
        factor, rhs = float(number), rest.strip()
        if not factor > 0:
            raise CheckError(f"{where}: {quoted(expr)}: the factor must be a positive number")
    llabel, left = _ref(lhs, where, labelled=True)
    rlabel, right = _ref(rhs, where, labelled=True)
    if (left.host, left.workload) != (right.host, right.workload):
        raise CheckError(f"{where}: {quoted(expr)}: both sides must address the same HOST.WORKLOAD")
    return Relation(where, expr, by, llabel, left, op, rlabel, right, name, factor, only)


def _string_list(value: Any, key: str) -> list[str]:
    if not isinstance(value, list):
        raise CheckError(f"{key}: expected a list of strings, got {quoted(value)}")
    return value


def parse(text: str, source: str = "expectations") -> Expectations:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CheckError(f"{source}: not valid TOML: {e}") from e
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise CheckError(f"{source}: {_line_of(text, unknown[0])}: {unknown[0]}: unknown key "
                         f"(allowed: {', '.join(_KEYS)})")
    require_done = data.get("require_done", True)
    if not isinstance(require_done, bool):
        raise CheckError(f"{source}: require_done: expected true or false, got {quoted(require_done)}")

    def located(key: str, expr: Any) -> str:
        line = _line_of(text, expr) if isinstance(expr, str) else ""
        return f"{key} ({line})" if line else key

    def checked(build: Callable[..., Any], *args: Any) -> Any:
        try:
            return build(*args)
        except CheckError as e:
            raise CheckError(f"{source}: {e}") from None

    bounds = tuple(checked(_bound, b, located(f"bounds[{i}]", b))
                   for i, b in enumerate(_string_list(data.get("bounds", []), f"{source}: bounds")))
    relations = []
    tables = data.get("relation", [])
    if not isinstance(tables, list):
        raise CheckError(f"{source}: relation: write [[relation]] tables, each with 'by' and 'expect'")
    for i, table in enumerate(tables):
        key = f"relation[{i}]"
        extra = sorted(set(table) - {"by", "expect", "name", "where"})
        if extra or not isinstance(table.get("by"), str) or "expect" not in table \
                or not isinstance(table.get("name", ""), str) \
                or not isinstance(table.get("where", {}), dict):
            raise CheckError(f"{source}: {key}: needs by = \"SPEC.PATH\" and expect = [...], "
                             f"and may have name = \"...\" and where = {{PATH = VALUE, ...}}"
                             + (f" (unknown: {', '.join(extra)})" if extra else ""))
        only = tuple(sorted(table.get("where", {}).items()))
        for j, expr in enumerate(_string_list(table["expect"], f"{source}: {key}.expect")):
            relations.append(checked(_relation, expr, table["by"], located(f"{key}.expect[{j}]", expr),
                                     table.get("name", ""), only))
    if not bounds and not relations:
        raise CheckError(f"{source}: no bounds and no [[relation]]: nothing to check")
    return Expectations(source, require_done, bounds, tuple(relations))


def load(path: Path) -> Expectations:
    try:
        text = bounded_read.read_text(path)
    except OSError as e:
        raise CheckError(f"{path}: cannot read: {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise CheckError(f"{path}: not UTF-8 text (byte {e.start})") from None
    return parse(text, str(path))


# --------------------------------------------------------------- evaluation


class Result(Enum):
    """What one comparison found."""
    HOLDS = "holds"
    FAILS = "fails"
    WITHIN_NOISE = "within noise"


def judge(a: Value, op: str, b: Value, factor: float = 1.0) -> Result:
    """Whether `a OP factor * b` holds: exactly where neither side varies,
    else by Welch's t test as the module docstring says."""
    d = spread.welch(a, b, factor)
    if d.exact:
        return Result.HOLDS if _OPS[op](spread.mean(a), factor * spread.mean(b)) else Result.FAILS
    if op in ("==", "!="):
        return Result.HOLDS if d.significant == (op == "!=") else Result.FAILS
    if not d.significant:
        return Result.WITHIN_NOISE
    return Result.HOLDS if _OPS[op](d.estimate, 0.0) else Result.FAILS


@dataclass(frozen=True)
class Outcome:
    checked: int  # comparisons made
    failures: tuple[str, ...]  # one readable line each
    within_noise: tuple[str, ...] = ()  # comparisons neither held nor failed: one line each


def fmt(v: Value, digits: int = 6) -> str:
    """A value for a message: a number to `digits` significant digits; a Spread
    as `mean ± half-width` of its 95 % interval, both to the half-width's second
    significant digit, as a measurement is written. A half-width below a
    millionth of the mean is rounding in the sum, not spread (a CPU busy in
    every window reads 1.000000000000006 ± 0.000000000000015): no ±."""
    if not isinstance(v, Spread) or not v.ci95 > 1e-6 * abs(v.mean):
        return f"{spread.mean(v):.{digits}g}"
    places = max(0, 1 - math.floor(math.log10(v.ci95)))
    return f"{v.mean:.{places}f} ± {v.ci95:.{places}f}"


def _noted(line: str, result: Result, *values: Value) -> str:
    """`line` with what its ± means, where a value has one, and `within noise` where so."""
    ci = " (95% CI)" if any(isinstance(v, Spread) and v.ci95 > 0 for v in values) else ""
    return line + ci + (": within noise" if result is Result.WITHIN_NOISE else "")


# A check's comparisons that did not hold: (FAILS or WITHIN_NOISE, line), and how many it made.
Found = tuple[int, list[tuple[Result, str]]]


def _check_bound(b: Bound, runs: Sequence[Run]) -> Found:
    found: list[tuple[Result, str]] = []
    count = 0
    for run in runs:
        for host, wl, value in b.ref.values(run):
            count += 1
            result = b.judge(value)
            if result is not Result.HOLDS:
                line = f"{b.where} {quoted(b.text)}: {host}.{wl} is {fmt(value)} in {run.name}"
                found.append((result, _noted(line, result, value)))
    if not count:
        found.append((Result.FAILS, f"{b.where} {quoted(b.text)}: matched no metric in {len(runs)} run(s)"))
    return count, found


def _groups(runs: Sequence[Run], by: str) -> dict[tuple, list[Run]]:
    """The runs that have `by`, keyed by every varying parameter except `by`
    and those that follow from it. A workload's key is no parameter of a run
    without that workload (10gbe's latency rows run no stream); a key no run
    has is misspelt, an error rather than an empty check."""
    having = [r for r in runs if by in r.params]
    if runs and not having:
        runs[0].param(by)
    others = independent(having, by)
    groups: dict[tuple, list[Run]] = {}
    for r in having:
        groups.setdefault(tuple(repr(r.params.get(k)) for k in others), []).append(r)
    return groups


@dataclass(frozen=True)
class Comparison:
    """One pair of runs a relation compared, on one host and workload."""
    host: str
    workload: str
    left_run: str
    left: Value
    right_run: str
    right: Value  # as measured: the relation's factor is not applied
    result: Result

    @property
    def holds(self) -> bool:
        return self.result is Result.HOLDS


def compare(rel: Relation, runs: Sequence[Run]) -> list[Comparison]:
    """Every comparison `rel` makes among `runs` (those of its `where`): between
    each two runs that differ only in `rel.by` (and keys that follow from it)."""
    out = []
    for group in _groups(selected(runs, rel.only), rel.by).values():
        lefts = [r for r in group if fmt_value(r.param(rel.by)) == rel.left_label]
        rights = [r for r in group if fmt_value(r.param(rel.by)) == rel.right_label]
        # Each run is one point: a run of experiment.repeats has pooled its
        # repeats into one Value per metric already (metrics/repeats.py).
        for lr in lefts:
            for rr in rights:
                right = {(h, w): v for h, w, v in rel.right.values(rr)}
                out += [Comparison(h, w, lr.name, lv, rr.name, right[h, w],
                                   judge(lv, rel.op, right[h, w], rel.factor))
                        for h, w, lv in rel.left.values(lr) if (h, w) in right]
    return out


def _check_relation(rel: Relation, runs: Sequence[Run]) -> Found:
    made = compare(rel, runs)
    found = [(c.result, _noted(f"{rel.where} {quoted(rel.text)}: {c.host}.{c.workload} is {fmt(c.left)} "
                               f"in {c.left_run} vs {fmt(c.right)} in {c.right_run}", c.result, c.left, c.right))
             for c in made if not c.holds]
    if not made:
        values = sorted({fmt_value(r.params[rel.by]) for r in runs if rel.by in r.params})
        among = "".join(f", {k} = {fmt_value(v)}" for k, v in rel.only)
        found.append((Result.FAILS, f"{rel.where} {quoted(rel.text)}: no two runs"
                      f"{' with' + among[1:] if among else ''} differ only in {rel.by} with values "
                      f"{rel.left_label} and {rel.right_label} and both have the metric "
                      f"({rel.by} takes {', '.join(values)})"))
    return len(made), found


def evaluate(exp: Expectations, runs: Sequence[Run]) -> Outcome:
    checked, found = 0, []
    if exp.require_done:
        for r in runs:
            checked += 1
            if r.status != "done":
                found.append((Result.FAILS, f"require_done: {r.name} has status {r.status}"))
    for n, lines in [*(_check_bound(b, runs) for b in exp.bounds),
                     *(_check_relation(r, runs) for r in exp.relations)]:
        checked += n
        found += lines
    return Outcome(checked, tuple(line for r, line in found if r is Result.FAILS),
                   tuple(line for r, line in found if r is Result.WITHIN_NOISE))
