"""The stats parser on hand-written files: edge cases and malformed input."""

import math

import pytest

from g5net import cli
from g5net.errors import StatsParseError
from g5net.stats import Stat, iter_dumps
from g5net.stats.parse import BEGIN, END


def write(tmp_path, text):
    path = tmp_path / "stats.txt"
    path.write_text(text)
    return path


def dump_text(*lines):
    return "\n".join(["", BEGIN, *lines, "", END, ""])


def test_empty_file_has_no_dumps(tmp_path):
    assert list(iter_dumps(write(tmp_path, ""))) == []
    assert list(iter_dumps(write(tmp_path, "\n\n"))) == []


def test_non_finite_and_signed_values(tmp_path):
    (d,) = iter_dumps(write(tmp_path, dump_text(
        "a  nan  # undefined ratio",
        "b  -nan",
        "c  inf",
        "d  -inf",
        "e  -12",
        "f  1.5e+10",
    )))
    assert math.isnan(d.value("a")) and math.isnan(d.value("b"))
    assert (d.value("c"), d.value("d"), d.value("e"), d.value("f")) == (math.inf, -math.inf, -12, 1.5e10)
    assert d["a"].description == "undefined ratio"


def test_lines_without_description_or_with_percentages(tmp_path):
    # gem5 leaves descriptions out when asked to (stats file option desc=False).
    (d,) = iter_dumps(write(tmp_path, dump_text(
        "x::samples 4",
        "x::0-3  3  75.00%  75.00%",
        "x::4-7  1  25.00% 100.00% # x's buckets # with a hash",
        "x::nan  nan  nan%  nan%",
    )))
    assert d["x::samples"] == Stat(4, None, None, "")
    assert d["x::0-3"] == Stat(3, 75.0, 75.0, "")
    assert d["x::4-7"] == Stat(1, 25.0, 100.0, "x's buckets # with a hash")
    assert math.isnan(d["x::nan"].pdf_percent)


def test_dumps_are_numbered_and_streamed(tmp_path):
    path = write(tmp_path, dump_text("a 1") + dump_text("a 2") + "garbage\n")
    dumps = iter_dumps(path)
    assert next(dumps).value("a") == 1
    assert next(dumps).index == 1
    with pytest.raises(StatsParseError, match=r":11: not a stat line"):
        next(dumps)


@pytest.mark.parametrize("text, line, reason", [
    (dump_text("a 1", "b one # not a number"), 4, "'one' is not a number"),
    (dump_text("a 1", "b \u0661\u0662 # digits, not ASCII"), 4, "'\u0661\u0662' is not a number"),
    (dump_text("a 1 2"), 3, "not a stat line"),
    (dump_text("a 1 50% 50"), 3, "expected a percentage, got '50'"),
    (dump_text("a 1 50% x%"), 3, "'x' is not a number"),
    (dump_text("a 1 # x", "a 2 # y"), 4, "a appears twice in the dump begun at line 2"),
    ("a 1 # before any dump\n", 1, "stat line outside a dump"),
    (dump_text("a 1") + "b 2\n", 6, "stat line outside a dump"),
    (END + "\n", 1, "End marker without a Begin marker"),
    ("\n" + BEGIN + "\n" + BEGIN + "\n", 3, "Begin marker inside the dump begun at line 2"),
    ("\n" + BEGIN + "\na 1\n", 2, "dump 0 has no End marker (file ends at line 3"),
])
def test_malformed_input_names_file_and_line(tmp_path, text, line, reason):
    path = write(tmp_path, text)
    with pytest.raises(StatsParseError) as e:
        list(iter_dumps(path))
    assert str(e.value).startswith(f"{path}:{line}: ")
    assert reason in str(e.value)


def test_unreadable_file(tmp_path):
    with pytest.raises(StatsParseError, match=f"{tmp_path / 'missing.txt'}: cannot read: No such file"):
        list(iter_dumps(tmp_path / "missing.txt"))


def test_cli_reports_malformed_line(tmp_path, capsys):
    path = write(tmp_path, dump_text("a 1", "b 1 2"))
    assert cli.main(["stats", str(path)]) == 2
    assert f"g5net stats: error: {path}:4: not a stat line" in capsys.readouterr().err


def test_cli_file_without_dumps(tmp_path, capsys):
    path = write(tmp_path, "")
    assert cli.main(["stats", str(path)]) == 2
    assert f"{path}: holds no stats dumps" in capsys.readouterr().err
    # The same under every --dump: no dump is no dump, not an empty list.
    for dump in ("all", "0"):
        assert cli.main(["stats", str(path), "--dump", dump, "--json"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and f"{path}: holds no stats dumps" in err


@pytest.mark.parametrize("argv", [["--dump", "-1"], ["--dump", "fir st"], ["--match", "("],
                                  ["--json", "--csv"]])
def test_cli_rejects_bad_arguments(tmp_path, argv):
    with pytest.raises(SystemExit) as e:
        cli.main(["stats", str(write(tmp_path, "")), *argv])
    assert e.value.code == 2
