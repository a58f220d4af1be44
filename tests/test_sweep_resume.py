"""The sweep-quick example on real QEMU points, stopped with Ctrl-C and with
`kill -9` mid-way and started again: every point ends done exactly once."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import EXAMPLES

from g5net.runs import store, sweepdir
from g5net.runs.sweepdir import SweepDir

pytestmark = pytest.mark.slow

SPEC = EXAMPLES / "sweep-quick.toml"
G5NET = [sys.executable, "-m", "g5net.cli"]
POINT_TIMEOUT_S = 600


def _sweep(out: Path, log: Path, spec: Path = SPEC) -> subprocess.Popen:
    """The sweep runner, its progress to `log`: a pipe nobody reads while the
    test waits would fill and stall the runner."""
    with open(log, "w") as err:
        return subprocess.Popen(G5NET + ["sweep", str(spec), "--out", str(out), "--jobs", "2"],
                                stderr=err, stdin=subprocess.DEVNULL)


def _wait_for(what, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not what():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.2)


def _runs(sd: SweepDir) -> dict[str, dict]:
    """Committed run directories by name, with their run.json."""
    return {p.name: json.loads((p / "run.json").read_text())
            for p in sorted(sd.store.iterdir()) if not p.name.startswith(".")}


def _status(sd: SweepDir) -> dict:
    out = subprocess.run(G5NET + ["status", str(sd.path), "--json"], capture_output=True, text=True)
    return json.loads(out.stdout)


def test_killed_sweep_resumes_and_runs_every_point_once(tmp_path):
    # Ctrl-C while the first points run: they stop and leave nothing behind.
    # Their streams last a minute, so that none can finish first (a quick
    # point takes under 9 s once its guests boot).
    interrupted = SweepDir(tmp_path / "interrupted")
    long_spec = tmp_path / "long.toml"
    long_spec.write_text(SPEC.read_text().replace("\nduration_s = 1\n", "\nduration_s = 60\n"))
    assert "\nduration_s = 60\n" in long_spec.read_text()
    log = tmp_path / "sweep.log"
    proc = _sweep(interrupted.path, log, long_spec)
    _wait_for(lambda: interrupted.plan_json.exists() and len(store.temporaries(interrupted.store)) == 2,
              POINT_TIMEOUT_S)
    assert _status(interrupted)["counts"].get("running") == 2
    time.sleep(5)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130, log.read_text()
    assert store.temporaries(interrupted.store) == []
    assert _runs(interrupted) == {}

    sd = SweepDir(tmp_path / "quick")

    # kill -9 once some point is done and others are running.
    proc = _sweep(sd.path, log)
    _wait_for(lambda: sd.store.is_dir() and len(_runs(sd)) >= 1 and store.temporaries(sd.store),
              POINT_TIMEOUT_S)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _runs(sd)
    assert all(r["status"] == "done" for r in before.values()), before

    # Start again: only what is missing runs.
    proc = _sweep(sd.path, log)
    assert proc.wait(timeout=POINT_TIMEOUT_S * 6) == 0, log.read_text()
    plan = sweepdir.read(sd)
    after = _runs(sd)
    assert sorted(after) == sorted(p.dir_name for p in plan.points)
    assert sorted(r["run_id"] for r in after.values()) == sorted(p.run_id for p in plan.points)
    assert all(r["status"] == "done" for r in after.values())
    for name, record in before.items():  # done before the kill, not run again
        assert after[name]["timings"]["started"] == record["timings"]["started"]
    assert store.temporaries(sd.store) == []

    status = _status(sd)
    assert status["counts"] == {"done": len(plan.points)}
    assert sorted(p["run_dir"] for p in status["by_status"]["done"]) == \
        sorted(str(sd.store / name) for name in after)

    # A finished sweep started again runs nothing.
    again = subprocess.run(G5NET + ["sweep", str(SPEC), "--out", str(sd.path)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "0 to run" in again.stderr
    # ... and with -q says nothing: the exit status and --json tell the outcome.
    quiet = subprocess.run(G5NET + ["sweep", str(SPEC), "--out", str(sd.path), "-q", "--json"],
                           capture_output=True, text=True, timeout=120)
    assert (quiet.returncode, quiet.stderr) == (0, "")
    assert json.loads(quiet.stdout)["counts"] == {"done": len(plan.points)}
