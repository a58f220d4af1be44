"""The CLI's commands, one module each (g5net/cli.py lists them)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import home


def bundled_file(text: str) -> Path:
    """An argparse type for a spec, expectations file or study's results: as
    typed, or the copy in g5net's own tree of `examples/NAME.toml` or
    `studies/NAME/results/SCALE` (g5net/home.py's bundled)."""
    return home.bundled(Path(text))


def add_source(p: argparse.ArgumentParser) -> None:
    """The positional SOURCE of every command that reads runs (g5net/runs/locate.py)."""
    p.add_argument("source", type=bundled_file, metavar="SWEEPDIR|RUNDIR|FOLDER",
                   help="a sweep directory (the --out of g5net sweep), a run directory, or a "
                        "folder of run directories (results/ after several g5net run)")


def add_gem5_args(p: argparse.ArgumentParser) -> None:
    """--gem5-arg of the commands that run gem5 (g5net/engines/gem5/gem5_args.py)."""
    p.add_argument("--gem5-arg", action="append", default=[], metavar="FLAG",
                   help="pass FLAG to gem5 in the measured phase, one word each "
                        "(--gem5-arg=--debug-flags=Ethernet --gem5-arg=--debug-file=eth.log; "
                        "the trace lands in the run's m5out/); recorded in run.json, and part "
                        "of the run id unless it only adds gem5's debug output; repeatable")


def add_sources(p: argparse.ArgumentParser) -> None:
    """One or more SOURCEs, read together (g5net report)."""
    p.add_argument("sources", type=bundled_file, nargs="+", metavar="SWEEPDIR|RUNDIR|FOLDER",
                   help="sweep directories (the --out of g5net sweep), run directories, or "
                        "folders of run directories (results/ after several g5net run)")
