"""`g5net report`: tables and plots of a run or a sweep."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import add_sources
from ..errors import UsageError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write report.md and report.html (tables, and plots as PNG, SVG and PDF) for runs",
        description="Read the metrics.json of every run each SOURCE holds (a run directory, a "
                    "sweep directory, or a folder of run directories; several are reported "
                    "together, e.g. a sweep and its repeat), and write report.md and "
                    "report.html with tables and plots into --out DIR. With --x and --y, the "
                    "report opens with a plot of any metric against any parameter: lines where "
                    "the parameter is numeric, bars on each value's tick where it is not "
                    "(nic.attach, cpu.model); runs with identical parameters are averaged, their "
                    "min and max drawn as error bars. --hue alone decides the colours, one per "
                    "value. Every other parameter that varies on its own among the plotted runs "
                    "makes panels, one per combination of its values (up to 9, three to a row, "
                    "each titled with them); where there are more, the plot is refused, naming "
                    "those parameters: pick with --where KEY=VALUE or make one --hue. Fixed plots follow where the sweep varies their x "
                    "(message size, connections); every report has the per-packet tables and, "
                    "where a workload was profiled, the CPU time breakdown.",
        epilog="KEY is a parameter as sweeps name it (host.nic.mtu, workloads.stream.msg_bytes) "
               "or a unique ending of one (nic.mtu, mtu); keys that move with --x (its zip "
               "group, keys derived from it) are named on the axis. METRIC is a metrics.json "
               "name (throughput_mbps, latency_us, cpu_util; docs/metrics.md).\n"
               "Exit status: 0 written, 2 no readable run, or a KEY or METRIC the runs lack.\n"
               "Examples: g5net report results/sweep-quick --out report/sweep-quick\n"
               "          g5net report results/nic --out report/nic --x host.nic.attach "
               "--y throughput_mbps --hue host.nic.mtu --host client\n"
               "          g5net report studies/10gbe/results/quick --out report/10gbe --x nic.mtu "
               "--y throughput_mbps --hue cpu.model --where window_bytes=65536",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_sources(p)
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="folder to write the report into (made if missing)")
    plot = p.add_argument_group("a plot of any metric against any parameter")
    plot.add_argument("--x", metavar="KEY", help="the parameter along the x axis")
    plot.add_argument("--y", metavar="METRIC", help="the metric up the y axis")
    plot.add_argument("--hue", metavar="KEY", help="one colour per value of this parameter")
    plot.add_argument("--host", action="append", default=[], metavar="NAME",
                      help="this host (repeatable: a line style each; 'aggregate': every client "
                           "together; default: the server, the receiving side of a stream, or "
                           "the clients where no server has METRIC, as for NetPIPE's latency)")
    plot.add_argument("--workload", action="append", default=[], metavar="NAME",
                      help="only this workload (repeatable; default: every one with METRIC)")
    plot.add_argument("--where", action="append", default=[], type=_where, metavar="KEY=VALUE",
                      help="only the runs whose KEY has VALUE, spelled as in the TOML "
                           "(repeatable: every one must hold)")
    p.add_argument("--json", action="store_true", help="print the files written as a JSON list")
    p.set_defaults(func=main)


def _where(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (e.g. nic.mtu=9000)")
    return key.strip(), value.strip()


def _plot(args: argparse.Namespace):
    """The --x/--y plot asked for (an xy_plot.XY), or None."""
    from ..report.xy_plot import XY  # with matplotlib: only when a report is written

    if args.x is None and args.y is None:
        given = [f for f, v in (("--hue", args.hue), ("--host", args.host),
                                ("--workload", args.workload), ("--where", args.where)) if v]
        if given:
            raise UsageError(f"{', '.join(given)} choose what --x and --y plot: give --x and --y too")
        return None
    if args.x is None or args.y is None:
        raise UsageError("--x and --y go together: --x KEY --y METRIC")
    return XY(args.x, args.y, args.hue, tuple(args.host), tuple(args.workload), tuple(args.where))


def main(args: argparse.Namespace) -> int:
    # matplotlib takes ~0.4 s to import: only `g5net report` pays for it.
    from ..report.build import build

    files = build(args.sources, args.out, _plot(args))
    if args.json:
        print(json.dumps([str(f) for f in files], indent=1))
    else:
        for path in files:
            print(path)
    return 0
