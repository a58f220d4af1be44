"""Stream a gem5 text stats file (`m5out/stats.txt`) dump by dump.

Every generation shares one line grammar, which is all this module relies on:

    name  value  [pdf%  cdf%]  [# description]

2016-2020 names are snake_case, v21+ camelCase with the unit at the end of
the description; vectors, distributions and histograms are flattened by gem5
into `name::sub` lines, so they need no special case here. A stats file is
appended to on every `m5 dumpstats`, hence several dumps per file.
"""

from __future__ import annotations

import io
import os
from collections.abc import ItemsView, Iterable, Iterator, Mapping, ValuesView
from itertools import chain
from typing import BinaryIO, NamedTuple

from ..errors import StatsParseError
from ..machine import bounded_read
from .model import Dump, Stat

BEGIN = "---------- Begin Simulation Statistics ----------"
END = "---------- End Simulation Statistics   ----------"


def iter_dumps(path: str | os.PathLike[str]) -> Iterator[Dump]:
    """Yield the dumps of `path` in file order, holding one dump in memory at a time.

    Raises StatsParseError naming the file and line for anything that is not a
    stat line, a blank line or a Begin/End marker, and for an unfinished dump.
    """
    where = os.fspath(path)
    with open_stats(where) as f:
        yield from dumps_from(f, where)


def open_stats(where: str) -> BinaryIO:
    """The stats file `where`, open for reading bytes; StatsParseError if it cannot be."""
    try:
        return bounded_read.open_regular(where)
    except OSError as e:
        raise StatsParseError(f"{where}: cannot read: {e.strerror}") from e


def dumps_from(f: BinaryIO, where: str, first_line: int = 1,
               first_index: int = 0) -> Iterator[Dump]:
    """The dumps of `f` (the file `where`) from where it stands, the start of
    line `first_line`, numbered from `first_index`."""
    # Undecodable bytes can only hide in descriptions or fail as values in _parse.
    return _parse(io.TextIOWrapper(f, encoding="utf-8", errors="replace"), where,
                  first_line, first_index)


def _parse(lines: Iterable[str], where: str, first_line: int = 1,
           first_index: int = 0) -> Iterator[Dump]:
    """The dumps of `lines` as _parse_line_by_line yields them, in about half its
    time: every line is checked here, but a stat becomes a Stat only when asked for
    (_LineStats), and a reader of every stat's text takes it as split here
    (columns). Anything out of the ordinary (a malformed line, a bad number, a
    name twice) hands the input from the open dump's Begin marker on to
    _parse_line_by_line, which names the first error exactly.
    `first_line` and `first_index` number the first line and dump of `lines`, for a
    reader that starts in the middle of a file.
    """
    lines = iter(lines)
    index = first_index
    lineno = first_line - 1
    for line in lines:
        lineno += 1
        marker = line.strip()
        if not marker:
            continue
        replay = [line]
        if marker == BEGIN:
            split = _checked_dump(lines, replay)
            if split is not None:
                yield Dump(where, index, lineno, _LineStats(split))
                index += 1
                lineno += len(replay) - 1
                continue
        yield from _parse_line_by_line(chain(replay, lines), where, lineno, index)
        return


class _Split(NamedTuple):
    """A dump's stat lines split, by name, in file order. Dicts of strings, not a
    tuple per line: the garbage collector would walk each of those."""

    values: dict[str, str]  # the value token
    # The line from its first '#' on ('# description\n'), or '' if it has none.
    notes: dict[str, str]
    shares: dict[str, tuple[str, str]]  # the pdf% and cdf% tokens, of lines that have them
    # The value tokens that are not plain digits (and perhaps some that are), in
    # file order: those that a printer must make numbers of to print them as
    # Python does (as must it digits with leading zeros).
    numbers: list[str]


def _checked_dump(lines: Iterator[str], raw: list[str]) -> _Split | None:
    """The stat lines of the dump that `raw` (its Begin marker) opens, read from
    `lines` up to its End marker; None at the first line out of the ordinary or at
    the end of `lines`. Appends every line read to `raw`."""
    # The parser's hot loop: a valid line costs a split and no call that can be
    # left to C once per dump (_all_numbers).
    add = raw.append
    split = values, notes, shares, numbers = _Split({}, {}, {}, [])
    percents: list[str] = []
    add_number = numbers.append
    blanks = 0
    for line in lines:
        add(line)
        fields = line.split(None, 2)
        # Most lines are `name value # description`, told apart with one split.
        if len(fields) == 3:
            name, value, rest = fields
            if rest[0] == "#" and "#" not in name:
                # Most values are unsigned integers: tested here, the rest at the End marker.
                if not (value.isdigit() and value.isascii()):
                    add_number(value)
                # `rest` is the note: its '#' is the line's first (a value holding
                # one fails as a number).
                values[name] = value
                notes[name] = rest
                continue
        head, sep, note = line.partition("#")
        fields = head.split()
        if len(fields) in (2, 4):
            name = fields[0]
            values[name] = fields[1]
            notes[name] = sep + note
            add_number(fields[1])
            if len(fields) == 4:
                shares[name] = fields[2], fields[3]
                percents += fields[2:]
            continue
        marker = line.strip()
        if marker:
            # A name seen twice leaves `values` short of the dump's stat lines.
            closed = marker == END and len(values) == len(raw) - 2 - blanks
            return split if closed and _all_numbers(numbers, percents) else None
        blanks += 1
    return None


def _all_numbers(numbers: list[str], percents: list[str]) -> bool:
    """Whether _number takes each of `numbers` and _percent each of `percents`, in
    a few passes of C over the joined tokens instead of a call per token. Tokens
    hold no whitespace (they come from str.split), so a space joins them safely."""
    text = " ".join(percents)
    # Each token ends in its only '%', and leaves a number when that is cut off.
    if f"{text} ".count("% ") != len(percents) or text.count("%") != len(percents):
        return False
    cut = text.replace("%", "").split()
    if len(cut) != len(percents):
        return False
    # _float's rules for all tokens at once: ASCII, no '_', and what float() reads.
    tokens = numbers + cut
    joined = " ".join(tokens)
    if not joined.isascii() or "_" in joined:
        return False
    try:
        list(map(float, tokens))
    except ValueError:
        return False
    return True


class Columns(NamedTuple):
    """A dump's stat lines as written, in file order, a list per column."""

    names: list[str]
    values: list[str]  # each a token that _number reads
    notes: list[str]  # '# description\n' as written: the description is note[1:].strip()
    # Of `values` (of all the dump's, with or without a filter), those that are not
    # plain digits, and perhaps some that are.
    numbers: list[str]


def columns(dump: Dump) -> Columns:
    """The stat lines of `dump` as written (of a dump made otherwise than by this
    module, as its Stats would be written): for a reader of every stat's text,
    who need not make a Stat of each."""
    if isinstance(dump.stats, _LineStats):
        return dump.stats.columns()
    stats = dump.stats.values()
    values = [str(s.value) for s in stats]
    return Columns(list(dump.stats), values, [f"# {s.description}" for s in stats],
                   [v for v in values if not v.isdigit()])


class _LineStats(Mapping[str, Stat]):
    """A dump's stats by name, each made a Stat from its split line when first
    asked for: a dump that is only counted, passed over or printed as written costs
    no Stat at all. _parse has checked every line, so making one cannot fail."""

    def __init__(self, split: _Split, stats: dict[str, Stat] | None = None) -> None:
        self._split = split
        self._stats: dict[str, Stat] = {} if stats is None else stats

    def __getitem__(self, name: str) -> Stat:
        stat = self._stats.get(name)
        if stat is None:
            values, notes, shares, _ = self._split
            stat = self._stats[name] = _stat(values[name], notes[name], shares.get(name))
        return stat

    def __iter__(self) -> Iterator[str]:
        return iter(self._split.values)

    def __len__(self) -> int:
        return len(self._split.values)

    def columns(self) -> Columns:
        values, notes, _, numbers = self._split
        return Columns(list(values), list(values.values()), list(notes.values()), numbers)

    # Who asks for every stat gets them made at once, in file order, and the
    # dict's own views: several times faster than one __getitem__ per name.
    def items(self) -> ItemsView[str, Stat]:
        return self._every().items()

    def values(self) -> ValuesView[Stat]:
        return self._every().values()

    def _every(self) -> dict[str, Stat]:
        values, notes, shares, _ = self._split
        if len(self._stats) < len(values):
            self._stats = dict(zip(values, map(_stat, values.values(), notes.values(),
                                               map(shares.get, values))))
        return self._stats


def _parse_line_by_line(lines: Iterable[str], where: str, first_line: int = 1,
                        first_index: int = 0) -> Iterator[Dump]:
    """The reference grammar, one line at a time: slower than _parse, and the one
    that raises, naming the first line at fault."""
    split: _Split | None = None  # the open dump's lines; None between dumps
    stats: dict[str, Stat] = {}  # the open dump's, made here to check each line
    begin_line = 0
    index = first_index
    lineno = first_line - 1
    for lineno, line in enumerate(lines, first_line):
        # partition + split are about four times faster than a regex here.
        head, sep, note = line.partition("#")
        fields = head.split()
        try:
            if len(fields) in (2, 4) and split is not None:
                name = fields[0]
                share = (fields[2], fields[3]) if len(fields) == 4 else None
                stat = _stat(fields[1], sep + note, share)
            else:
                marker = line.strip()
                if not marker:
                    continue
                if marker == BEGIN and split is None:
                    split, stats, begin_line = _Split({}, {}, {}, []), {}, lineno
                    continue
                if marker == END and split is not None:
                    yield Dump(where, index, begin_line, _LineStats(split, stats))
                    split, index = None, index + 1
                    continue
                raise ValueError(_misplaced(marker, split is not None, begin_line))
        except ValueError as e:
            raise StatsParseError(f"{where}:{lineno}: {e}: {clip(line.rstrip())}") from None
        if name in stats:
            raise StatsParseError(f"{where}:{lineno}: {name} appears twice in the dump "
                                  f"begun at line {begin_line}")
        split.values[name] = fields[1]
        split.notes[name] = sep + note
        if not fields[1].isdigit():
            split.numbers.append(fields[1])
        if share is not None:
            split.shares[name] = share
        stats[name] = stat
    if split is not None:
        raise StatsParseError(f"{where}:{begin_line}: dump {index} has no End marker "
                              f"(file ends at line {lineno}; gem5 still writing or killed?)")


def _stat(value: str, note: str, share: tuple[str, str] | None) -> Stat:
    """The Stat of a stat line split (_Split)."""
    # Most values are unsigned integers: tested inline, they skip a call.
    number = int(value) if value.isdigit() and value.isascii() else _number(value)
    description = note[1:].strip()
    # tuple.__new__ makes in C the tuple that Stat() makes through a Python __new__.
    if share is None:
        return tuple.__new__(Stat, (number, None, None, description))
    return tuple.__new__(Stat, (number, _percent(share[0]), _percent(share[1]),
                                description))


def _number(token: str) -> int | float:
    # Integers exactly, negative ones too: through float, -9007199254740993 would change.
    digits = token[1:] if token.startswith("-") else token
    return int(token) if digits.isdigit() and digits.isascii() else _float(token)


def _percent(token: str) -> float:
    if not token.endswith("%"):
        raise ValueError(f"expected a percentage, got {token!r}")
    return _float(token[:-1])


def _float(token: str) -> float:
    # float() also reads what gem5 prints for undefined ratios: nan, -nan, inf, -inf;
    # but also 1_000 and digits of other scripts, which gem5 never prints.
    try:
        if not token.isascii() or "_" in token:
            raise ValueError
        return float(token)
    except ValueError:
        raise ValueError(f"{clip(token)} is not a number") from None


# An error quotes at most this much of the line at fault: a damaged file can
# hold a line of hundreds of megabytes.
QUOTE_CHARS = 200


def clip(text: str) -> str:
    """`text` quoted, cut to QUOTE_CHARS characters."""
    if len(text) <= QUOTE_CHARS:
        return repr(text)
    return f"{text[:QUOTE_CHARS]!r}... ({len(text)} characters)"


def _misplaced(marker: str, in_dump: bool, begin_line: int) -> str:
    if marker == BEGIN:
        return f"Begin marker inside the dump begun at line {begin_line}"
    if marker == END:
        return "End marker without a Begin marker"
    if not in_dump and len(marker.partition("#")[0].split()) in (2, 4):
        return "stat line outside a dump"
    return "not a stat line (expected: name value [pdf% cdf%] [# description])"
