"""What a gem5 text stats file holds: dumps of named statistics."""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from dataclasses import dataclass
from typing import NamedTuple


# A NamedTuple rather than a frozen dataclass: the parser makes one per line and
# a NamedTuple is built three to four times faster (it decides the parser's speed).
class Stat(NamedTuple):
    """One line of a dump.

    Vector entries, distribution fields and histogram buckets are Stats of
    their own, named as in the file (`x::cpu0`, `x::mean`, `x::0-3`), so that
    a name means the same thing in every gem5 generation.
    """

    # Integral tokens stay int: 64-bit counters and tick counts lose digits as floats.
    value: int | float
    # Share of the vector or distribution total as gem5 prints it ("67.29%" -> 67.29);
    # None on lines without the two percentage columns.
    pdf_percent: float | None = None
    cdf_percent: float | None = None
    # As written after '#'; v21+ appends the unit, e.g. "(Count)", which is left in.
    description: str = ""


@dataclass(frozen=True, eq=False)
class Dump(Mapping[str, Stat]):
    """The stats between one Begin and one End marker, keyed by full name."""

    path: str
    index: int  # 0 for the first dump in the file
    line: int  # line number of the Begin marker
    stats: Mapping[str, Stat]

    def __getitem__(self, name: str) -> Stat:
        return self.stats[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.stats)

    def __len__(self) -> int:
        return len(self.stats)

    def value(self, name: str) -> int | float:
        return self.stats[name].value

    # The stats' own views rather than Mapping's, which would look up each name
    # through __getitem__: a reader of every stat goes at the mapping's speed.
    def items(self) -> ItemsView[str, Stat]:
        return self.stats.items()

    def values(self) -> ValuesView[Stat]:
        return self.stats.values()
