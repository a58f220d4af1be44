"""Writing the collected table of a sweep (`g5net collect`): CSV, or Parquet
where pyarrow is installed."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import RunnerError


def write_csv(path: Path, columns: list[str], rows: Iterable[Mapping[str, Any]]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, restval="")
        w.writeheader()
        w.writerows(rows)


def write_parquet(path: Path, columns: list[str], rows: Sequence[Mapping[str, Any]]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise RunnerError("writing Parquet needs pyarrow: pip install 'g5net[table]' "
                          "(or write .csv)") from None
    arrays = []
    for name in columns:
        values = [r.get(name) for r in rows]
        try:
            arrays.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            # One column holding numbers in one run and text in another: keep it as text.
            arrays.append(pa.array([None if v is None else str(v) for v in values]))
    pq.write_table(pa.Table.from_arrays(arrays, names=columns), path)


WRITERS = {".csv": write_csv, ".parquet": write_parquet}


def write_table(path: Path, columns: list[str], rows: Sequence[Mapping[str, Any]]) -> None:
    writer = WRITERS.get(path.suffix)
    if writer is None:
        raise RunnerError(f"{path}: unknown table format {path.suffix!r} "
                          f"(allowed: {', '.join(WRITERS)})")
    writer(path, columns, rows)
