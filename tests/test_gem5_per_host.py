"""Per-host processes on real gem5 (dist-gem5): the gem5 quickstart with a
gem5 process per host and one for the switch boots into one checkpoint per
process, restores it and runs a smoke-sized stream to the end, leaving no
gem5 and no listening port behind; a runner killed with `kill -9` leaves no
gem5 behind, a resumed sweep takes that point up again, and Ctrl-C stops it
with every process and the switch's port. (That a per-host run measures
what a one-process run measures, and the 4-host fan-in, are committed runs,
checked by test_gem5_per_host_fixtures.py: live, they cost CI 14 and 20
minutes.)

Needs a gem5 X86 build and the guest artifacts; skipped, with the reason,
where gem5 is missing. The first test boots (some 15 minutes on 2 busy cores).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from g5net.engines.gem5.dist import SWITCH
from g5net.machine.local_ports import listening_ports
from g5net.machine.wakeups import polling_idle
from g5net.model import specs
from g5net.runners import execute as run
from g5net.runs import sweepdir
from g5net.runs.rundir import RunDir
from g5net.runs.sweepdir import SweepDir

pytestmark = [pytest.mark.gem5, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]


def per_host_quickstart() -> str:
    """examples/quickstart-gem5.toml, as the committed one-process fixture ran
    it, with a gem5 process per host, and an hour for its boot and run: on
    2 busy cores the per-host boot took 882 s and the run 843 s, and a run
    that waits for another test's boot waits inside its own limit."""
    text = (REPO / "examples" / "quickstart-gem5.toml").read_text()
    assert "timeout_s = 1800 " in text
    text = text.replace("timeout_s = 1800 ", "timeout_s = 3600 ", 1)
    return text.replace("[experiment]\n", "[experiment]\nprocesses = \"per-host\"\n", 1)


def per_host_smoke() -> str:
    """per_host_quickstart() smoke-sized: its stream alone, of 250 kB. It
    restores the same boot. (A per-host run's host seconds follow its
    simulated ones at some 0.35 simulated ms a second, whatever its guests
    do: the per-host quickstart's fixture ran 0.306 simulated s in 881 s, so
    every workload left out saves its simulated time.)"""
    text = per_host_quickstart()
    assert "bytes = 4000000" in text
    text = text.replace("bytes = 4000000", "bytes = 250000", 1)
    return text.replace("[experiment]\n", "[experiment]\nworkloads = [\"stream\"]\n", 1)


@pytest.fixture(scope="module")
def per_host_run(gem5_engine, tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    spec = specs.loads(per_host_smoke())
    return run.execute(spec, tmp_path_factory.mktemp("runs"), progress=lambda line: None)


def test_a_per_host_run_ends_done_leaving_no_gem5_and_no_listening_port(per_host_run: RunDir):
    record = per_host_run.read_run()
    assert record["status"] == "done", record.get("failure")
    # Each process's own m5out under its name, the merged stats.txt beside them.
    for name in ("server", "client", SWITCH):
        assert (per_host_run.m5out / name / "config.ini").is_file(), name
    assert per_host_run.host_stats("server").is_file()
    results = json.loads(per_host_run.results_json.read_text())
    assert results["server"]["workloads"]["stream"]["bytes"] == 250_000
    metrics = json.loads(per_host_run.metrics_json.read_text())["hosts"]
    assert metrics["server"]["stream"]["nic_rx_pkts"] > 250_000 / 1500
    # Every process is gone, and nothing listens on the switch's port any more
    # (its closed connections linger in TIME_WAIT for a minute, harmlessly).
    assert _gem5_pids(per_host_run.path.parent) == []  # ran under a .tmp- name there
    port = int(re.search(r"tcp_iface listening on port (\d+)",
                         per_host_run.process_log(SWITCH).read_text())[1])
    assert port not in listening_ports()
    # The log says whether idle CPUs polled between the barriers (here as in this test).
    with polling_idle() as idle:
        pass
    assert per_host_run.engine_log.read_text().splitlines()[0] == f"g5net: {idle}"


def _gem5_pids(under: Path) -> list[int]:
    """Running gem5 processes whose --outdir is under `under`."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(a.startswith(b"--outdir=" + str(under).encode()) for a in cmd):
            pids.append(int(proc.name))
    return pids


def _wait_for_gem5(runner: subprocess.Popen, out: Path, what: str) -> None:
    """Until the point's switch and two hosts run under `out`."""
    deadline = time.monotonic() + 1800
    while len(_gem5_pids(out)) < 3:
        assert runner.poll() is None and time.monotonic() < deadline, f"{what} never ran its point"
        time.sleep(1)


def test_kill_9_leaves_no_gem5_resume_takes_the_point_up_and_ctrl_c_stops_it(
        per_host_run: RunDir, tmp_path: Path):
    """A sweep of the per-host quickstart, smoke-sized; the runner is killed
    with SIGKILL while the point's gem5 processes run, and the resumed sweep,
    which runs that point again, gets SIGINT (what Ctrl-C sends) while its
    processes measure: it ends within a minute, with a failing exit status,
    no gem5 left and nothing listening on the switch's port. Restores the
    per-host quickstart's checkpoint: no boot. (That a resumed sweep runs
    only the points that have no run, to the end, is tests/test_sweep_resume.py's,
    on QEMU; that a per-host run ends done, the first test's.)"""
    spec = tmp_path / "spec.toml"
    spec.write_text(per_host_smoke() + '\n[sweep]\n"experiment.processes" = ["per-host"]\n')
    out = tmp_path / "sweep"
    cmd = [sys.executable, "-m", "g5net.cli", "sweep", str(spec), "--out", str(out), "--jobs", "1"]
    runner = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for_gem5(runner, out, "the sweep")
    time.sleep(5)
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    deadline = time.monotonic() + 60
    while _gem5_pids(out) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _gem5_pids(out) == []
    sd = SweepDir(out)
    [point] = sweepdir.read(sd).points
    assert not (sd.store / point.dir_name).exists()

    again = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _wait_for_gem5(again, out, "the resumed sweep")
    time.sleep(10)
    [log] = sd.store.glob(".tmp-*/engine-_switch.log")
    port = int(re.search(r"tcp_iface listening on port (\d+)", log.read_text())[1])
    again.send_signal(signal.SIGINT)
    _, err = again.communicate(timeout=60)
    assert "0 already have a run, 1 to run" in err
    assert again.returncode != 0, err
    assert _gem5_pids(out) == []
    assert port not in listening_ports()
