"""`g5net stats`: print the statistics gem5 wrote to `m5out/stats.txt`, all or one host's."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ReportError, StatsParseError
from ..model.numerals import ascii_int
from ..runs import record as run_record
from ..runs.rundir import RunDir
from ..spec import NAME_PATTERN
from ..stats import Dump, iter_dumps, read_dump
from ..stats.export import CSV_HEADER, Rows, csv_rows, json_object, rows, units
from .completion import words

DUMP_WORDS = ("last", "all")
# --dump all is printed once the whole file is parsed (a damaged dump prints
# nothing); till then it is held in a temporary file, copied out this much at a time.
COPY_BYTES = 1 << 20
# The text table's name column is never narrower than this, however narrow
# the terminal; a longer name overflows its line unpadded, so that every stat
# stays one line (for grep and awk).
MIN_NAME_COLUMN = 20


@dataclass(frozen=True)
class Source:
    stats_txt: Path
    prefix: str | None  # of the host asked for
    workloads: tuple[str, ...]  # dump i is workload i (a run directory's); () for a bare file

    def workload(self, index: int) -> str | None:
        return self.workloads[index] if index < len(self.workloads) else None


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "stats",
        help="print a gem5 stats.txt as text, JSON or CSV",
        description="Print one dump (or every dump) of a gem5 text stats file, of any gem5\n"
                    "generation from 2016 to v24, or of a run directory's m5out/stats.txt; all\n"
                    "stats or one host's (--host). Names are printed as gem5 wrote them: vector\n"
                    "entries, distribution fields and histogram buckets are stats of their own\n"
                    "(x::cpu0, x::total, x::mean, x::0-3). A value is the first number of its\n"
                    "line; pdf/cdf percentages are not printed. The unit is the one gem5 v21+\n"
                    "writes at the end of the description (Tick, Count, Tick/Second); older\n"
                    "files have none.",
        epilog="Output: text is one line per stat, name, value and unit, in columns that fit\n"
               "the terminal ($COLUMNS); a longer name overflows its line. --json is one\n"
               "object mapping name to {\"value\", \"unit\", \"description\"} (unit null where\n"
               "the file has none), or with --dump all a list of them in file order; --csv\n"
               "is dump,workload,name,value,unit,description rows under a header. JSON has no\n"
               "nan or inf: they are the strings \"nan\", \"inf\" and \"-inf\".\n"
               "Of a run directory, dump i is workload i in spec order (the guest brackets\n"
               "each with m5 resetstats/dumpstats; the dumps after them are gem5's own at\n"
               "exit): --dump NAME picks a workload's.\n"
               "Exit status: 0 printed, 2 the file is unreadable or malformed (the message\n"
               "names the line) or has no such dump, or the run has no such host or workload.\n"
               "Examples: g5net stats m5out/stats.txt --dump all --match EtherDevice --csv\n"
               "          g5net stats results/quickstart-1a2b3c4d5e6f --host client --dump stream",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", type=Path, metavar="FILE|RUNDIR",
                   help="gem5 text stats file, or a run directory (its m5out/stats.txt)")
    p.add_argument("--dump", type=_dump_choice, default="last", metavar="N|NAME|last|all",
                   help="which dump: N counts from 0 in file order; NAME is a workload's, of a "
                        "run directory; last (default) is the one gem5 wrote last, at exit or "
                        "at the last m5 dumpstats; all is every dump").complete = words(DUMP_WORDS)
    p.add_argument("--match", type=_regex, metavar="REGEX",
                   help="only stats whose full name REGEX matches anywhere (Python re.search)")
    p.add_argument("--host", metavar="NAME",
                   help="only the stats of host NAME: of a run directory, under the prefix its "
                        "run.json records for NAME (gem5 renames a host such as client-1 to "
                        "host_client_1); of a stats file, under the prefix NAME as written")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON (see below)")
    fmt.add_argument("--csv", action="store_true", help="print CSV (see below)")
    p.set_defaults(func=main)


def _dump_choice(text: str) -> int | str:
    """A dump number, `last`, `all`, or else a workload's name (checked against the run)."""
    number = ascii_int(text)
    if number is not None:
        return number
    if not re.fullmatch(NAME_PATTERN, text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a dump number (0, 1, ...), a workload "
                                         f"name, 'last' or 'all'")
    return text


def _regex(text: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"bad regular expression {text!r}: {e}") from None


def main(args: argparse.Namespace) -> int:
    source = _source(args.file, args.host)
    choice = _dump_index(source, args.dump, args.file)
    every = choice == "all"
    dumps = _every_dump(source.stats_txt) if every else \
        iter([read_dump(source.stats_txt, "last" if choice == "last" else int(choice))])
    chosen = ((dump, rows(dump, source.prefix, args.match)) for dump in dumps)
    if args.json:
        text = _json(chosen, as_list=every)
    elif args.csv:
        text = _csv(chosen, source)
    else:
        text = _text(chosen, source, headers=every)
    try:
        if every:
            _print_spooled(text)
        else:
            sys.stdout.writelines(text)
    except BrokenPipeError:
        # The reader (head, less) had enough: not an error. Stdout goes to /dev/null
        # so that the interpreter's last flush does not fail on the pipe again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _source(path: Path, host: str | None) -> Source:
    """The stats file, the prefix of `host`'s stats in it (if a host was asked
    for) and, of a run directory, the workload of each dump."""
    rd = RunDir(path)
    if not rd.run_json.is_file():
        return Source(path, host, ())
    record = rd.read_run()
    workloads = tuple(record["spec"]["workloads"])
    if host is None:
        return Source(rd.stats_txt, None, workloads)
    hosts = list(record["spec"]["hosts"])
    if host not in hosts:
        raise ReportError(f"{path}: no host {host!r} in this run (hosts: {', '.join(hosts)})")
    return Source(rd.stats_txt, run_record.board(record.get("boards"), host), workloads)


def _dump_index(source: Source, choice: int | str, path: Path) -> int | str:
    """`choice` with a workload's name made its dump number."""
    if isinstance(choice, int) or choice in DUMP_WORDS:
        return choice
    if not source.workloads:
        raise ReportError(f"--dump {choice}: a dump is chosen by workload name only of a run "
                          f"directory; {path} is a stats file (give N, last or all)")
    if choice not in source.workloads:
        raise ReportError(f"--dump {choice}: {path} has no workload {choice!r} "
                          f"(workloads, dumps 0 to {len(source.workloads) - 1}: "
                          f"{', '.join(source.workloads)})")
    return source.workloads.index(choice)


def _every_dump(path: Path) -> Iterator[Dump]:
    """The dumps of `path` in file order, each as soon as it is read."""
    count = 0
    for count, dump in enumerate(iter_dumps(path), 1):
        yield dump
    if not count:
        raise StatsParseError(f"{path}: holds no stats dumps")


def _print_spooled(text: Iterable[str]) -> None:
    """`text` printed once all of it is made: nothing at all if making it fails."""
    # Bytes, encoded as stdout would: text mode would decode and encode them again.
    # A file from the start, not a SpooledTemporaryFile: its memory phase and the
    # copy into the file at rollover cost more than the file's writes.
    out = sys.stdout
    with tempfile.TemporaryFile() as spool:
        for chunk in text:
            spool.write(chunk.encode(out.encoding, out.errors or "strict"))
        out.flush()
        spool.seek(0)
        shutil.copyfileobj(spool, out.buffer, COPY_BYTES)


def _json(chosen: Iterable[tuple[Dump, Rows]], as_list: bool) -> Iterator[str]:
    objects = (json_object(dump_rows) for _, dump_rows in chosen)
    # A dump's object is yielded as it is: megabytes, not copied once more.
    if not as_list:
        for obj in objects:  # exactly one
            yield from (obj, "\n")
        return
    for i, obj in enumerate(objects):
        yield from (",\n" if i else "[\n", obj)
    yield "\n]\n"


def _csv(chosen: Iterable[tuple[Dump, Rows]], source: Source) -> Iterator[str]:
    for i, (dump, dump_rows) in enumerate(chosen):
        # The header with the first dump, not before: a file with none prints nothing.
        if not i:
            yield CSV_HEADER
        yield csv_rows(dump_rows, dump.index, source.workload(dump.index) or "")


def _text(chosen: Iterable[tuple[Dump, Rows]], source: Source, headers: bool) -> Iterator[str]:
    columns = shutil.get_terminal_size().columns
    for dump, dump_rows in chosen:
        if headers:
            workload = source.workload(dump.index)
            yield (("\n" if dump.index else "") + f"# dump {dump.index}"
                   + (f": workload {workload}" if workload else "") + f" (line {dump.line})\n")
        lines = table_lines(list(zip(dump_rows.names, dump_rows.values, units(dump_rows))),
                            columns)
        if lines:
            yield from ("\n".join(lines), "\n")


def table_lines(rows: Sequence[tuple[str, str, str]], columns: int) -> list[str]:
    """name, value (right-aligned) and unit lines within `columns` where the names
    allow: the name column is as wide as the longest name that fits beside the
    values and units; a longer name overflows its own line, unpadded."""
    value_w = max((len(v) for _, v, _ in rows), default=0)
    unit_w = max((len(u) for _, _, u in rows), default=0)
    room = max(columns - value_w - unit_w - 4, MIN_NAME_COLUMN)
    name_w = max((len(n) for n, _, _ in rows if len(n) <= room), default=0)
    return [(f"{n:<{name_w}}  {v:>{value_w}}" if len(n) <= name_w else f"{n}  {v}")
            + (f"  {u}" if u else "") for n, v, u in rows]
