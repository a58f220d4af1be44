"""The stats parser's edges (issue 14): exact integers, ASCII numerals only,
errors that quote little of a huge line, and `--dump all` that prints nothing
when any dump is damaged."""

import json

import pytest

from g5net import cli
from g5net.errors import StatsParseError
from g5net.stats import iter_dumps
from g5net.stats.parse import BEGIN, QUOTE_CHARS

from test_stats_parse import dump_text, write


@pytest.mark.parametrize("token", ["-9007199254740993", "9007199254740993", "-1",
                                   "123456789012345678901234567890"])
def test_integers_are_exact(tmp_path, token):
    (d,) = iter_dumps(write(tmp_path, dump_text(f"x  {token}")))
    assert d.value("x") == int(token) and type(d.value("x")) is int


@pytest.mark.parametrize("token", ["1_000", "1_0.5", "\u0661\u0662\u0663", "\u00b2", "\uff11",
                                   "-\u0661", "1\u0660%"])
def test_only_ascii_numerals_are_numbers(tmp_path, token):
    path = write(tmp_path, dump_text(f"x  {token}"))
    with pytest.raises(StatsParseError, match=f"^{path}:3: .* is not a number: "):
        list(iter_dumps(path))


def test_an_error_quotes_at_most_200_characters_of_the_line(tmp_path):
    path = write(tmp_path, dump_text("x" * 1_000_000 + "  1  2"))
    with pytest.raises(StatsParseError) as e:
        list(iter_dumps(path))
    message = str(e.value)
    assert message.startswith(f"{path}:3: not a stat line")
    assert message.endswith("... (1000006 characters)")
    assert len(message) < len(str(path)) + 2 * QUOTE_CHARS + 200


def test_a_huge_bad_value_is_quoted_short(tmp_path):
    path = write(tmp_path, dump_text("x  " + "9" * 500_000 + "z"))
    with pytest.raises(StatsParseError) as e:
        list(iter_dumps(path))
    assert len(str(e.value)) < 1000


@pytest.mark.parametrize("fmt", [[], ["--json"], ["--csv"]])
def test_dump_all_prints_nothing_when_a_later_dump_is_damaged(tmp_path, capsys, fmt):
    path = write(tmp_path, dump_text("a  1") + "\n" + BEGIN + "\nb  2\n")
    assert cli.main(["stats", str(path), "--dump", "all", *fmt]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"g5net stats: error: {path}:") and "has no End marker" in err


@pytest.mark.parametrize("dump", ["all", "last", "0"])
@pytest.mark.parametrize("fmt", [[], ["--json"], ["--csv"]])
def test_an_empty_file_is_the_same_under_every_dump(tmp_path, capsys, dump, fmt):
    path = write(tmp_path, "")
    assert cli.main(["stats", str(path), "--dump", dump, *fmt]) == 2
    assert capsys.readouterr() == ("", f"g5net stats: error: {path}: holds no stats dumps\n")


def test_dump_all_still_prints_every_good_dump(tmp_path, capsys):
    path = write(tmp_path, dump_text("a  1") + dump_text("a  -9007199254740993"))
    assert cli.main(["stats", str(path), "--dump", "all", "--json"]) == 0
    assert [{k: v["value"] for k, v in d.items()} for d in json.loads(capsys.readouterr().out)] \
        == [{"a": 1}, {"a": -9007199254740993}]
