"""Specs as the host reads them: a TOML file, its text or nested dicts,
validated once, against the schema (g5net.spec) and then by each workload
kind's own checks (g5net.workloads.checks). Every host-side path that makes a
Spec from outside data (a spec file, a sweep's points, a run record) comes
through here; gem5's side imports g5net.spec alone, and reads only specs the
host has checked this way.
"""

from __future__ import annotations

import datetime
import tomllib
from pathlib import Path
from typing import Any, Mapping

from .. import spec
from ..errors import SpecError
from ..machine.bounded_read import read_bytes
from ..spec import Spec
from ..workloads import checks

# A spec, sweep table included, is a page or two of TOML.
MAX_SPEC_BYTES = 4 * 2**20


def from_dict(data: Mapping, *, source: str = "spec") -> Spec:
    """The spec `data` holds (parsed TOML or a resolved JSON spec), checked;
    SpecError naming the first bad key. A `[sweep]` table is accepted and
    ignored here: g5net.model.sweep expands it."""
    s = spec.from_dict(data, source=source)
    checks.check(s)
    return s


def loads(text: str, *, source: str = "spec") -> Spec:
    return from_dict(parse_toml(text, source), source=source)


def load(path: str | Path) -> Spec:
    path = Path(path)
    return from_dict(read_toml(path), source=str(path))


def parse_toml(text: str, source: str = "spec") -> dict:
    """`text` as nested dicts; SpecError naming `source` for what is not a spec's TOML."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{source}: not valid TOML: {e}") from e
    except (RecursionError, MemoryError):
        raise SpecError(f"{source}: not valid TOML: nested too deeply") from None
    _reject_dates(data, source)
    return data


def _reject_dates(data: dict, source: str) -> None:
    """A spec holds numbers, strings, booleans, lists and tables: a TOML date or
    time would reach JSON, which cannot hold one. Iterative: data may be deep."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack += [(f"{key}.{k}" if key else k, v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(f"{key}[{i}]", v) for i, v in enumerate(value)]
        elif isinstance(value, (datetime.date, datetime.time)):
            raise SpecError(f"{source}: {key}: {value} is a date or time, which no key takes "
                            f"(quote it to make it a string)")


def read_toml(path: Path) -> dict:
    """The TOML file at `path` as nested dicts; SpecError naming the file."""
    try:
        text = read_bytes(path, MAX_SPEC_BYTES).decode("utf-8")
    except OSError as e:
        raise SpecError(f"{path}: cannot read spec: {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise SpecError(f"{path}: not UTF-8 text (byte {e.start}); TOML files are UTF-8") from None
    return parse_toml(text, str(path))
