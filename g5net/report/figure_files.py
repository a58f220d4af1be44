"""How a report's figures look and are written: one style for every plot, and
each figure as PNG (for report.html), SVG and PDF (for papers and slides).
The report's plotting modules take pyplot from here, after the backend is set."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # before pyplot: reports are written on machines without a display
import matplotlib.pyplot as plt  # noqa: E402

PNG_DPI = 150
VECTOR_FORMATS = ("svg", "pdf")
# Text stays text in the vector files (searchable, editable in Inkscape or
# Illustrator; SVG's default draws every glyph as a path), and no timestamp is
# written, so that the same runs give the same files.
_VECTOR_RC: Any = {"svg.fonttype": "none", "pdf.fonttype": 42}
_NO_DATE = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}

SERIES_COLOURS = plt.rcParams["axes.prop_cycle"].by_key()["color"]  # tab10


@dataclass(frozen=True)
class Figure:
    title: str
    file: str  # the PNG, which the pages show
    also: tuple[str, ...] = ()  # the same figure in the vector formats

    @property
    def files(self) -> tuple[str, ...]:
        return (self.file, *self.also)


def style(ax) -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(True, color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)


def save(fig, out: Path, name: str, title: str) -> Figure:
    """Write `fig` as out/name.png, .svg and .pdf, and close it."""
    fig.savefig(out / f"{name}.png", dpi=PNG_DPI, bbox_inches="tight")
    with matplotlib.rc_context(_VECTOR_RC):
        for fmt in VECTOR_FORMATS:
            fig.savefig(out / f"{name}.{fmt}", bbox_inches="tight", metadata=_NO_DATE[fmt])
    plt.close(fig)
    return Figure(title, f"{name}.png", tuple(f"{name}.{fmt}" for fmt in VECTOR_FORMATS))
