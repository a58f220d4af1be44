"""The workload kinds, found: every module of `kinds/` holds one, as `KIND`.

A new kind is one new module there (and its name in spec.WORKLOAD_KINDS, the
choices gem5's side validates a resolved spec against without this package;
tests/test_workload_kinds.py checks that the two name the same kinds).
"""

from __future__ import annotations

import importlib
import pkgutil

from . import kinds
from .kind import WorkloadKind


def _find() -> dict[str, WorkloadKind]:
    out = {}
    for module in pkgutil.iter_modules(kinds.__path__):
        found = importlib.import_module(f"{kinds.__name__}.{module.name}").KIND
        out[found.name] = found
    return out


KINDS = _find()


def kind(name: str) -> WorkloadKind:
    """The kind a workload's `kind` names (the spec's schema has checked it is one)."""
    return KINDS[name]
