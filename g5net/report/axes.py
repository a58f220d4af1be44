"""An x axis that names what moves along it: the swept key and its partners
(the other axes of its zip group and keys derived from it, runs.partners),
whose values are printed under each tick, so that a reader of the plot knows
that 4 streams came with 64 KiB messages without the table."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .labels import value_text
from .runs import Run, fmt_value, short

Format = Callable[[Any], str]

# Partners named on the axis and under each tick: more would crowd the plot
# (a run alone at an x value has every key of its own as a partner).
MAX_PARTNERS = 3


def _shown(partners: Sequence[str]) -> tuple[Sequence[str], int]:
    return partners[:MAX_PARTNERS], max(len(partners) - MAX_PARTNERS, 0)


def axis_label(label: str, partners: Sequence[str]) -> str:
    if not partners:
        return label
    shown, more = _shown(partners)
    return (f"{label}\n(paired with {', '.join(short(k) for k in shown)}"
            + (f" and {more} more" if more else "") + ")")


def tick_labels(runs: Sequence[Run], key: str, values: Sequence[Any], partners: Sequence[str],
                fmt: Format = fmt_value) -> list[str]:
    """One label per value of `key`: the value, then `name=value` of each partner."""
    at = {repr(r.params.get(key)): r for r in runs}
    partners = _shown(partners)[0]
    out = []
    for v in values:
        run = at[repr(v)]
        out.append("\n".join([fmt(v), *(f"{k.rpartition('.')[2]}={value_text(k, run.params.get(k))}"
                                        for k in partners)]))
    return out
