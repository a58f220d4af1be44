"""Which runs a path names, one rule for every command that reads runs
(`report`, `check`, `collect`, `status`):

- a run directory (it holds run.json): that run;
- a sweep directory, as `g5net sweep --out DIR` writes it (sweep.json and
  runs/): its runs, and its plan;
- any other folder with run directories at any depth (`results/` after
  several `g5net run` and sweeps, `studies/`): those runs.

Runs still being written (`.tmp-*`) and damaged runs a sweep moved aside
(`*.corrupt-<n>`) are never among them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import StoreError
from ..machine.staged_dir import TMP_PREFIX
from .rundir import SET_ASIDE, RunDir
from .sweepdir import SweepDir

KINDS = ("run", "sweep", "folder")
FORMS = ("a run directory (run.json), a sweep directory (sweep.json and runs/) or a "
         "folder with run directories at any depth")


@dataclass(frozen=True)
class Located:
    path: Path
    kind: str  # one of KINDS
    runs: tuple[RunDir, ...]  # committed runs, by directory name
    sweep: SweepDir | None = None  # where kind is "sweep"

    def some_runs(self) -> tuple[RunDir, ...]:
        """The runs, for a command that reads them (report, check): only a sweep
        can have none yet, and that is no report."""
        if not self.runs:
            raise StoreError(f"{self.path}: the sweep has no run yet "
                             f"(`g5net status {self.path}` lists its points)")
        return self.runs


def _runs_in(folder: Path) -> tuple[RunDir, ...]:
    return tuple(RunDir(p.parent) for p in sorted(folder.glob("*/run.json")) if _committed(p.parent))


def _committed(path: Path) -> bool:
    return not path.name.startswith(TMP_PREFIX) and SET_ASIDE not in path.name


def _runs_below(folder: Path) -> tuple[RunDir, ...]:
    """Every committed run at any depth under `folder`, by path: a run directory
    is not searched further (its m5out/ holds no runs), nor is a half-made one."""
    found = []
    for top, dirs, _ in os.walk(folder):
        here = Path(top)
        if here != folder and os.path.lexists(RunDir(here).run_json):
            if _committed(here):
                found.append(RunDir(here))
            dirs.clear()
        else:
            dirs[:] = sorted(d for d in dirs if _committed(here / d))
    return tuple(sorted(found, key=lambda rd: rd.path))


def locate(path: Path) -> Located:
    if RunDir(path).run_json.is_file():
        return Located(path, "run", (RunDir(path),))
    sd = SweepDir(path)
    if sd.plan_json.is_file():
        return Located(path, "sweep", _runs_in(sd.store), sd)
    if not path.is_dir():
        why = "not a directory" if path.exists() else "no such directory"
        raise StoreError(f"{path}: {why}: give {FORMS}")
    runs = _runs_below(path)
    if not runs:
        raise StoreError(f"{path}: holds no run: not a run directory (no run.json), a sweep "
                         f"directory (no sweep.json) or a folder with run directories "
                         f"at any depth (no run.json below it)")
    return Located(path, "folder", runs)
