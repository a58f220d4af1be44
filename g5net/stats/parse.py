"""Stream a gem5 text stats file (`m5out/stats.txt`) dump by dump.

Every generation shares one line grammar, which is all this module relies on:

    name  value  [pdf%  cdf%]  [# description]

2016-2020 names are snake_case, v21+ camelCase with the unit at the end of
the description; vectors, distributions and histograms are flattened by gem5
into `name::sub` lines, so they need no special case here. A stats file is
appended to on every `m5 dumpstats`, hence several dumps per file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from types import MappingProxyType

from ..errors import StatsParseError
from .model import Dump, Stat

BEGIN = "---------- Begin Simulation Statistics ----------"
END = "---------- End Simulation Statistics   ----------"


def iter_dumps(path: str | os.PathLike[str]) -> Iterator[Dump]:
    """Yield the dumps of `path` in file order, holding one dump in memory at a time.

    Raises StatsParseError naming the file and line for anything that is not a
    stat line, a blank line or a Begin/End marker, and for an unfinished dump.
    """
    where = os.fspath(path)
    try:
        # Undecodable bytes can only hide in descriptions or fail as values below.
        f = open(where, encoding="utf-8", errors="replace")
    except OSError as e:
        raise StatsParseError(f"{where}: cannot read: {e.strerror}") from e
    with f:
        yield from _parse(f, where)


def _parse(lines: Iterator[str], where: str) -> Iterator[Dump]:
    stats: dict[str, Stat] | None = None  # the open dump; None between dumps
    begin_line = 0
    index = 0
    lineno = 0
    for lineno, line in enumerate(lines, 1):
        # The hot path: partition + split are about four times faster than a regex here.
        head, _, description = line.partition("#")
        fields = head.split()
        try:
            if len(fields) == 2 and stats is not None:
                name, value = fields
                stat = Stat(_number(value), None, None, description.strip())
            elif len(fields) == 4 and stats is not None:
                name, value, pdf, cdf = fields
                stat = Stat(_number(value), _percent(pdf), _percent(cdf), description.strip())
            else:
                marker = line.strip()
                if not marker:
                    continue
                if marker == BEGIN and stats is None:
                    stats, begin_line = {}, lineno
                    continue
                if marker == END and stats is not None:
                    yield Dump(where, index, begin_line, MappingProxyType(stats))
                    stats, index = None, index + 1
                    continue
                raise ValueError(_misplaced(marker, stats is not None, begin_line))
        except ValueError as e:
            raise StatsParseError(f"{where}:{lineno}: {e}: {clip(line.rstrip())}") from None
        if name in stats:
            raise StatsParseError(f"{where}:{lineno}: {name} appears twice in the dump "
                                  f"begun at line {begin_line}")
        stats[name] = stat
    if stats is not None:
        raise StatsParseError(f"{where}:{begin_line}: dump {index} has no End marker "
                              f"(file ends at line {lineno}; gem5 still writing or killed?)")


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
