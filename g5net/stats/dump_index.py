"""One dump of a gem5 stats file without parsing the dumps before it.

A sweep's stats files run to gigabytes, and most readers want one dump: the
last (gem5's at exit) or the N-th (a workload's). A byte scan finds where each
dump begins (memchr speed, in blocks, in flat memory); only the chosen dump is
parsed. The dumps before it are not checked: a damaged earlier dump is an error
only for readers that read it (`iter_dumps`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import BinaryIO, Literal

from ..errors import StatsParseError
from .model import Dump
from .parse import BEGIN, dumps_from, iter_dumps, open_stats

Choice = int | Literal["last"]

# Bytes read at a time by the scan: large enough that the scan runs at memory
# speed, small enough that it adds nothing noticeable to the reader's memory.
BLOCK_BYTES = 1 << 20
_NEEDLE = BEGIN.encode()


def read_dump(path: str | os.PathLike[str], choice: Choice) -> Dump:
    """Dump `choice` of `path` (counting from 0, or `last`), as `iter_dumps` yields it.

    Raises StatsParseError as `iter_dumps` does for the chosen dump and, for
    `last`, for anything after it; and when the file has no such dump.
    """
    where = os.fspath(path)
    with open_stats(where) as f:
        starts = begin_lines(f)
        if not starts:
            # No Begin marker (nothing to skip), or line ends that the byte scan
            # does not count as text mode does: the full parse says what is there.
            return pick(iter_dumps(where), choice, where)
        last = len(starts) - 1
        k = last if choice == "last" else min(choice, last)
        offset, line = starts[k]
        f.seek(offset)
        dumps = dumps_from(f, where, line, k)
        if k < last:
            return next(iter(dumps))  # what comes later is not this reader's business
        # The last dump is read to the end of the file, which checks what follows it.
        (dump,) = dumps
        if choice != "last" and choice != k:
            raise StatsParseError(_no_such_dump(where, choice, len(starts)))
        return dump


def begin_lines(f: BinaryIO) -> list[tuple[int, int]]:
    """(byte offset, line number) of each line of `f` that is a Begin marker, in
    file order; [] if `f` holds a carriage return, which the text-mode parser
    takes for a line end as well."""
    candidates = []  # (offset of the line, its number) of each line holding the marker
    newlines = 0  # in the file before `base`
    base = 0  # file offset of data[0]
    line_start = 0  # of the line `base` is in
    data = b""
    while block := f.read(BLOCK_BYTES):
        if b"\r" in block:
            return []
        data += block
        seen = 0
        i = data.find(_NEEDLE)
        while i != -1:
            newlines += data.count(b"\n", seen, i)
            seen = i
            nl = data.rfind(b"\n", 0, i)
            candidates.append((line_start if nl == -1 else base + nl + 1, newlines + 1))
            i = data.find(_NEEDLE, i + 1)
        # Keep the bytes that could begin a marker cut by the block's end.
        keep = min(len(data), len(_NEEDLE) - 1)
        cut = len(data) - keep
        newlines += data.count(b"\n", seen, cut)
        nl = data.rfind(b"\n", 0, cut)
        if nl != -1:
            line_start = base + nl + 1
        base += cut
        data = data[cut:]
    return [(offset, line) for offset, line in candidates if _is_begin(f, offset)]


def _is_begin(f: BinaryIO, offset: int) -> bool:
    # The parser's own test: the whole line, decoded and stripped, is the marker.
    f.seek(offset)
    return f.readline().decode("utf-8", errors="replace").strip() == BEGIN


def pick(dumps: Iterable[Dump], choice: Choice, where: str) -> Dump:
    """Dump `choice` of `dumps`, all of `where`'s in file order."""
    count = 0
    last = None
    for last in dumps:
        if choice == last.index:
            return last
        count += 1
    if choice == "last" and last is not None:
        return last
    raise StatsParseError(_no_such_dump(where, choice, count))


def _no_such_dump(where: str, choice: Choice, count: int) -> str:
    if not count:
        return f"{where}: holds no stats dumps"
    return (f"{where}: no dump {choice}: the file holds {count} dump(s), "
            f"numbered 0 to {count - 1}")
