"""A paper's published values (`paper.csv` of a study), typed in from the paper.

Columns: figure (the study figure's name it belongs beside), series (the
paper's label for the line or bar, e.g. "INIC"), x, y (numbers, in the units
the figure's axes use), unit (of y), source (where in the paper: "Fig. 7",
"Table 2", "Sec. 4.1 text"). A value read off a plot is as exact as the plot.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ..errors import StudyError, quoted
from ..machine import bounded_read

COLUMNS = ("figure", "series", "x", "y", "unit", "source")


@dataclass(frozen=True)
class PaperPoint:
    figure: str
    series: str
    x: float
    y: float
    unit: str
    source: str


def load(path: Path) -> tuple[PaperPoint, ...]:
    try:
        text = bounded_read.read_text(path)
    except OSError as e:
        raise StudyError(f"{path}: cannot read: {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise StudyError(f"{path}: not UTF-8 text (byte {e.start})") from None
    rows = csv.DictReader(text.splitlines())
    if tuple(rows.fieldnames or ()) != COLUMNS:
        raise StudyError(f"{path}: the header must be {','.join(COLUMNS)} (got {rows.fieldnames})")
    out = []
    for n, row in enumerate(rows, 2):
        try:
            x, y = float(row["x"]), float(row["y"])
        except (TypeError, ValueError):
            raise StudyError(f"{path}: row {n}: x and y must be numbers "
                             f"(got {quoted(row['x'])}, {quoted(row['y'])})") from None
        if not all(row[c] for c in ("figure", "series", "unit", "source")):
            raise StudyError(f"{path}: row {n}: figure, series, unit and source are required")
        out.append(PaperPoint(row["figure"], row["series"], x, y, row["unit"], row["source"]))
    return tuple(out)
