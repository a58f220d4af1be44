"""`g5net stats` on the committed gem5 v24 run (tests/fixtures/gem5-quickstart/):
units and descriptions in JSON and CSV, a table that fits the terminal, and
dumps chosen by workload name in a run directory."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from g5net import cli
from g5net.runs.rundir import RunDir
from g5net.stats.units import split_unit

# The committed gem5 run, a run directory as `g5net run` leaves one.
RUN = RunDir(Path(__file__).parent / "fixtures" / "gem5-quickstart")
STATS = RUN.stats_txt


BEGIN = "---------- Begin Simulation Statistics ----------"


def begin_lines() -> list[int]:
    """The 1-based line of each dump's Begin marker, read from the text itself."""
    return [i for i, line in enumerate(STATS.read_text().splitlines(), 1) if line == BEGIN]


def raw(name: str, dump: int = 0) -> str:
    """A stat's value as stats.txt writes it in `dump`, read from the text itself."""
    text = STATS.read_text().split(BEGIN)[dump + 1]
    return next(line.split()[1] for line in text.splitlines() if line.split()[:1] == [name])


def stats(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main(["stats", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def test_gem5_units_are_split_from_descriptions():
    assert split_unit("Number of ticks simulated (Tick)") == ("Number of ticks simulated", "Tick")
    assert split_unit("The number of ticks simulated per host second (ticks/s) ((Tick/Second))") \
        == ("The number of ticks simulated per host second (ticks/s)", "Tick/Second")
    assert split_unit("number of cpu cycles simulated") == ("number of cpu cycles simulated", None)
    assert split_unit("replacement policy (LRU)") == ("replacement policy (LRU)", None)


def test_json_keeps_units_and_descriptions(capsys):
    status, out, _ = stats(capsys, STATS, "--dump", "0", "--json",
                           "--match", r"^(simSeconds|hostTickRate|client\.ethernet\.EtherDevice\.rxBytes)$")
    assert status == 0
    assert json.loads(out) == {
        "simSeconds": {"value": float(raw("simSeconds")), "unit": "Second",
                       "description": "Number of seconds simulated"},
        "hostTickRate": {"value": int(raw("hostTickRate")), "unit": "Tick/Second",
                         "description": "The number of ticks simulated per host second (ticks/s)"},
        "client.ethernet.EtherDevice.rxBytes": {
            "value": int(raw("client.ethernet.EtherDevice.rxBytes")), "unit": "Byte",
            "description": "Bytes Received"},
    }


def test_csv_keeps_units_descriptions_and_names_the_workload_of_a_run(capsys):
    status, out, _ = stats(capsys, RUN.path, "--dump", "all", "--csv", "--match", "^simSeconds$")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["dump"], r["workload"], float(r["value"]), r["unit"]) for r in rows] == [
        (str(i), workload, float(raw("simSeconds", i)), "Second")
        for i, workload in enumerate(("stream", "latency", ""))]
    assert {r["description"] for r in rows} == {"Number of seconds simulated"}


def test_a_dump_is_chosen_by_workload_name(capsys):
    by_name = stats(capsys, RUN.path, "--dump", "latency", "--json", "--host", "client")
    by_number = stats(capsys, RUN.path, "--dump", "1", "--json", "--host", "client")
    assert by_name[0] == 0 and by_name == by_number
    first = json.loads(stats(capsys, RUN.path, "--dump", "stream", "--json")[1])
    # The stream's region, as in metrics.json.
    assert first["simSeconds"]["value"] == float(raw("simSeconds", 0))
    assert json.loads(RUN.metrics_json.read_text())["hosts"]["client"]["stream"][
        "sim_seconds"] == pytest.approx(first["simSeconds"]["value"])


def test_a_workload_name_the_run_lacks_or_a_bare_file_is_an_error(capsys):
    status, out, err = stats(capsys, RUN.path, "--dump", "web")
    assert (status, out) == (2, "")
    assert err == (f"g5net stats: error: --dump web: {RUN.path} has no workload 'web' "
                   f"(workloads, dumps 0 to 1: stream, latency)\n")
    status, _, err = stats(capsys, STATS, "--dump", "stream")
    assert status == 2
    assert "--dump stream: a dump is chosen by workload name only of a run directory" in err


def test_text_fits_the_terminal_and_names_the_workload_of_each_dump(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    status, out, _ = stats(capsys, RUN.path, "--dump", "all", "--host", "client")
    assert status == 0
    lines = out.splitlines()
    first, second, third = begin_lines()
    assert [line for line in lines if line.startswith("# dump")] == [
        f"# dump 0: workload stream (line {first})", f"# dump 1: workload latency (line {second})",
        f"# dump 2 (line {third})"]
    table = [line for line in lines if line and not line.startswith("#")]
    longest = max(len(line.split()[0]) for line in table)
    assert longest > 80  # gem5's names: a column that wide would not fit
    for line in table:
        name, value, *unit = line.split()
        # A line fits, or its name is too long for the column and overflows, unpadded.
        assert len(line) <= 80 or line == f"{name}  {value}" + (f"  {unit[0]}" if unit else ""), line
    assert sum(len(line) <= 80 for line in table) > len(table) / 2
    insts = "client.processor.cores.core.commitStats0.numInsts"
    assert f"{insts}  {raw(insts)}  Count" in table
