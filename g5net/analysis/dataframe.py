"""`g5net.load`: the metrics of a run, a sweep or a folder of runs as a pandas
DataFrame (g5net/analysis/long_table.py says which rows and columns). pandas is an
optional extra, imported only here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ReportError
from .long_table import long_table


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ReportError("g5net.load needs pandas: pip install 'g5net[pandas]'") from None
    return pandas


def load(path: str | Path, *, wide: bool = False) -> Any:
    """The runs at `path` as a DataFrame.

    Long (default): one row per run, host, workload and metric, with columns
    run, status, the swept parameters, host, workload, metric, value, unit.
    `wide=True`: one row per run, host and workload, one column per metric;
    the units are then in `df.attrs["units"]` (metric -> unit).
    """
    pd = _pandas()
    columns, rows = long_table(Path(path))
    df = pd.DataFrame(rows, columns=columns)
    if not wide:
        return df
    index = [c for c in columns if c not in ("metric", "value", "unit")]
    units = dict(zip(df["metric"], df["unit"]))
    # Parameters may be missing (None) for some runs: pivot_table would drop those rows.
    out = df.set_index([*index, "metric"])["value"].unstack("metric", sort=False).reset_index()
    out.columns.name = None
    out.attrs["units"] = {m: units[m] for m in out.columns if m in units}
    return out

