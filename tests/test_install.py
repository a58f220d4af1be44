"""g5net installed as a user installs it: a wheel built from this checkout,
in a fresh virtual environment, run from a folder outside the checkout
(about a minute; fetches the build backend and matplotlib through pip)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import g5net
from conftest import EXAMPLES, REPO

pytestmark = pytest.mark.slow


def _run(cmd, cwd, timeout=600, **extra_env):
    env = {k: v for k, v in os.environ.items() if k not in ("G5NET_HOME", "PYTHONPATH")}
    return subprocess.run(cmd, cwd=cwd, env={**env, **extra_env}, capture_output=True, text=True,
                          timeout=timeout)


def test_a_wheel_in_a_fresh_venv_works_from_any_folder(tmp_path):
    dist, venv, elsewhere = tmp_path / "dist", tmp_path / "venv", tmp_path / "elsewhere"
    built = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(REPO)],
                 tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel, = dist.glob("g5net-*.whl")
    assert wheel.name == f"g5net-{g5net.__version__}-py3-none-any.whl"
    assert _run([sys.executable, "-m", "venv", str(venv)], tmp_path).returncode == 0
    installed = _run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], tmp_path)
    assert installed.returncode == 0, installed.stderr[-3000:]
    elsewhere.mkdir()
    shutil.copy(EXAMPLES / "sweep-quick.toml", elsewhere)
    g5net_bin = str(venv / "bin" / "g5net")

    version = _run([str(venv / "bin" / "python"), "-m", "g5net", "--version"], elsewhere)
    assert version.stdout.strip() == f"g5net {g5net.__version__}"

    # doctor: 1 where something is missing (no gem5 here, say); its findings are JSON either way.
    doctor = _run([g5net_bin, "doctor", "--json"], elsewhere)
    assert doctor.returncode in (0, 1), doctor.stderr
    found = json.loads(doctor.stdout)
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    assert found["g5net"] == {"version": g5net.__version__, "revision": None,
                              "files": str(site / "g5net" / "tree")}
    # The shipped kernel fragments and image recipe hash as the checkout's do:
    # an installed g5net finds the artifacts the checkout built.
    here = json.loads(_run([sys.executable, "-m", "g5net", "doctor", "--json"], REPO).stdout)
    assert found["artifacts"] == here["artifacts"]

    dry = _run([g5net_bin, "sweep", "sweep-quick.toml", "--dry-run", "--json"], elsewhere)
    assert dry.returncode == 0, dry.stderr
    ours = _run([sys.executable, "-m", "g5net", "sweep", str(EXAMPLES / "sweep-quick.toml"),
                 "--dry-run", "--json"], REPO)
    assert [p["run_id"] for p in json.loads(dry.stdout)] == [p["run_id"] for p in json.loads(ours.stdout)]
    assert len(json.loads(dry.stdout)) == 6
    assert not (elsewhere / "results").exists()

    # The help's examples, as a new user types them in a folder of their own:
    # each runs, or dry-runs, and writes only under that folder.
    examples = [
        ["examples"], ["examples", "quickstart", "sweep-quick"],
        ["sweep", "examples/sweep-quick.toml", "--dry-run"],
        ["study", "list", "--json"],
        ["study", "run", "niagara2-nic", "--scale", "quick", "--dry-run"],
        ["study", "report", "niagara2-nic"],
        ["report", "studies/10gbe/results/quick", "--out", "report/10gbe", "--x", "nic.mtu", "--y",
         "throughput_mbps", "--hue", "kernel", "--where", "window_bytes=65536"],
        ["artifacts", "list", "--json"], ["spec", "--schema"], ["checkpoints", "list"],
        ["checkpoints", "prune", "--stale", "--dry-run"],
    ]
    tree = site / "g5net" / "tree"
    before = {p: p.stat().st_mtime_ns for p in tree.rglob("*")}
    for args in examples:
        done = _run([g5net_bin, *args], elsewhere)
        assert done.returncode == 0, (args, done.stderr[-2000:])
    assert (elsewhere / "examples" / "quickstart.toml").is_file()
    # With no --scale the report is of the largest scale the study has committed.
    largest = g5net.study_results("niagara2-nic").name
    assert (elsewhere / "studies" / "niagara2-nic" / "report" / largest / "report.md").is_file()
    assert (elsewhere / "report" / "10gbe").is_dir()
    # The expectations file of `g5net check --help` is found too (these runs are
    # not the quickstart's, so its checks may fail: exit 1, not 2).
    checked = _run([g5net_bin, "check", "studies/sockets/results/quick", "--expect",
                    "results/expectations/quickstart.toml"], elsewhere)
    assert checked.returncode in (0, 1), checked.stderr
    # A new user's dry run, before any kernel or image is built: every point, and what it needs.
    fresh = _run([g5net_bin, "study", "run", "netframe", "--dry-run", "--json"], elsewhere,
                 G5NET_CACHE=str(tmp_path / "empty-cache"))
    assert fresh.returncode == 0, fresh.stderr
    assert all(p["run_id"] is None and "image" in p["missing"] for p in json.loads(fresh.stdout))
    # Nothing was written into the installed package.
    assert {p: p.stat().st_mtime_ns for p in tree.rglob("*")} == before
