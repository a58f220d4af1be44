"""One dump read without parsing the ones before it (issue 13, item 6): on real
multi-dump files it is exactly the full parse's dump; its errors are the full
parse's where the chosen dump is at fault; and the fast line parser is the
reference line-by-line parser in every result and every error."""

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from g5net.errors import StatsParseError
from g5net.stats import iter_dumps, read_dump
from g5net.stats import dump_index
from g5net.stats.parse import BEGIN, END, _parse, _parse_line_by_line

from test_hostile_properties import PROPERTY, stat_lines
from test_stats_parse import dump_text, write

TESTS = Path(__file__).resolve().parent
SHARED = TESTS.parents[1] / "shared" / "fixtures" / "gem5-stats"
REAL = sorted(TESTS.glob("fixtures/gem5-*/m5out/stats.txt")) + sorted(SHARED.glob("*.stats.txt"))


def same(a, b):
    """Equal dumps: position, and every stat with its type (repr: nan is nan, 1 is not 1.0)."""
    return (a.path, a.index, a.line, repr(list(a.items()))) \
        == (b.path, b.index, b.line, repr(list(b.items())))


def outcome(dumps):
    """A parse's dumps as comparable text, or the message it raised."""
    try:
        return [(d.index, d.line, repr(list(d.items()))) for d in dumps]
    except StatsParseError as e:
        return str(e)


def assert_every_choice_is_the_full_parse(path):
    full = list(iter_dumps(path))
    assert same(read_dump(path, "last"), full[-1])
    for d in full:
        assert same(read_dump(path, d.index), d)


@pytest.mark.parametrize("path", REAL, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_real_files(path):
    assert_every_choice_is_the_full_parse(path)


def test_many_real_dumps_across_scan_blocks(tmp_path, monkeypatch):
    # Real dumps of every generation, repeated; blocks of a prime size cut markers
    # and lines at every possible place.
    path = tmp_path / "stats.txt"
    path.write_bytes(b"".join(p.read_bytes() for p in REAL) * 3)
    monkeypatch.setattr(dump_index, "BLOCK_BYTES", 4099)
    assert_every_choice_is_the_full_parse(path)


def test_no_such_dump_and_no_dumps(tmp_path):
    path = write(tmp_path, dump_text("a  1") + dump_text("a  2"))
    with pytest.raises(StatsParseError, match=r": no dump 2: the file holds 2 dump\(s\), numbered 0 to 1$"):
        read_dump(path, 2)
    for text in ("", "\n\n"):
        path = write(tmp_path, text)
        with pytest.raises(StatsParseError, match=r": holds no stats dumps$"):
            read_dump(path, "last")


# Dump 1 is the last but for the unfinished dump 2, which only `last` and N > 2 read.
@pytest.mark.parametrize("tail, choice", [("\n" + BEGIN + "\nb  2\n", "last"),
                                          ("\n" + BEGIN + "\nb  2\n", 5),
                                          ("garbage\n", "last"), ("garbage\n", 1), ("garbage\n", 5),
                                          (END + "\n", "last"), (END + "\n", 1)])
def test_what_follows_the_last_dump_is_checked(tmp_path, tail, choice):
    path = write(tmp_path, dump_text("a  1") + dump_text("a  2") + tail)
    with pytest.raises(StatsParseError) as full:
        list(iter_dumps(path))
    with pytest.raises(StatsParseError) as one:
        read_dump(path, choice)
    assert str(one.value) == str(full.value)


def test_an_earlier_damaged_dump_is_not_read(tmp_path):
    path = write(tmp_path, dump_text("a  one") + dump_text("a  2"))
    assert read_dump(path, "last").value("a") == 2


def test_a_marker_in_a_description_is_not_a_dump(tmp_path):
    path = write(tmp_path, dump_text("a  1", f"b  2  # {BEGIN}") + dump_text(f"c  3  # {BEGIN}"))
    assert_every_choice_is_the_full_parse(path)


def test_carriage_returns_take_the_full_parse(tmp_path):
    # Text mode ends a line at \r too; the byte scan would number lines otherwise.
    path = tmp_path / "stats.txt"
    path.write_bytes((dump_text("a  1") + dump_text("a  2\rb  3")).encode())
    assert_every_choice_is_the_full_parse(path)


# Files of whole dumps, a few lines of them then replaced by random ones, so that
# both parses succeed often and fail in every way.
stat_line = st.builds("{} {}{}".format, st.sampled_from(["a", "b", "c", "d.e", "x::0", "x::total"]),
                      st.sampled_from(["1", "-1", "1.5", "nan", "9" * 20, "1 50% 50%", "2 nan% 1e2%"]),
                      st.sampled_from(["", " # words", f" # {BEGIN}"]))
dumps = st.lists(st.lists(stat_line, max_size=5).map(lambda lines: [BEGIN, *lines, "", END]),
                 max_size=4).map(lambda ds: [line for d in ds for line in d])
files = st.builds(lambda lines, noise: [noise.get(i, line) for i, line in enumerate(lines)],
                  dumps, st.dictionaries(st.integers(0, 30), stat_lines, max_size=2))


@PROPERTY
@given(files)
def test_fast_parser_is_the_reference_parser(lines):
    text = [line + "\n" for line in lines]
    assert outcome(_parse(iter(text), "stats.txt")) == outcome(_parse_line_by_line(text, "stats.txt"))


@PROPERTY
@given(files, st.sampled_from(["\n", "\r\n"]))
def test_one_dump_is_the_full_parses_whenever_that_succeeds(tmp_path_factory, lines, newline):
    path = tmp_path_factory.getbasetemp() / "random-dumps.txt"
    path.write_bytes(newline.join(lines).encode(errors="surrogatepass"))
    try:
        full = list(iter_dumps(path))
    except StatsParseError:
        full = None
    for choice in ["last", 0, 1, 2, 3]:
        try:
            dump = read_dump(path, choice)
        except StatsParseError:
            assert full is None or choice == "last" and not full or choice != "last" and choice >= len(full)
            continue
        if full is not None:
            assert same(dump, full[-1] if choice == "last" else full[choice])
