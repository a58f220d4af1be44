"""`g5net check`: hold a run or a sweep to the expectations of a file."""

from __future__ import annotations

import argparse
import json

from ..analysis import check
from ..report import runs
from . import add_source, bundled_file


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="check the metrics of a run, sweep or folder against an expectations file",
        description="Evaluate the bounds and relations of an expectations file (TOML) on the "
                    "metrics.json of every run SOURCE holds (one run directory, a sweep "
                    "directory, or a folder of run directories). "
                    "The file format is described in g5net/analysis/check.py and shown by "
                    "results/expectations/quickstart.toml.",
        epilog="A comparison of metrics measured over windows (each the mean of its windows, "
               "with a 95% confidence interval) holds or fails only where Welch's t test finds "
               "the difference significant at 95%; otherwise it is within noise: one NOISE line "
               "each, with both sides as mean ± half-width, and not a failure.\n"
               "Exit status: 0 every check holds or is within noise, 1 a check failed (one line "
               "per failure, naming the check), 2 the expectations file is malformed (the message "
               "names the line or key) or the directory cannot be read.\n"
               "Example: g5net check results/quickstart-1a2b3c4d5e6f "
               "--expect results/expectations/quickstart.toml",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source(p)
    p.add_argument("--expect", type=bundled_file, required=True, metavar="FILE.toml", help="expectations file")
    p.add_argument("--json", action="store_true",
                   help="print {\"failures\": [line, ...], \"within_noise\": [line, ...], "
                        "\"compared\", \"runs\"} as JSON")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    expectations = check.load(args.expect)
    found = runs.load(args.source)
    outcome = check.evaluate(expectations, found)
    if args.json:
        print(json.dumps({"failures": list(outcome.failures), "within_noise": list(outcome.within_noise),
                          "compared": outcome.checked, "runs": len(found)}, indent=1))
        return 1 if outcome.failures else 0
    for line in outcome.failures:
        print(f"FAIL {line}")
    for line in outcome.within_noise:
        print(f"NOISE {line}")
    noise = f"{len(outcome.within_noise)} within noise, " if outcome.within_noise else ""
    print(f"{len(outcome.failures)} failed, {noise}{outcome.checked} compared "
          f"({len(found)} run(s), {args.expect})")
    return 1 if outcome.failures else 0
