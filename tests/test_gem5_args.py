"""--gem5-arg: flags for gem5 itself, checked, recorded and kept out of the run
id where they only add gem5's debug output; real gem5 receives them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from g5net import engines
from g5net.engines.gem5 import Gem5Engine, gem5_args
from g5net.errors import RunnerError, UsageError
from g5net.model.options import EngineOptions
from g5net.runs import sweepdir
from g5net.runs.rundir import RunDir

REPO = Path(__file__).resolve().parents[1]
QUICKSTART = REPO / "examples" / "quickstart-gem5.toml"


@pytest.mark.parametrize("arg, message", [
    ("--outdir=/tmp/x", "gem5 reads it as --outdir, which g5net sets itself"),
    ("--listener-mode=off", "gem5 reads it as --listener-mode, which g5net sets itself"),
    ("--stats-file=s.txt", "gem5 reads it as --stats-file, which g5net sets itself"),
    ("Ethernet", "a gem5 flag starts with '-'"),
])
def test_flags_g5net_owns_or_that_are_not_flags_are_refused(arg, message):
    with pytest.raises(UsageError, match=message):
        gem5_args.check([arg])


def test_only_flags_that_may_change_the_simulation_count():
    words = engines.options(["--debug-flags=Ethernet,EthernetDMA", "--debug-file=eth.log",
                              "--path=a b"]).gem5_args
    assert words == ("--debug-flags=Ethernet,EthernetDMA", "--debug-file=eth.log", "--path=a b")
    assert gem5_args.simulated(words) == ("--path=a b",)


def test_a_sweeps_plan_keeps_the_flags_for_its_workers(tmp_path):
    """Workers and SLURM jobs run with the plan's flags; a plan written before
    flags were kept has none, damaged ones read as a damaged plan, and the
    engine refuses a flag it sets itself however the plan came to hold it."""
    sd = sweepdir.SweepDir(tmp_path)
    options = engines.options(["--debug-flags=Ethernet", "--path=a b"])
    sweepdir.write(sd, sweepdir.Plan("s.toml", (), (), options))
    assert sweepdir.read(sd).options == options
    plan = json.loads(sd.plan_json.read_text())
    assert plan["engine_options"] == {"gem5_args": ["--debug-flags=Ethernet", "--path=a b"]}
    del plan["engine_options"]
    sd.plan_json.write_text(json.dumps(plan))
    assert sweepdir.read(sd).options == EngineOptions()
    for damaged in ("--some-flag", {"gem5_args": "--some-flag"}, {"gem5_args": [3]}):
        sd.plan_json.write_text(json.dumps({**plan, "engine_options": damaged}))
        with pytest.raises(RunnerError, match=r"sweep.json: damaged: TypeError engine options"):
            sweepdir.read(sd)
    sd.plan_json.write_text(json.dumps({**plan, "engine_options": {"gem5_args": ["--outdir=/"]}}))
    with pytest.raises(UsageError, match="gem5 reads it as --outdir, which g5net sets itself"):
        engines.get("gem5", sweepdir.read(sd).options)


@pytest.mark.gem5
def test_the_run_id_moves_only_with_flags_that_change_the_simulation(gem5_engine, monkeypatch):
    def info(*args: str):
        return Gem5Engine(gem5_engine.probe().binary, args).info()
    plain, traced, other = info(), info("--debug-flags=Ethernet"), info("--remote-gdb-port=0")
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
    assert refused.returncode == 2 and "which g5net sets itself" in refused.stderr


@pytest.mark.parametrize("arg, reads_as", [
    ("-re", "--redirect-stdout"), ("-er", "--redirect-stderr"), ("-qd/tmp", "--outdir"), ("-d", "--outdir"),
    ("--stats-f=x.txt", "--stats-file"), ("--outd=/tmp", "--outdir"), ("--listener=on", "--listener-mode"),
    ("--allow", "--allow-remote-connections"), ("--json", "--json-config"), ("--dump=x", "--dump-config"),
    ("-i", "--interactive"), ("-vC", "--copyright"), ("-mhttp.server", "-m"), ("-c1", "-c"), ("-P", "-P"),
    ("--list-s", "--list-sim-objects"), ("--liste=on", "--listener-mode"), ("--debug-h", "--debug-help"), ("--pd", "--pdb"),
])
def test_owned_flags_are_refused_however_gem5_would_be_told_them(arg, reads_as):
    with pytest.raises(UsageError, match=f"gem5 reads it as {reads_as}, which g5net sets itself"):
        gem5_args.check([arg])


@pytest.mark.parametrize("arg, message", [
    ("--debug-file=/tmp/trace", "--debug-file names a file in the run directory"),
    ("--debug-fi=../../trace", "--debug-file names a file in the run directory"),
    ("--dot-dvfs-config=/etc/x", "--dot-dvfs-config names a file in the run directory"),
    ("--debug", r"ambiguous \(--debug-break, --debug-help"), ("--d", "ambiguous"),
    ("--no-such=1", "not one of gem5's options"), ("-x", "-x is not one of gem5's options"),
    ("-qZ", "-Z is not one of gem5's options"), ("--debug-flags", "takes a value: give it in the same word"),
    ("-p", "-p takes a value"), ("--quiet=1", "--quiet takes no value"), ("-", "starts with '-'"),
    ("--", "starts with '-'"), ("--=x", "not one of gem5's options"),
])
def test_words_gem5_would_read_otherwise_or_not_at_all_are_refused(arg, message):
    with pytest.raises(UsageError, match=message):
        gem5_args.check([arg])


@pytest.mark.parametrize("arg, words", [
    ("--debug-fl=Ethernet", ("--debug-flags=Ethernet",)), ("-qv", ("--quiet", "--verbose")),
    ("-pa:b", ("--path=a:b",)), ("--debug-file=traces/eth.out.gz", ("--debug-file=traces/eth.out.gz",)),
    ("--debug-file=cout", ("--debug-file=cout",)), ("--remote=0", ("--remote-gdb-port=0",)), ("-s", ("-s",)),
])
def test_accepted_words_are_written_as_gem5_reads_them(arg, words):
    assert gem5_args.check([arg]) == words


WORD = st.text(alphabet=st.sampled_from("-=abcdefghijklmnopqrstuvwxyzBCPRdeimpqrsv/."), max_size=14)


@settings(max_examples=300, deadline=None)
@given(arg=WORD)
def test_an_accepted_word_never_reaches_an_owned_option_or_leaves_the_run_directory(arg):
    """Whatever the word, gem5 takes it for options g5net leaves to the user, or it is refused."""
    try:
        words = gem5_args.check([arg])
    except UsageError as e:
        assert "\n" not in str(e)
        return
    for word in words:
        option, _, value = word.partition("=")
        name = option.removeprefix("--")
        assert name in gem5_args.LONG or name in ("-s",)
        assert name not in gem5_args.OWNED
        if name in gem5_args.FILES:
            assert not value.startswith("/") and ".." not in value.split("/")


def test_a_trace_beside_program_counter_samples_is_refused_before_the_run_begins(tmp_path):
    """The samples are gem5's debug trace, so a run cannot have both: the
    spec's error (exit 2), with no run directory left behind as a failed run."""
    spec = REPO / "examples" / "steady-state-sizes-gem5.toml"
    got = subprocess.run([sys.executable, "-m", "g5net.cli", "run", str(spec), "--out", str(tmp_path / "runs"),
                          "--gem5-arg=--debug-flags=EthernetIntr"], capture_output=True, text=True, cwd=REPO)
    assert got.returncode == 2, got.stderr
    assert "experiment.pc_sample_us: the samples are gem5's debug trace; drop " \
           "--debug-flags=EthernetIntr from the gem5 arguments" in got.stderr
    assert not list((tmp_path / "runs").glob("*"))
