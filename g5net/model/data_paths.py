"""Paths made from names that a file held (a study's figure, a sweep's run
directory): such a name is data, and becomes a path only where it is one plain
file name (the spec's name rule), so that nothing is written outside the
folder the user named on the command line."""

from __future__ import annotations

from pathlib import Path

from ..errors import G5netError, quoted
from ..spec import NAME_RULE, plain_name


def checked_name(name: object, where: str, error: type[G5netError]) -> str:
    """`name` where it is one plain file name; else `error` naming `where`."""
    if not plain_name(name):
        raise error(f"{where}: name {quoted(name)} is not allowed ({NAME_RULE})")
    return name


def child(folder: Path, name: object, where: str, error: type[G5netError], suffix: str = "") -> Path:
    """folder/name+suffix, for a `name` read from a file; `error` naming `where`
    where the name is not one plain file name."""
    return folder / (checked_name(name, where, error) + suffix)
