"""`g5net report`: tables and plots of a run or a sweep."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import add_source


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write report.md and report.html (tables and PNG plots) for a run, sweep or folder",
        description="Read the metrics.json of every run SOURCE holds (one run directory, a "
                    "sweep directory, or a folder of run directories), and write report.md and report.html with tables and PNG plots "
                    "into -o DIR. Plots are drawn where the sweep varies their x parameter "
                    "(message size, connections); every report has the per-packet tables and, "
                    "where a workload was profiled, the CPU time breakdown.",
        epilog="Exit status: 0 written, 2 the directory holds no readable run.\n"
               "Example: g5net report results/sweep-quick -o report/sweep-quick",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source(p)
    p.add_argument("-o", "--out", type=Path, required=True, metavar="DIR", help="write the report here")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    # matplotlib takes ~0.4 s to import: only `g5net report` pays for it.
    from ..report.build import build

    for path in build(args.source, args.out):
        print(path)
    return 0
