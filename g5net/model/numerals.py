"""Whole numbers as people type them: ASCII digits. Python's str.isdigit and
int() also take other scripts' digits and superscripts ('١', '²'), which no
one means as a dump number, a point index or a task count."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"[0-9]+")


def ascii_int(text: str) -> int | None:
    """`text` as a whole number where it is ASCII digits only; else None."""
    return int(text) if _DIGITS.fullmatch(text) else None
