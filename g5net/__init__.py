"""g5net: dual-host full-system network experiments on gem5 and QEMU.

    import g5net
    df = g5net.load("results/sweep-quick")   # a run, a sweep or a folder of runs
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# The one version source (pyproject.toml reads it).
__version__ = "0.2.0"


def load(path: str | Path, *, wide: bool = False) -> Any:
    """The metrics of a run, sweep or folder of runs as a pandas DataFrame
    (g5net/analysis/dataframe.py); pandas is imported only when this is called."""
    from .analysis.dataframe import load as load_frame
    return load_frame(path, wide=wide)
