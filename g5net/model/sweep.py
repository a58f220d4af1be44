"""Sweep expansion: one spec with a `[sweep]` table becomes a list of points.

Layout of the `[sweep]` table::

    [sweep]
    # An axis: a dotted path into this spec = the list of values it takes.
    "workloads.stream.msg_bytes" = [1024, 65536]
    "host.nic.mtu" = [1500, 9000]
    # Axes named in one zip group advance together (equal lengths) instead of
    # multiplying; every other axis multiplies (cartesian product).
    zip = [["workloads.stream.msg_bytes", "workloads.stream.window_bytes"]]

    [sweep.derive]
    # A key computed from others, after the axes are applied, in file order.
    "workloads.stream.window_bytes" = "4 * workloads.stream.msg_bytes"

Paths: `experiment.K`, `link.K`, `host.K` (the defaults of every host),
`hosts.NAME.K`, `workloads.NAME.K`; nested tables continue with dots
(`host.nic.mtu`, `host.cpu.cores`, `host.sysctl.net.core.rmem_max`).

Derived expressions: numbers, strings, true/false, dotted paths (the value of
that key in the point: an axis, an earlier derivation, or the resolved spec),
`+ - * / // % **`, comparisons, `and or not`, `A if COND else B` and the
functions min, max, int, float, round, abs and range (a list: `range(n)` is
0..n-1, as for `host.nic.rps_cpus`).

Points are numbered from 0 in expansion order: file order of the axes, the
last axis varying fastest. Everything is checked before anything runs; errors
name the axis or the point.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import itertools
import json
import math
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from .. import spec as specmod
from . import specs
from ..errors import SpecError, quoted
from ..spec import Spec
from . import identity

ZIP = "zip"
DERIVE = "derive"
_TOPS = {"experiment": specmod.Experiment, "link": specmod.Link, "host": specmod.Host,
         "hosts": specmod.Host, "workloads": specmod.Workload}


@dataclass(frozen=True)
class Axis:
    path: str
    keys: tuple[str, ...]   # where the value goes in the spec's nested tables
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Derivation:
    path: str
    keys: tuple[str, ...]
    expression: str
    tree: ast.Expression


@dataclass(frozen=True)
class Point:
    index: int
    params: dict[str, Any]  # axis and derived paths -> value, in axis order
    spec: Spec

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={quoted(v)}" for k, v in self.params.items())


@dataclass(frozen=True)
class Sweep:
    axes: tuple[Axis, ...]
    derivations: tuple[Derivation, ...]
    points: tuple[Point, ...]

    @property
    def parameters(self) -> tuple[str, ...]:
        """Every swept or derived path, in column order."""
        return tuple(a.path for a in self.axes) + tuple(d.path for d in self.derivations)


# ------------------------------------------------------------------ paths

def _fields(cls: type) -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(cls)}


def _nearest(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f"did you mean {quoted(close[0])}? " if close else ""


def resolve_path(where: str, path: str, data: Mapping) -> tuple[str, ...]:
    """The nested keys that `path` names in a spec like `data`; SpecError naming `where` if none."""
    parts = path.split(".")
    top = parts[0]
    if top not in _TOPS:
        raise SpecError(f"{where}: {quoted(path)} does not start with one of {', '.join(_TOPS)}")
    cls = _TOPS[top]
    keys = [top]
    rest = parts[1:]
    if top in ("hosts", "workloads"):
        tables = data.get(top, {})
        if not isinstance(tables, Mapping):
            raise SpecError(f"{where}: {quoted(path)}: {top}: expected a table, got {quoted(tables)}")
        names = list(tables)
        if not rest or rest[0] not in names:
            got = rest[0] if rest else ""
            raise SpecError(f"{where}: {quoted(path)}: the spec has no {top}.{got} "
                            f"({_nearest(got, names)}have {', '.join(names)})")
        keys.append(rest[0])
        rest = rest[1:]
    excluded: tuple[str, ...] = specmod.NOT_DEFAULTS if top == "host" else ("name",)
    prefix = ".".join(keys)
    while rest:
        fields = {n: f for n, f in _fields(cls).items() if n not in excluded}
        name, rest = rest[0], rest[1:]
        if name not in fields:
            raise SpecError(f"{where}: {quoted(path)}: {prefix} has no key {quoted(name)} "
                            f"({_nearest(name, list(fields))}allowed: {', '.join(fields)})")
        keys.append(name)
        prefix += f".{name}"
        nested = getattr(specmod, str(fields[name].type), None)
        if isinstance(nested, type) and dataclasses.is_dataclass(nested):
            cls, excluded = nested, ()
        elif fields[name].type == "dict" and rest:
            # sysctl and offload names may contain dots themselves.
            return tuple(keys) + (".".join(rest),)
        elif rest:
            raise SpecError(f"{where}: {quoted(path)}: {prefix} is a value, not a table")
        else:
            return tuple(keys)
    raise SpecError(f"{where}: {quoted(path)} names a table, not a key")


def _set(data: dict, keys: tuple[str, ...], value: Any) -> None:
    node = data
    for i, k in enumerate(keys[:-1]):
        node = node.setdefault(k, {})
        if not isinstance(node, dict):
            where = ".".join(keys[:i + 1])
            raise SpecError(f"{where}: expected a table, got {quoted(node)} (the sweep sets "
                            f"{'.'.join(keys)})")
    node[keys[-1]] = value


def _get(data: Mapping, keys: list[str]) -> Any:
    node: Any = data
    for k in keys:
        if not isinstance(node, Mapping) or k not in node:
            raise KeyError(k)
        node = node[k]
    return node


# ------------------------------------------------------------ expressions

_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow}
_UNOPS: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge}
MAX_EXPONENT = 64
# What one derivation may make, checked before an operation that would exceed
# it runs: a string or list this long, an integer this many bits.
MAX_EXPRESSION_CHARS = 1000
MAX_SEQUENCE_LEN = 10_000
MAX_INT_BITS = 256
# More points than this is a mistake more often than a study; --max-points says otherwise.
MAX_POINTS = 10_000


def _range(*args: int) -> list[int]:
    """range(...) as a list (a list of CPUs, say), its length checked first."""
    if len(range(*args)) > MAX_SEQUENCE_LEN:
        raise ValueError(f"the result is longer than {MAX_SEQUENCE_LEN}")
    return list(range(*args))


_FUNCS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "int": int, "float": float, "round": round,
                                         "abs": abs, "range": _range}


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _parse(where: str, text: Any) -> ast.Expression:
    if not isinstance(text, str):
        raise SpecError(f"{where}: expected an expression in a string, got {quoted(text)}")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise SpecError(f"{where}: the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError) as e:  # ValueError: a NUL in the text
        raise SpecError(f"{where}: {quoted(text)} is not an expression: {getattr(e, 'msg', e)}") from None
    except (RecursionError, MemoryError):
        raise SpecError(f"{where}: the expression is nested too deeply") from None
    for node in ast.walk(tree):
        allowed = (ast.Expression, ast.Constant, ast.Name, ast.Attribute, ast.BinOp, ast.UnaryOp,
                   ast.Compare, ast.BoolOp, ast.IfExp, ast.Call, ast.Load, ast.And, ast.Or,
                   *_BINOPS, *_UNOPS, *_CMPOPS)
        if not isinstance(node, allowed):
            raise SpecError(f"{where}: {quoted(text)}: {type(node).__name__} is not allowed "
                            f"(see `g5net sweep --help`)")
        if isinstance(node, ast.Call) and (not isinstance(node.func, ast.Name)
                                           or node.func.id not in _FUNCS or node.keywords):
            raise SpecError(f"{where}: {quoted(text)}: only calls of {', '.join(_FUNCS)} are allowed")
        if isinstance(node, ast.Attribute) and _dotted(node) is None:
            raise SpecError(f"{where}: {quoted(text)}: attributes are only allowed in dotted paths")
    return tree


def _eval(node: ast.AST, lookup) -> Any:
    if isinstance(node, ast.Expression):
        return _eval(node.body, lookup)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Name, ast.Attribute)):
        return lookup(_dotted(node))
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, lookup), _eval(node.right, lookup)
        _check_operands(node.op, left, right)
        return _check_result(_BINOPS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp):
        return _UNOPS[type(node.op)](_eval(node.operand, lookup))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, lookup)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, lookup)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, lookup) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, lookup) else node.orelse, lookup)
    if isinstance(node, ast.Call):
        func = _FUNCS[_dotted(node.func) or ""]
        return _check_result(func(*(_eval(a, lookup) for a in node.args)))
    raise TypeError(type(node).__name__)  # _parse admits nothing else


def _check_operands(op: ast.operator, left: Any, right: Any) -> None:
    """ValueError for an operation whose result would not fit the limits: refused
    before it runs, as computing it could take minutes or gigabytes."""
    if isinstance(op, ast.Pow):
        if abs(right) > MAX_EXPONENT:
            raise ValueError(f"exponent {right} is larger than {MAX_EXPONENT}")
        if _is_int(left) and _is_int(right) and left.bit_length() * right > MAX_INT_BITS:
            raise ValueError(f"{left} ** {right} has more than {MAX_INT_BITS} bits")
    if isinstance(op, ast.Mult):
        for seq, times in ((left, right), (right, left)):
            if (isinstance(seq, (str, list)) and _is_int(times)
                    and len(seq) * times > MAX_SEQUENCE_LEN):
                raise ValueError(f"the result would be longer than {MAX_SEQUENCE_LEN}")


def _check_result(value: Any) -> Any:
    if _is_int(value) and value.bit_length() > MAX_INT_BITS:
        raise ValueError(f"the result has more than {MAX_INT_BITS} bits")
    if isinstance(value, (str, list)) and len(value) > MAX_SEQUENCE_LEN:
        raise ValueError(f"the result is longer than {MAX_SEQUENCE_LEN}")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -------------------------------------------------------------- expansion

def _flatten_axes(table: Mapping, prefix: str = "") -> list[tuple[str, Any]]:
    """`"a.b" = [..]` and `[sweep.a] b = [..]` both name the axis a.b."""
    out = []
    for key, value in table.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out += _flatten_axes(value, f"{path}.")
        else:
            out.append((path, value))
    return out


def _axes(table: Mapping, base: Mapping) -> tuple[Axis, ...]:
    axes = []
    for path, values in _flatten_axes({k: v for k, v in table.items() if k not in (ZIP, DERIVE)}):
        where = f"sweep.{path}" if "." not in path else f"sweep.\"{path}\""
        keys = resolve_path(where, path, base)
        if not isinstance(values, list):
            raise SpecError(f"{where}: an axis is a list of values, got {quoted(values)}")
        if not values:
            raise SpecError(f"{where}: the axis is empty (give at least one value)")
        axes.append(Axis(path, keys, tuple(values)))
    return tuple(axes)


def _zip_groups(table: Mapping, axes: tuple[Axis, ...]) -> list[tuple[Axis, ...]]:
    """Groups of axes that advance together, each at the place of its first axis."""
    groups = table.get(ZIP, [])
    by_path = {a.path: a for a in axes}
    if not isinstance(groups, list) or not all(
            isinstance(g, list) and all(isinstance(p, str) for p in g) for g in groups):
        raise SpecError(f"sweep.zip: expected a list of lists of axis paths, got {quoted(groups)}")
    group_of: dict[str, int] = {}
    for gi, group in enumerate(groups):
        if len(group) < 2:
            raise SpecError(f"sweep.zip[{gi}]: a zip group needs two or more axes, got {quoted(group)}")
        for path in group:
            if path not in by_path:
                raise SpecError(f"sweep.zip[{gi}]: {quoted(path)} is not an axis of this sweep "
                                f"({_nearest(str(path), list(by_path))}axes: {', '.join(by_path)})")
            if path in group_of:
                raise SpecError(f"sweep.zip[{gi}]: {quoted(path)} is already in zip group {group_of[path]}")
            group_of[path] = gi
        lengths = {p: len(by_path[p].values) for p in group}
        if len(set(lengths.values())) > 1:
            raise SpecError(f"sweep.zip[{gi}]: zipped axes must have equal lengths, got "
                            + ", ".join(f"{p} has {n}" for p, n in lengths.items()))
    out: list[tuple[Axis, ...]] = []
    placed: set[int] = set()
    for a in axes:
        in_group = group_of.get(a.path)
        if in_group is None:
            out.append((a,))
        elif in_group not in placed:
            placed.add(in_group)
            out.append(tuple(by_path[p] for p in groups[in_group]))
    return out


def _derivations(table: Mapping, base: Mapping, axes: tuple[Axis, ...]) -> tuple[Derivation, ...]:
    derive = table.get(DERIVE, {})
    if not isinstance(derive, Mapping):
        raise SpecError(f"sweep.derive: expected a table of \"path\" = \"expression\", got {quoted(derive)}")
    swept = {a.path for a in axes}
    out = []
    for path, text in derive.items():
        where = f"sweep.derive.\"{path}\""
        if path in swept:
            raise SpecError(f"{where}: {quoted(path)} is already an axis; a key is swept or derived, not both")
        out.append(Derivation(path, resolve_path(where, path, base), text, _parse(where, text)))
    return tuple(out)


def _point(index: int, base: Mapping, params: dict[str, Any], axes: tuple[Axis, ...],
           derivations: tuple[Derivation, ...], source: str) -> Point:
    data = json.loads(json.dumps(base))
    keys = {a.path: a.keys for a in axes}
    for path, value in params.items():
        _set(data, keys[path], value)

    try:
        if derivations:
            resolved = _validate(data, source).to_dict()
            for d in derivations:
                def lookup(name: str) -> Any:
                    if name in params:
                        return params[name]
                    try:
                        return _get(resolved, name.split("."))
                    except KeyError:
                        raise SpecError(f"sweep.derive.\"{d.path}\": {quoted(d.expression)}: "
                                        f"{quoted(name)} is neither a swept key nor a key of the "
                                        f"resolved spec") from None
                try:
                    value = _eval(d.tree, lookup)
                except RecursionError:
                    raise SpecError(f"sweep.derive.\"{d.path}\": {quoted(d.expression)}: nested too "
                                    f"deeply") from None
                except (ArithmeticError, TypeError, ValueError) as e:
                    raise SpecError(f"sweep.derive.\"{d.path}\": {quoted(d.expression)}: {e}") from None
                params[d.path] = value
                _set(data, d.keys, value)
        spec = _validate(data, source)
    except SpecError as e:
        where = ", ".join(f"{k}={quoted(v)}" for k, v in params.items())
        raise SpecError(f"sweep point {index} ({where}): {e}") from None
    return Point(index, params, spec)


def _validate(data: Mapping, source: str) -> Spec:
    return specs.from_dict({k: v for k, v in data.items() if k != "sweep"}, source=source)


def expand(data: Mapping, source: str = "spec", max_points: int = MAX_POINTS) -> Sweep:
    """Every point of the spec `data` (parsed TOML); a spec without [sweep] is one point,
    and one with more than `max_points` is refused before any is built."""
    table = data.get("sweep", {})
    if not isinstance(table, Mapping):
        raise SpecError(f"sweep: expected a table, got {quoted(table)}")
    base = {k: v for k, v in data.items() if k != "sweep"}
    axes = _axes(table, base)
    groups = _zip_groups(table, axes)
    derivations = _derivations(table, base, axes)
    count = math.prod(len(g[0].values) for g in groups)
    if count > max_points:
        raise SpecError(f"sweep: {count} points is more than {max_points} "
                        f"(`g5net sweep --max-points N` allows more)")
    points = []
    seen: dict[str, int] = {}
    combos = itertools.product(*(range(len(g[0].values)) for g in groups))
    for index, choice in enumerate(combos):
        chosen = {a.path: a.values[i] for g, i in zip(groups, choice) for a in g}
        params = {a.path: chosen[a.path] for a in axes}
        point = _point(index, base, params, axes, derivations, source)
        digest = identity.spec_digest(point.spec)
        if digest in seen:
            raise SpecError(f"sweep point {index} ({point.label}) is the same experiment as "
                            f"point {seen[digest]}: every point must differ")
        seen[digest] = index
        points.append(point)
    return Sweep(axes, derivations, tuple(points))


def load(path: str | Path, max_points: int = MAX_POINTS) -> Sweep:
    path = Path(path)
    return expand(specs.read_toml(path), source=str(path), max_points=max_points)
