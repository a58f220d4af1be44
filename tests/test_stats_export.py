"""`g5net stats --json/--csv` write, byte for byte, what json.dumps(indent=1) and
csv.writer write of the parsed stats, on the committed gem5 runs' stats files and
on a hand-written one of every oddity a line may hold; --dump all prints nothing
when a later dump is damaged."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest

from g5net import cli
from g5net.stats import Dump, Stat, iter_dumps
from g5net.stats.parse import BEGIN, END, columns
from g5net.stats.units import split_unit

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("gem5-*/m5out/stats.txt"))

ODD_LINES = [
    "simSeconds  0.000500  # Number of seconds simulated (Second)",
    "a.nan  nan  # ratio (Ratio)",
    "a.negnan  -nan  # rate ((Count/Second))",
    "a.inf  inf",
    "a.neginf  -inf  #",
    "a.sci  1e5  # sci, with \"quotes\", commas (Count)",
    "a,comma  007  # leading zeros",
    'a"quote  -5  #   spaced   (Tick)   ',
    "a\\back\x01ctl  +5  # a plus sign",
    "a.pdf  3  12.5%  87.5%  # with pdf (Count)",
    "a.pdfonly  4  100.00%  100.00%",
    "a.big  18446744073709551616  # big",
    "a.negbig  -9007199254740993  # negative, beyond a double",
    "a.nospace  5#nospace (Byte)",
    "a.unicode  1.0  # é ünïcode, ✓ (Count)",
    "a.tab  2  # tab\t inside\t(Count)",
    "a.notunit  0.1  # trailing (Count) x",
    "a.zero  0  # \\u00e9 backslash\\ and \"",
    "a.negzero  -0  # minus zero",
    "a.exp  1.5E+10  # upper exp",
    "a.tiny  0.000050  # a repr with an exponent",
    "a.empty  0  # ",
]


def reference_json(dump: Dump) -> str:
    """The dump as `g5net stats --json` wrote it with json.dumps."""
    return json.dumps({name: {"value": stat.value if math.isfinite(stat.value) else str(stat.value),
                              "unit": split_unit(stat.description)[1],
                              "description": split_unit(stat.description)[0]}
                       for name, stat in dump.items()}, indent=1)


def reference_csv(dumps: list[Dump]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("dump", "workload", "name", "value", "unit", "description"))
    for dump in dumps:
        for name, stat in dump.items():
            description, unit = split_unit(stat.description)
            writer.writerow((dump.index, "", name, stat.value, unit or "", description))
    return out.getvalue()


def odd_file(tmp_path: Path) -> Path:
    path = tmp_path / "stats.txt"
    text = "\n".join(["", BEGIN, *ODD_LINES, "", END, BEGIN, "x 1 # (Count)", END,
                      BEGIN, "bad.byte 5 # \udcff (Count)", END, ""])
    # An undecodable byte, read as U+FFFD.
    path.write_bytes(text.encode(errors="surrogateescape"))
    return path


def stats(capsys, path: Path, *argv: str) -> str:
    assert cli.main(["stats", str(path), *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("which", ["fixtures", "odd"])
def test_json_and_csv_are_the_standard_encoders_output(which, tmp_path, capsys):
    paths = FIXTURES if which == "fixtures" else [odd_file(tmp_path)]
    assert paths
    for path in paths:
        dumps = list(iter_dumps(path))
        assert stats(capsys, path, "--dump", "all", "--json") == \
            "[\n" + ",\n".join(map(reference_json, dumps)) + "\n]\n"
        assert stats(capsys, path, "--dump", "0", "--json") == reference_json(dumps[0]) + "\n"
        assert stats(capsys, path, "--dump", "all", "--csv") == reference_csv(dumps)


def test_odd_lines_print_as_python_prints_their_values(tmp_path, capsys):
    rows = list(csv.DictReader(io.StringIO(stats(capsys, odd_file(tmp_path), "--dump", "0",
                                                 "--csv"))))
    assert {r["name"]: r["value"] for r in rows if r["name"].startswith("a")} == {
        "a.nan": "nan", "a.negnan": "nan", "a.inf": "inf", "a.neginf": "-inf",
        "a.sci": "100000.0", "a,comma": "7", 'a"quote': "-5", "a\\back\x01ctl": "5.0",
        "a.pdf": "3", "a.pdfonly": "4", "a.big": "18446744073709551616",
        "a.negbig": "-9007199254740993", "a.nospace": "5", "a.unicode": "1.0", "a.tab": "2",
        "a.notunit": "0.1", "a.zero": "0", "a.negzero": "0", "a.exp": "15000000000.0",
        "a.tiny": "5e-05", "a.empty": "0"}


def test_a_filter_that_keeps_nothing_prints_empty_objects(tmp_path, capsys):
    path = odd_file(tmp_path)
    assert stats(capsys, path, "--dump", "all", "--json", "--match", "^none$") == "[\n{},\n{},\n{}\n]\n"
    assert stats(capsys, path, "--dump", "all", "--csv", "--match", "^none$") == \
        "dump,workload,name,value,unit,description\n"


@pytest.mark.parametrize("fmt", ["--json", "--csv", "--match=."])
def test_a_damaged_dump_after_good_ones_prints_nothing(fmt, tmp_path, capsys):
    path = tmp_path / "stats.txt"
    good = FIXTURES[0].read_text()
    path.write_text(good + good + f"{BEGIN}\na 1\nb 1 2\n{END}\n")
    lines = good.count("\n") * 2
    assert cli.main(["stats", str(path), "--dump", "all", fmt]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"g5net stats: error: {path}:{lines + 3}: not a stat line (expected: name "
                   f"value [pdf% cdf%] [# description]): 'b 1 2'\n")


def test_columns_of_a_dump_made_by_hand_are_its_stats_as_written():
    dump = Dump("test", 0, 1, {"a": Stat(3, description="Bytes (Byte)"), "b": Stat(math.inf)})
    assert columns(dump) == (["a", "b"], ["3", "inf"], ["# Bytes (Byte)", "# "], ["inf"])
