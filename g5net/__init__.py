"""g5net: dual-host full-system network experiments on gem5 and QEMU.

    import g5net
    df = g5net.load("results/sweep-quick")   # a run, a sweep or a folder of runs

docs/python.md shows each function at work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .version import __version__

__all__ = ["__version__", "load", "load_curves", "load_stats", "study_results"]

# pandas and the readers are imported only when a function is called: `import
# g5net` stays as quick as the command line's start.


def load(path: str | Path, *, wide: bool = False) -> Any:
    """The metrics of a run, sweep or folder of runs (at any depth) as a pandas
    DataFrame, one row per run, host, workload and metric (g5net/analysis/dataframe.py)."""
    from .analysis.dataframe import load as load_frame
    return load_frame(path, wide=wide)


def load_curves(path: str | Path) -> Any:
    """The NetPIPE curves of a run, sweep or folder of runs: one row per run,
    host, workload and message size."""
    from .analysis.dataframe import load_curves as load_curve_frame
    return load_curve_frame(path)


def load_stats(run: str | Path) -> Any:
    """The gem5 statistics of one run directory: one row per dump and stat."""
    from .analysis.dataframe import load_stats as load_stats_frame
    return load_stats_frame(run)


def study_results(name: str, scale: str | None = None) -> Path:
    """The folder of a built-in study's committed results at `scale` (default:
    the largest scale committed whole, passing over one still under way, whose
    points are committed as they finish; `g5net study list` names the
    studies), for `load`: `g5net.load(g5net.study_results("niagara2-nic"))`."""
    from .study import results
    from .study.builtin import SCALES, load as load_study
    from .errors import StudyError
    study = load_study(name)
    if scale is None:
        scale = results.largest(study)
    elif scale not in SCALES:
        raise StudyError(f"no scale {scale!r} (scales: {', '.join(SCALES)})")
    return study.results(scale)
