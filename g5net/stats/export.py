"""A dump's stats as text to print: CSV rows, a JSON object, or the (name, value,
unit) rows of a table; exactly what csv.writer and json.dumps(..., indent=1) write
of them, built a dump at a time in C (maps, joins, slice assignment) rather than
with a Python call per stat, so that printing every dump of a large file costs
little more than parsing it. What is made per description, gem5's own few
hundred repeated in every dump, is made once (_Memo)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable
from itertools import compress, repeat
from json.encoder import encode_basestring_ascii  # json.dumps' own string encoder, in C
from typing import NamedTuple

from .model import Dump
from .parse import columns
from .units import split_unit

# Distinct descriptions remembered: gem5 writes a few hundred, in every dump; the
# bound keeps memory flat whatever an odd file holds.
NOTES_CACHED = 1 << 14
CSV_HEADER = "dump,workload,name,value,unit,description\n"
# Between a stat's description and the next stat's name: the name's opening quote
# is written here (the names hold nothing that JSON escapes, else they are escaped).
_JSON_ITEM_END = '\n },\n "'
# The ASCII that JSON escapes between quotes (bytes.translate deletes them at C speed).
_JSON_ESCAPED = bytes(range(0x20)) + b'"\\\x7f'
# Where a token of digits begins with a 0 not alone (in " " + tokens joined by " ").
_LEADING_ZERO = re.compile(" 0[0-9]")


class _Memo(dict[str, str]):
    """make(key) by key, made on first use; emptied when it reaches NOTES_CACHED
    entries, to keep memory flat. A hit is a dict lookup, all in C under map."""

    def __init__(self, make: Callable[[str], str]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, key: str) -> str:
        if len(self) >= NOTES_CACHED:
            self.clear()
        value = self[key] = self._make(key)
        return value


class Rows(NamedTuple):
    """Chosen stats of a dump, in file order, a list per column."""

    names: list[str]
    values: list[str]  # the number as Python prints it: 12, 0.0005, nan
    notes: list[str]  # '# description (Unit)' as parse.columns gives them


def rows(dump: Dump, prefix: str | None = None, match: re.Pattern[str] | None = None) -> Rows:
    """The stats of `dump` whose full name starts with `prefix` + '.' (if given)
    and in which `match` finds a match (if given)."""
    names, tokens, notes, numbers = columns(dump)
    tests: list[Iterable[object]] = []
    if prefix is not None:
        tests.append(map(str.startswith, names, repeat(f"{prefix}.")))
    if match is not None:
        tests.append(map(match.search, names))
    for test in tests:
        keep = list(test)
        names, tokens, notes = (list(compress(column, keep)) for column in (names, tokens, notes))
    return Rows(names, _value_texts(tokens, numbers), notes)


def _value_texts(tokens: list[str], numbers: list[str]) -> list[str]:
    """Each token as Python prints its number. Digits are printed as written
    (ASCII, in a parsed dump) unless they begin with a 0; only the rest (`numbers`,
    about a fifth of gem5's values) are made numbers, once per distinct token: a
    float's repr is the dearest step of printing a dump. Tokens are checked
    (parse._number): an int is digits, perhaps after a minus; the rest are floats."""
    printed = dict.fromkeys(numbers, "")
    if _LEADING_ZERO.search(" " + " ".join(tokens)):
        printed.update(dict.fromkeys((t for t in tokens if t[0] == "0" and len(t) > 1), ""))
    for t in printed:
        printed[t] = str(int(t)) if t.isdigit() or t[0] == "-" and t[1:].isdigit() \
            else repr(float(t))
    return list(map(printed.get, tokens, tokens))


def units(rows: Rows) -> list[str]:
    """The unit of each row, '' where its description ends in none."""
    return list(map(_UNITS.__getitem__, rows.notes))


def json_object(rows: Rows) -> str:
    """json.dumps({name: {"value", "unit", "description"}}, indent=1) of `rows`,
    but nan, inf and -inf as the strings "nan", "inf" and "-inf" (JSON has none)."""
    n = len(rows.names)
    if not n:
        return "{}"
    names = rows.names
    joined = "".join(names)
    if not joined.isascii() or len(joined.encode().translate(None, _JSON_ESCAPED)) < len(joined):
        names = [encode_basestring_ascii(name)[1:-1] for name in names]
    values = rows.values
    if "n" in "".join(values):  # no value JSON reads as a number holds an n
        values = [f'"{v}"' if "n" in v else v for v in values]
    parts = [""] * (4 * n + 1)
    parts[0] = '{\n "'
    parts[1::4] = names
    parts[2::4] = repeat('": {\n  "value": ', n)
    parts[3::4] = values
    parts[4::4] = map(_JSON_TAILS.__getitem__, rows.notes)
    parts[-1] = parts[-1][:-len(_JSON_ITEM_END)] + "\n }\n}"
    return "".join(parts)


def csv_rows(rows: Rows, index: int, workload: str) -> str:
    """The CSV_HEADER rows of `rows`, of dump `index` of workload `workload` ('' if none)."""
    n = len(rows.names)
    names = rows.names
    joined = "".join(names)
    if "," in joined or '"' in joined:  # names hold no whitespace: nothing else is quoted
        names = [_csv_fields((name,)) for name in names]
    parts = [""] * (5 * n)
    parts[0::5] = repeat(f"{_csv_fields((index, workload))},", n)
    parts[1::5] = names
    parts[2::5] = repeat(",", n)
    parts[3::5] = rows.values
    parts[4::5] = map(_CSV_TAILS.__getitem__, rows.notes)
    return "".join(parts)


def _described(note: str) -> tuple[str, str | None]:
    return split_unit(note[1:].strip())


def _unit(note: str) -> str:
    return _described(note)[1] or ""


def _json_tail(note: str) -> str:
    description, unit = _described(note)
    unit_json = "null" if unit is None else encode_basestring_ascii(unit)
    return (f',\n  "unit": {unit_json},\n  "description": '
            f"{encode_basestring_ascii(description)}{_JSON_ITEM_END}")


def _csv_tail(note: str) -> str:
    description, unit = _described(note)
    return f",{_csv_fields((unit or '', description))}\n"


_UNITS = _Memo(_unit)
_JSON_TAILS = _Memo(_json_tail)
_CSV_TAILS = _Memo(_csv_tail)


def _csv_fields(fields: tuple[object, ...]) -> str:
    """`fields` as csv.writer writes them in a row, without the line's end."""
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(fields)
    return out.getvalue()
