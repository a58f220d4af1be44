"""What a reader of the store may rely on in a run's records (run.json and
metrics.json, as g5net/runs/record.py and g5net/metrics/derive.py write them):
each key's JSON type, checked once where a record is read, so that a record of
the wrong shape is a damaged run naming the file and key, never a traceback
in collect, report, check or `g5net.load`."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import CorruptRunError, key_text

# metrics.json's keys that are no metric (g5net/metrics/spread.py): a windowed
# table's window count, spread and windows (metrics/windows.py), a run of
# repeats' repeat count, windows' spread and repeats (metrics/repeats.py).
N_WINDOWS, SPREAD, PER_WINDOW = "n_windows", "spread", "per_window"
N_REPEATS, WITHIN_RUN, PER_REPEAT = "n_repeats", "within_run", "per_repeat"

# Records are a few tables deep; a deeper one is not one of ours, and would
# exhaust the recursion of the readers that flatten it.
MAX_DEPTH = 32


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _text_table(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(x, str) for x in v.values())


# run.json: the key, and what its value must be where present.
_RUN: dict[str, tuple[Callable[[Any], bool], str]] = {
    "run_id": (lambda v: isinstance(v, str), "a string"),
    "name": (lambda v: isinstance(v, str), "a string"),
    "status": (lambda v: isinstance(v, str), "a string"),
    "g5net_version": (lambda v: isinstance(v, str), "a string"),
    "spec": (lambda v: isinstance(v, dict), "a table"),
    "host": (_text_table, "a table of strings"),
    "timings": (lambda v: isinstance(v, dict), "a table"),
    "engine": (lambda v: isinstance(v, dict) and isinstance(v.get("version", ""), str),
               "a table (version a string)"),
    "artifacts": (lambda v: isinstance(v, dict), "a table"),
    "boards": (_text_table, "a table of strings"),
    "region": (lambda v: isinstance(v, dict) and isinstance(v.get("kind"), str), "a table (kind a string)"),
    "engine_notes": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
                     "a list of strings"),
    "failure": (lambda v: isinstance(v, dict) and isinstance(v.get("reasons", []), list)
                and all(isinstance(r, str) for r in v.get("reasons", [])),
                "a table (reasons a list of strings)"),
}


def depth(data: Any) -> int:
    """How many tables and lists deep `data` is; iterative, as `data` may be deep."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:  # deeper is refused whatever lies below
                stack += [(v, level + 1) for v in (value.values() if isinstance(value, dict) else value)]
    return deepest


def check_depth(data: Any, path: Path) -> Any:
    if depth(data) > MAX_DEPTH:
        raise CorruptRunError(f"{path}: damaged: nested more than {MAX_DEPTH} deep")
    return data


def check_run(record: Any, path: Path) -> dict[str, Any]:
    """`record` (run.json at `path`) where each key has its type; CorruptRunError naming the key."""
    if not isinstance(record, dict) or not isinstance(record.get("status"), str):
        raise CorruptRunError(f"{path}: damaged: not a run record (no status)")
    for key, (ok, want) in _RUN.items():
        if key in record and not ok(record[key]):
            raise CorruptRunError(f"{path}: damaged: {key} is not {want}")
    return record


def _metric(v: Any) -> bool:
    """A metric's value: a number, null where not measured, a list of numbers
    (per CPU), or a table (a profile's breakdown); never a string or a boolean,
    which a check would pass over."""
    if v is None or _number(v) or isinstance(v, dict):
        return True
    return isinstance(v, list) and all(x is None or _number(x) for x in v)


def _workloads(table: Any, at: str, path: Path) -> None:
    """workload -> metric -> value."""
    if not isinstance(table, dict):
        raise CorruptRunError(f"{path}: damaged: {at} is not a table of workloads")
    for wl, metrics in table.items():
        if not isinstance(metrics, dict):
            raise CorruptRunError(f"{path}: damaged: {at}.{key_text(wl)} is not a table of metrics")
        for name, value in metrics.items():
            where = f"{at}.{key_text(wl)}.{key_text(name)}"
            if name in (SPREAD, WITHIN_RUN):
                _spread(value, where, path)
            elif name in (PER_WINDOW, PER_REPEAT):
                _per_window(value, where, path)
            elif not _metric(value):
                raise CorruptRunError(f"{path}: damaged: {where} is not a number, a list of numbers or a table")


def _spread(table: Any, at: str, path: Path) -> None:
    """A windowed run's `spread`, or a run of repeats' `spread` and `within_run`:
    metric -> {"n", "sd", "ci95"} (g5net/metrics/spread.py), with one n for
    every metric of the table, as they share its windows (or repeats)."""
    if not isinstance(table, dict):
        raise CorruptRunError(f"{path}: damaged: {at} is not a table of metrics")
    windows = set()
    for name, s in table.items():
        ok = isinstance(s, dict) and isinstance(s.get("n"), int) and not isinstance(s["n"], bool) \
            and s["n"] >= 2 and all(_number(s.get(k)) and 0 <= s[k] < math.inf for k in ("sd", "ci95"))
        if not ok:
            raise CorruptRunError(f"{path}: damaged: {at}.{key_text(name)} is not "
                                  f"{{n: windows or repeats >= 2, sd: a number >= 0, ci95: a number >= 0}}")
        windows.add(s["n"])
    if len(windows) > 1:
        raise CorruptRunError(f"{path}: damaged: {at}: its metrics have different numbers of windows "
                              f"({', '.join(map(str, sorted(windows)))})")


def _per_window(windows: Any, at: str, path: Path) -> None:
    """A windowed run's `per_window`, or a run of repeats' `per_repeat`: a list
    of tables of metrics, one per window (or repeat)."""
    if not isinstance(windows, list):
        raise CorruptRunError(f"{path}: damaged: {at} is not a list of windows")
    for i, window in enumerate(windows):
        if not isinstance(window, dict) or not all(map(_metric, window.values())):
            raise CorruptRunError(f"{path}: damaged: {at}[{i}] is not a table of metrics")


def check_metrics(data: Any, path: Path) -> dict[str, Any]:
    """`data` (metrics.json at `path`): hosts: host -> workload -> metric, and
    aggregate: workload -> metric; CorruptRunError naming the key at fault."""
    if not isinstance(data, dict):
        raise CorruptRunError(f"{path}: damaged: not a table of metrics")
    hosts = data.get("hosts", {})
    if not isinstance(hosts, dict):
        raise CorruptRunError(f"{path}: damaged: hosts is not a table of hosts")
    for host, workloads in hosts.items():
        _workloads(workloads, f"hosts.{key_text(host)}", path)
    _workloads(data.get("aggregate", {}), "aggregate", path)
    return data
