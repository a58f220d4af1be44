"""The tables of g5net/analysis/ as pandas DataFrames: `g5net.load` (metrics,
g5net/analysis/long_table.py), `g5net.load_curves` (NetPIPE curves,
g5net/analysis/curves.py) and `g5net.load_stats` (a run's gem5 statistics,
g5net/analysis/stats_table.py). pandas is an optional extra, imported only
here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ReportError
from .curves import curve_table
from .long_table import long_table
from .stats_table import COLUMNS as STATS_COLUMNS
from .stats_table import stats_rows


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ReportError("g5net.load needs pandas: pip install 'g5net[pandas]'") from None
    return pandas


def load(path: str | Path, *, wide: bool = False) -> Any:
    """The runs at `path` as a DataFrame.

    Long (default): one row per run, host, workload and metric, with columns
    run, status, the swept parameters, host, workload, metric, value, ci95
    (the half-width of the value's 95% interval where windows or repeats
    measured it), unit. `wide=True`: one row per run, host and workload, one
    column per metric (the values; the long form has their intervals); the
    units are then in `df.attrs["units"]` (metric -> unit).
    """
    pd = _pandas()
    columns, rows = long_table(Path(path))
    df = pd.DataFrame(rows, columns=columns)
    if not wide:
        return df
    index = [c for c in columns if c not in ("metric", "value", "ci95", "unit")]
    units = dict(zip(df["metric"], df["unit"]))
    # Parameters may be missing (None) for some runs: pivot_table would drop those rows.
    out = df.set_index([*index, "metric"])["value"].unstack("metric", sort=False).reset_index()
    out.columns.name = None
    out.attrs["units"] = {m: units[m] for m in out.columns if m in units}
    return out


def load_curves(path: str | Path) -> Any:
    """The NetPIPE curves of the runs at `path`: one row per run, host, workload
    and message size (msg_bytes, latency_us, throughput_mbps), with the run's
    parameters as in `load`."""
    columns, rows = curve_table(Path(path))
    return _pandas().DataFrame(rows, columns=columns)


def load_stats(run: str | Path) -> Any:
    """The gem5 statistics of the run directory `run`: one row per dump and stat
    (dump, workload, host, name, value, unit, description)."""
    return _pandas().DataFrame(stats_rows(Path(run)), columns=list(STATS_COLUMNS))
