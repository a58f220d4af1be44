"""`g5net stats --host` finds a host's statistics under its board, the prefix
run.json's `boards` records: the committed gem5 run (tests/fixtures/gem5-quickstart/)
with its client renamed `client-1`, a name gem5 cannot give an object, so its
statistics live under `host_client_1`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from g5net import cli
from g5net.engines.gem5.boards import board_names
from g5net.model import identity
from g5net.model import specs
from g5net.runs import record as run_record
from g5net.runs import rundir
from g5net.runs.rundir import RunDir

FIXTURE = RunDir(Path(__file__).parent / "fixtures" / "gem5-quickstart")


@pytest.fixture(scope="module")
def renamed(tmp_path_factory) -> RunDir:
    """The fixture's run, committed by the product's writers, as `g5net run`
    would have left it had the client been called `client-1`."""
    d = json.loads(FIXTURE.spec_json.read_text())
    d["hosts"] = {("client-1" if name == "client" else name): h for name, h in d["hosts"].items()}
    spec = specs.from_dict(d)
    store = tmp_path_factory.mktemp("results")
    rd = rundir.begin(store, spec.experiment.name, identity.spec_digest(spec))
    record = run_record.begin(identity.spec_digest(spec), spec.experiment.name, spec.to_dict())
    record["boards"] = board_names(spec)
    rd.write_json(rd.run_json, run_record.finish(record, "done", 1.0))
    rd.m5out.mkdir()
    stats = FIXTURE.stats_txt.read_text()
    rd.stats_txt.write_text(re.sub(r"^client\.", "host_client_1.", stats, flags=re.M))
    return rundir.commit(rd, store, spec.experiment.name, identity.spec_digest(spec))


def stats_json(capsys, *argv) -> dict[str, float]:
    assert cli.main(["stats", *map(str, argv), "--dump", "0", "--json"]) == 0
    return {name: s["value"] for name, s in json.loads(capsys.readouterr().out).items()}


def test_a_host_of_a_run_is_found_under_its_recorded_board(renamed, capsys):
    assert renamed.read_run()["boards"] == {"server": "server", "client-1": "host_client_1"}
    got = stats_json(capsys, renamed.path, "--host", "client-1")
    original = stats_json(capsys, FIXTURE.stats_txt, "--host", "client")
    assert got == {"host_client_1." + name.removeprefix("client."): value
                   for name, value in original.items()}
    assert got["host_client_1.processor.cores.core.commitStats0.numInsts"] == \
        original["client.processor.cores.core.commitStats0.numInsts"] > 0
    # The server kept its name, and its statistics.
    assert stats_json(capsys, renamed.path, "--host", "server") == \
        stats_json(capsys, FIXTURE.stats_txt, "--host", "server")


def test_of_a_bare_stats_file_the_host_is_the_prefix_as_written(renamed, capsys):
    assert stats_json(capsys, renamed.stats_txt, "--host", "host_client_1") == \
        stats_json(capsys, renamed.path, "--host", "client-1")
    assert stats_json(capsys, renamed.stats_txt, "--host", "client-1") == {}


def test_a_run_without_boards_looks_a_host_up_by_its_name():
    """QEMU runs, and runs recorded before the map, have no `boards`."""
    assert run_record.board({}, "client") == run_record.board(None, "client") == "client"
    assert run_record.board({"client-1": "host_client_1"}, "client-1") == "host_client_1"


def test_a_host_the_run_does_not_have_is_an_error_naming_its_hosts(renamed, capsys):
    assert cli.main(["stats", str(renamed.path), "--host", "client"]) == 2
    assert f"{renamed.path}: no host 'client' in this run (hosts: server, client-1)" in \
        capsys.readouterr().err
