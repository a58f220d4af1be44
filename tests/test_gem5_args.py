"""--gem5-arg: flags for gem5 itself, checked, recorded and kept out of the run
id where they only add gem5's debug output; real gem5 receives them."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from g5net.engines.gem5 import Gem5Engine, gem5_args
from g5net.errors import UsageError

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


def test_only_flags_that_may_change_the_simulation_count(monkeypatch):
    # Set, so that the test's end restores it: export writes os.environ.
    monkeypatch.setenv(gem5_args.ENV_ARGS, "")
    gem5_args.export(["--debug-flags=Ethernet,EthernetDMA", "--debug-file=eth.log"])
    gem5_args.export(["--some-flag=a b"])
    words = gem5_args.from_env()
    assert words == ("--debug-flags=Ethernet,EthernetDMA", "--debug-file=eth.log", "--some-flag=a b")
    assert shlex.split(gem5_args.os.environ[gem5_args.ENV_ARGS]) == list(words)
    assert gem5_args.simulated(words) == ("--some-flag=a b",)
    monkeypatch.setenv(gem5_args.ENV_ARGS, "--debug-flags='unclosed")
    with pytest.raises(UsageError, match=r"\$G5NET_GEM5_ARGS: not shell words"):
        gem5_args.from_env()


@pytest.mark.gem5
def test_the_run_id_moves_only_with_flags_that_change_the_simulation(gem5_engine, monkeypatch):
    def info(value: str):
        monkeypatch.setenv(gem5_args.ENV_ARGS, value)
        return Gem5Engine().info()
    plain, traced, other = info(""), info("--debug-flags=Ethernet"), info("--some-flag")
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
    command = (tmp_path / "ok" / "gem5.log").read_text().splitlines()[0]
    assert command.split()[1] == "--debug-flags=Ethernet"
    bad = subprocess.run([*base, "--gem5-arg=--debug-flags=NoSuchFlag"],
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1 and "NoSuchFlag" in bad.stderr, bad.stderr
    refused = subprocess.run([*base, "--gem5-arg=--outdir=/tmp"], capture_output=True, text=True,
                             timeout=600)
    assert refused.returncode == 2 and "g5net sets --outdir itself" in refused.stderr
