"""`g5net collect`: one table of every run of a sweep."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..analysis import table
from ..analysis.long_table import long_table
from ..runs import store
from ..runs.locate import locate
from . import add_source


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "collect",
        help="flatten the runs of a sweep (or of any folder) into one Parquet or CSV table",
        description="Write one row per point of the sweep directory SOURCE that has a run, "
                    "whatever its status, in point order; of a run directory or a folder of run "
                    "directories (results/ after several g5net run), one row per run, by name.",
        epilog="Columns: point, run_id, status, run_dir (the run directory's name), then "
               "sweep.<path> (each swept and derived key), spec.<key> (every leaf of the "
               "resolved spec, e.g. spec.hosts.client.nic.mtu), metrics.<host>.<workload>.<metric> "
               "(metrics.json), results.<host>.<...> (results.json) and run.<...> (timings, "
               "engine version, node). Lists are JSON text; a value a run lacks is empty.\n"
               "Parquet needs pyarrow; CSV needs nothing.\n"
               "Exit status: 0 written, 2 SOURCE holds no run yet.\n"
               "Example: g5net collect results/sweep-quick -o quick.parquet",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source(p)
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE",
                   help="the table file to write: .parquet or .csv")
    p.add_argument("--long", action="store_true",
                   help="the long (tidy) table instead: one row per run, host, workload and "
                        "metric, with columns run, status, the swept parameters, host, "
                        "workload, metric, value, ci95, unit (what g5net.load returns)")
    p.add_argument("--json", action="store_true",
                   help="print {\"output\", \"rows\", \"columns\"} as JSON on stdout")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    source = args.source.resolve()
    columns, rows = long_table(source) if args.long else store.collect(locate(source))
    table.write_table(args.output, columns, rows)
    if args.json:
        print(json.dumps({"output": str(args.output), "rows": len(rows), "columns": len(columns)}))
    elif not args.quiet:
        print(f"{args.output}: {len(rows)} rows, {len(columns)} columns", file=sys.stderr)
    return 0
