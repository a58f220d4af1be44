"""Every key a spec may hold, read from the dataclasses of g5net/spec.py and
their field metadata (type, default, choices, range, doc): the one walk that
docs/spec.md and the JSON Schema (`g5net spec --schema`) are both made from.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .. import spec

# The spec.py annotations (strings, under `from __future__ import annotations`).
TYPES = ("str", "int", "float", "bool", "list", "dict")


@dataclass(frozen=True)
class Key:
    name: str
    type: str  # one of TYPES
    default: Any
    choices: tuple[Any, ...] | None
    lo: float | None
    hi: float | None
    doc: str


@dataclass(frozen=True)
class Table:
    """One TOML table: `path` as a spec writes it (`host.nic`, `workloads.<name>`)."""

    path: str
    cls: type
    keys: tuple[Key, ...]
    # Of `[host]`: keys that name one host and are taken from [hosts.<name>] only.
    per_host_only: tuple[str, ...] = ()


def _default(f: dataclasses.Field) -> Any:
    """The field's default; MISSING for a field without one."""
    if f.default is not dataclasses.MISSING or not callable(f.default_factory):
        return f.default
    return f.default_factory()


def nested(f: dataclasses.Field) -> type | None:
    """The dataclass of a field that is a table of its own (`cpu`, `caches`, `nic`)."""
    value = _default(f)
    return type(value) if dataclasses.is_dataclass(value) else None


def keys_of(cls: type) -> tuple[Key, ...]:
    """The leaf keys of a spec dataclass, in declaration order. A field without a
    default is the table's own name (`[hosts.<name>]`), not a key."""
    out = []
    for f in dataclasses.fields(cls):
        if nested(f) or _default(f) is dataclasses.MISSING:
            continue
        m = f.metadata
        out.append(Key(f.name, str(f.type), _default(f), tuple(m["choices"]) if m.get("choices") else None,
                       m.get("lo"), m.get("hi"), m.get("doc", "")))
    return tuple(out)


def tables() -> tuple[Table, ...]:
    """Every table of a spec, in the order a spec file has them."""
    host_nested = [(f.name, cls) for f in dataclasses.fields(spec.Host) if (cls := nested(f))]
    return (
        Table("experiment", spec.Experiment, keys_of(spec.Experiment)),
        Table("host", spec.Host, keys_of(spec.Host), spec.NOT_DEFAULTS),
        *(Table(f"host.{name}", cls, keys_of(cls)) for name, cls in host_nested),
        Table("link", spec.Link, keys_of(spec.Link)),
        Table("workloads.<name>", spec.Workload, keys_of(spec.Workload)),
    )


def undocumented() -> list[str]:
    """`table.key` of every key without a doc string."""
    return [f"{t.path}.{k.name}" for t in tables() for k in t.keys if not k.doc]
