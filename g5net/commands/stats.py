"""`g5net stats`: print the statistics gem5 wrote to `m5out/stats.txt`, all or one host's."""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from .. import run_record
from ..errors import ReportError, StatsParseError
from ..rundir import RunDir
from ..stats import Dump, iter_dumps

# Which stats to print, by full name.
Keep = Callable[[str], bool]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "stats",
        help="print a gem5 stats.txt as text, JSON or CSV",
        description="Print one dump (or every dump) of a gem5 text stats file, of any gem5\n"
                    "generation from 2016 to v24, or of a run directory's m5out/stats.txt; all\n"
                    "stats or one host's (--host). Names are printed as gem5 wrote them: vector\n"
                    "entries, distribution fields and histogram buckets are stats of their own\n"
                    "(x::cpu0, x::total, x::mean, x::0-3). A value is the first number of its\n"
                    "line; pdf/cdf percentages are not printed.",
        epilog="Output: text is aligned name/value lines; --json is one object mapping name to\n"
               "value, or with --dump all a list of them in file order; --csv is dump,name,value\n"
               "rows under a header. JSON has no nan or inf: they are the strings \"nan\",\n"
               "\"inf\" and \"-inf\".\n"
               "Exit status: 0 printed, 2 the file is unreadable or malformed (the message\n"
               "names the line) or has no such dump, or the run has no such host.\n"
               "Examples: g5net stats m5out/stats.txt --dump all --match EtherDevice --csv\n"
               "          g5net stats results/quickstart-1a2b3c4d5e6f --host client --dump 0",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", type=Path, metavar="FILE|RUNDIR",
                   help="gem5 text stats file, or a run directory (its m5out/stats.txt)")
    p.add_argument("--dump", type=_dump_choice, default="last", metavar="N|last|all",
                   help="which dump: N counts from 0 in file order; last (default) is the one "
                        "gem5 wrote last, at exit or at the last m5 dumpstats; all is every dump")
    p.add_argument("--match", type=_regex, metavar="REGEX",
                   help="only stats whose full name REGEX matches anywhere (Python re.search)")
    p.add_argument("--host", metavar="NAME",
                   help="only the stats of host NAME: of a run directory, under the prefix its "
                        "run.json records for NAME (gem5 renames a host such as client-1 to "
                        "host_client_1); of a stats file, under the prefix NAME as written")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON (see below)")
    fmt.add_argument("--csv", action="store_true", help="print CSV rows dump,name,value")
    p.set_defaults(func=main)


def _dump_choice(text: str) -> int | str:
    if text in ("last", "all"):
        return text
    if text.isdigit():
        return int(text)
    raise argparse.ArgumentTypeError(f"{text!r} is not a dump number (0, 1, ...), 'last' or 'all'")


def _regex(text: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"bad regular expression {text!r}: {e}") from None


def main(args: argparse.Namespace) -> int:
    stats_txt, prefix = _source(args.file, args.host)
    keep = _keep(args.match, prefix)
    dumps = _select(stats_txt, args.dump)
    try:
        if args.json:
            _print_json(dumps, keep, as_list=args.dump == "all")
        elif args.csv:
            _print_csv(dumps, keep)
        else:
            _print_text(dumps, keep, headers=args.dump == "all")
    except BrokenPipeError:
        # The reader (head, less) had enough: not an error. Stdout goes to /dev/null
        # so that the interpreter's last flush does not fail on the pipe again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _source(path: Path, host: str | None) -> tuple[Path, str | None]:
    """(the stats file, the prefix of `host`'s stats in it, if a host was asked for)."""
    rd = RunDir(path)
    if not rd.run_json.is_file():
        return path, host
    if host is None:
        return rd.stats_txt, None
    record = rd.read_run()
    hosts = list(record["spec"]["hosts"])
    if host not in hosts:
        raise ReportError(f"{path}: no host {host!r} in this run (hosts: {', '.join(hosts)})")
    return rd.stats_txt, run_record.board(record.get("boards"), host)


def _keep(match: re.Pattern[str] | None, prefix: str | None) -> Keep:
    return lambda name: ((prefix is None or name.startswith(f"{prefix}."))
                         and (match is None or match.search(name) is not None))


def _select(path: Path, choice: int | str) -> Iterator[Dump]:
    """The chosen dumps, each as soon as it is read (`last` only at the end of the file).
    `all` reads the file once more first, here, so that a damaged dump is found
    before anything is printed."""
    if choice == "all" and not sum(1 for _ in iter_dumps(path)):
        raise StatsParseError(f"{path}: holds no stats dumps")
    return _chosen(path, choice)


def _chosen(path: Path, choice: int | str) -> Iterator[Dump]:
    count = 0
    last = None
    for dump in iter_dumps(path):
        count += 1
        if choice == "all" or choice == dump.index:
            yield dump
            if choice != "all":
                return
        last = dump
    if choice == "last" and last is not None:
        yield last
    elif choice != "all":
        if not count:
            raise StatsParseError(f"{path}: holds no stats dumps")
        raise StatsParseError(f"{path}: no dump {choice}: the file holds {count} dump(s), "
                              f"numbered 0 to {count - 1}")


def _rows(dump: Dump, keep: Keep) -> list[tuple[str, int | float]]:
    return [(name, stat.value) for name, stat in dump.items() if keep(name)]


def _json_value(value: int | float) -> int | float | str:
    return value if math.isfinite(value) else str(value)  # "nan", "inf", "-inf"


def _print_json(dumps: Iterator[Dump], keep: Keep, as_list: bool) -> None:
    # Written dump by dump so that --dump all on a large file runs in flat memory.
    objects = ({name: _json_value(value) for name, value in _rows(dump, keep)} for dump in dumps)
    if not as_list:
        for obj in objects:  # exactly one
            print(json.dumps(obj, indent=1))
        return
    print("[", end="")
    for i, obj in enumerate(objects):
        print("," if i else "", "\n", json.dumps(obj, indent=1), sep="", end="")
    print("\n]")


def _print_csv(dumps: Iterator[Dump], keep: Keep) -> None:
    out = csv.writer(sys.stdout, lineterminator="\n")
    for i, dump in enumerate(dumps):
        # The header with the first dump, not before: a file with none prints nothing.
        if not i:
            out.writerow(("dump", "name", "value"))
        out.writerows((dump.index, name, value) for name, value in _rows(dump, keep))


def _print_text(dumps: Iterator[Dump], keep: Keep, headers: bool) -> None:
    for dump in dumps:
        rows = _rows(dump, keep)
        if headers:
            if dump.index:
                print()
            print(f"# dump {dump.index} (line {dump.line})")
        width = max((len(name) for name, _ in rows), default=0)
        for name, value in rows:
            print(f"{name:<{width}}  {value}")
