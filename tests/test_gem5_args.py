"""--gem5-arg: flags for gem5 itself, checked, recorded and kept out of the run
id where they only add gem5's debug output; real gem5 receives them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from g5net.engines import EngineOptions
from g5net.engines.gem5 import Gem5Engine, gem5_args
from g5net.errors import RunnerError, UsageError
from g5net.runs import sweepdir
from g5net.runs.rundir import RunDir

REPO = Path(__file__).resolve().parents[1]
QUICKSTART = REPO / "examples" / "quickstart-gem5.toml"


@pytest.mark.parametrize("arg, message", [
    ("--outdir=/tmp/x", "g5net sets --outdir itself"),
    ("--listener-mode=off", "g5net sets --listener-mode itself"),
    ("--stats-file=s.txt", "g5net sets --stats-file itself"),
    ("Ethernet", "a gem5 flag starts with '-'"),
])
def test_flags_g5net_owns_or_that_are_not_flags_are_refused(arg, message):
    with pytest.raises(UsageError, match=message):
        gem5_args.check([arg])


def test_only_flags_that_may_change_the_simulation_count():
    words = EngineOptions.of(["--debug-flags=Ethernet,EthernetDMA", "--debug-file=eth.log",
                              "--some-flag=a b"]).gem5_args
    assert words == ("--debug-flags=Ethernet,EthernetDMA", "--debug-file=eth.log", "--some-flag=a b")
    assert gem5_args.simulated(words) == ("--some-flag=a b",)


def test_a_sweeps_plan_keeps_the_flags_for_its_workers(tmp_path):
    """Workers and SLURM jobs run with the plan's flags; a plan written before
    flags were kept has none, and damaged ones read as a damaged plan."""
    sd = sweepdir.SweepDir(tmp_path)
    options = EngineOptions.of(["--debug-flags=Ethernet", "--some-flag=a b"])
    sweepdir.write(sd, sweepdir.Plan("s.toml", (), (), options))
    assert sweepdir.read(sd).options == options
    plan = json.loads(sd.plan_json.read_text())
    assert plan["engine_options"] == {"gem5_args": ["--debug-flags=Ethernet", "--some-flag=a b"]}
    del plan["engine_options"]
    sd.plan_json.write_text(json.dumps(plan))
    assert sweepdir.read(sd).options == EngineOptions()
    for damaged in ("--some-flag", {"gem5_args": "--some-flag"}, {"gem5_args": [3]}):
        sd.plan_json.write_text(json.dumps({**plan, "engine_options": damaged}))
        with pytest.raises(RunnerError, match=r"sweep.json: damaged: TypeError engine options"):
            sweepdir.read(sd)
    sd.plan_json.write_text(json.dumps({**plan, "engine_options": {"gem5_args": ["--outdir=/"]}}))
    with pytest.raises(UsageError, match="g5net sets --outdir itself"):
        sweepdir.read(sd)


@pytest.mark.gem5
def test_the_run_id_moves_only_with_flags_that_change_the_simulation(gem5_engine, monkeypatch):
    def info(*args: str):
        return Gem5Engine(gem5_engine.probe().binary, args).info()
    plain, traced, other = info(), info("--debug-flags=Ethernet"), info("--some-flag")
    assert plain.digest == traced.digest != other.digest
    assert (plain.args, traced.args) == ((), ("--debug-flags=Ethernet",))


@pytest.mark.gem5
def test_gem5_receives_the_flags(gem5_engine, tmp_path):
    """`g5net system` builds the system with them: a debug flag gem5 knows is
    on its command line; one it does not know is gem5's error, quoted."""
    base = [sys.executable, "-m", "g5net.cli", "system", str(QUICKSTART)]
    ok = subprocess.run([*base, "--out", str(tmp_path / "ok"), "--gem5-arg=--debug-flags=Ethernet"],
                        capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stderr
    command = RunDir(tmp_path / "ok").engine_log.read_text().splitlines()[0]
    assert command.split()[1] == "--debug-flags=Ethernet"
    bad = subprocess.run([*base, "--gem5-arg=--debug-flags=NoSuchFlag"],
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1 and "NoSuchFlag" in bad.stderr, bad.stderr
    refused = subprocess.run([*base, "--gem5-arg=--outdir=/tmp"], capture_output=True, text=True,
                             timeout=600)
    assert refused.returncode == 2 and "g5net sets --outdir itself" in refused.stderr
