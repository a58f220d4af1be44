"""`g5net examples` and the example paths of the help, from any folder."""

import json
import os
import subprocess
import sys

from conftest import EXAMPLES

from g5net import cli, home
from g5net.model import sweep
from g5net.study import builtin as catalog


def _g5net(*args, cwd):
    return subprocess.run([sys.executable, "-m", "g5net", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_the_listing_names_every_bundled_spec_with_its_first_sentence(capsys):
    assert cli.main(["examples", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in listed] == sorted(p.stem for p in EXAMPLES.glob("*.toml"))
    quick = next(e for e in listed if e["name"] == "quickstart")
    assert quick["summary"] == ("The quickstart: two hosts back to back, an iperf TCP stream, "
                                "then a NetPIPE ping-pong for latency.")
    assert all(0 < len(e["summary"]) <= 100 for e in listed)


def test_copies_are_byte_for_byte_and_never_overwrite(tmp_path, capsys):
    assert cli.main(["examples", "quickstart", "web.toml", "--to", str(tmp_path)]) == 0
    for name in ("quickstart", "web"):
        assert (tmp_path / f"{name}.toml").read_bytes() == (EXAMPLES / f"{name}.toml").read_bytes()
    (tmp_path / "web.toml").write_text("# mine\n")
    assert cli.main(["examples", "web", "--to", str(tmp_path)]) == 2
    assert "web.toml: already there (never overwritten)" in capsys.readouterr().err
    assert (tmp_path / "web.toml").read_text() == "# mine\n"
    assert cli.main(["examples", "nope"]) == 2
    assert "no example 'nope' (have: bidirectional" in capsys.readouterr().err


def test_example_paths_of_the_help_resolve_from_any_folder(tmp_path):
    dry = _g5net("sweep", "examples/sweep-quick.toml", "--dry-run", "--json", cwd=tmp_path)
    ours = _g5net("sweep", str(EXAMPLES / "sweep-quick.toml"), "--dry-run", "--json", cwd=home.REPO)
    assert dry.returncode == 0, dry.stderr
    assert [p["run_id"] for p in json.loads(dry.stdout)] == [p["run_id"] for p in json.loads(ours.stdout)]
    # A file of the user's own under the same name wins over g5net's copy.
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "sweep-quick.toml").write_text("[experiment]\nname = 'mine'\n")
    mine = _g5net("sweep", "examples/sweep-quick.toml", "--dry-run", cwd=tmp_path)
    assert mine.returncode == 2 and "at least one [hosts.<name>] table is required" in mine.stderr
    assert not (tmp_path / "results").exists()
    # Only the bundled folders resolve: any other missing path stays missing.
    other = _g5net("system", "elsewhere/quickstart.toml", cwd=tmp_path)
    assert other.returncode == 2 and "elsewhere/quickstart.toml: cannot read spec" in other.stderr


def test_a_dry_run_without_built_artifacts_lists_the_points_and_what_they_need(tmp_path):
    env = {**os.environ, "G5NET_CACHE": str(tmp_path / "empty-cache")}
    done = subprocess.run([sys.executable, "-m", "g5net", "study", "run", "niagara2-nic", "--dry-run",
                           "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    points = json.loads(done.stdout)
    assert len(points) == len(sweep.load(catalog.load("niagara2-nic").spec("quick")).points) > 1
    assert all(p["run_id"] is None and p["missing"] == ["kernel-smp", "image"] for p in points)
    assert not (tmp_path / "results").exists()
