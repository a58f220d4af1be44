"""The SLURM runner against a real single-node SLURM (slurmctld, slurmd, munged)
started here on loopback. Needs Debian's slurm-wlm and munge, and root; skipped
with the reason where the daemons cannot start."""

import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import EXAMPLES
from test_gem5_per_host import per_host_smoke
from test_gem5_sampled import smoke_sampled_text

from g5net.model import specs
from g5net.runners import execute as run
from g5net.runs import sweepdir
from g5net.runs.rundir import RunDir
from g5net.runs.sweepdir import SweepDir

pytestmark = pytest.mark.slurm

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo")
START_TIMEOUT_S = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _memory_mb() -> int:
    with open("/proc/meminfo") as f:
        total_kb = int(f.readline().split()[1])
    return total_kb // 1024 // 2  # half the machine: the test must not starve it


def _slurm_conf(root: Path, munge_socket: Path) -> str:
    return "\n".join([
        "ClusterName=g5nettest",
        "SlurmctldHost=localhost",
        "SlurmUser=root",
        "SlurmdUser=root",
        f"SlurmctldPort={_free_port()}",
        f"SlurmdPort={_free_port()}",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={munge_socket}",
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'slurmctld.log'}",
        f"SlurmdLogFile={root / 'slurmd.log'}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "ReturnToService=2",
        "SchedulerParameters=sched_interval=1",
        "MinJobAge=600",
        "KillWait=10",
        # At least 4 CPUs, whatever the machine has, for the per-host fan-in's 4
        # tasks (mostly idle gem5 processes); slurmd takes the configured ones.
        "SlurmdParameters=config_overrides",
        f"NodeName=localhost CPUs={max(os.cpu_count() or 1, 4)} RealMemory={_memory_mb()} "
        f"State=UNKNOWN",
        "PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP",
        "",
    ])


class Cluster:
    def __init__(self, root: Path):
        self.root = root
        self.procs: list[subprocess.Popen] = []

    def spawn(self, cmd: list[str]) -> None:
        log = open(self.root / f"{Path(cmd[0]).name}.out", "wb")
        self.procs.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL))

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-1500:]}"
                         for p in sorted(self.root.glob("*.log")) + sorted(self.root.glob("*.out")))

    def stop(self) -> None:
        for p in reversed(self.procs):
            p.terminate()
        for p in reversed(self.procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _start(root: Path) -> Cluster:
    cluster = Cluster(root)
    key = root / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    munge_socket = root / "munge.sock"
    cluster.spawn(["munged", "--foreground", "--force", f"--key-file={key}",
                   f"--socket={munge_socket}", f"--pid-file={root / 'munged.pid'}",
                   f"--log-file={root / 'munged.log'}", f"--seed-file={root / 'munged.seed'}"])
    conf = root / "slurm.conf"
    conf.write_text(_slurm_conf(root, munge_socket))
    for d in ("state", "spool"):
        (root / d).mkdir()
    os.environ["SLURM_CONF"] = str(conf)
    cluster.spawn(["slurmctld", "-D", "-i", "-f", str(conf)])
    cluster.spawn(["slurmd", "-D", "-N", "localhost", "-f", str(conf)])
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        out = subprocess.run(["sinfo", "--noheader", "--format=%T"], capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip() == "idle":
            return cluster
        if any(p.poll() is not None for p in cluster.procs):
            break
        time.sleep(0.5)
    logs = cluster.logs()
    cluster.stop()
    raise RuntimeError(f"single-node SLURM did not come up:\n{logs}")


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory):
    missing = [d for d in DAEMONS if not shutil.which(d)]
    if missing:
        pytest.skip(f"SLURM test needs {', '.join(missing)}: apt-get install slurm-wlm munge")
    if os.geteuid() != 0:
        pytest.skip("SLURM test starts slurmctld, slurmd and munged as root; not root here")
    old_conf = os.environ.get("SLURM_CONF")
    # Short path: munge's and slurm's sockets must fit in sockaddr_un.
    root = Path(tmp_path_factory.mktemp("slurm"))
    try:
        cluster = _start(root)
    except (RuntimeError, OSError) as e:
        pytest.skip(f"single-node SLURM cannot start here: {e}")
    yield cluster
    subprocess.run(["scancel", "--user=root"], capture_output=True)
    cluster.stop()
    if old_conf is None:
        os.environ.pop("SLURM_CONF", None)
    else:
        os.environ["SLURM_CONF"] = old_conf


def test_cluster_runs_an_array_job(slurm_cluster, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n#SBATCH --array=0-2\n#SBATCH --time=1\n"
                      f"#SBATCH --output={tmp_path}/%a.out\necho task $SLURM_ARRAY_TASK_ID\n")
    out = subprocess.run(["sbatch", "--parsable", "--wait", str(script)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr + slurm_cluster.logs()
    assert sorted(p.read_text() for p in tmp_path.glob("*.out")) == [f"task {i}\n" for i in range(3)]


def _g5net(*args: str, timeout_s: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "g5net.cli", *args], capture_output=True,
                          text=True, timeout=timeout_s)


def _table(sweep_dir: Path, out: Path) -> list[dict]:
    done = _g5net("collect", str(sweep_dir), "-o", str(out), timeout_s=120)
    assert done.returncode == 0, done.stderr
    with open(out) as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_sweep_through_slurm_matches_local(slurm_cluster, tmp_path):
    spec = str(EXAMPLES / "sweep-quick.toml")
    local = _g5net("sweep", spec, "--out", str(tmp_path / "local"), "--jobs", "2", timeout_s=3600)
    assert local.returncode == 0, local.stderr
    on_slurm = _g5net("sweep", spec, "--out", str(tmp_path / "slurm"), "--runner", "slurm",
                      timeout_s=3600)
    assert on_slurm.returncode == 0, on_slurm.stderr + slurm_cluster.logs()

    local_rows = _table(tmp_path / "local", tmp_path / "local.csv")
    slurm_rows = _table(tmp_path / "slurm", tmp_path / "slurm.csv")
    assert len(local_rows) == len(slurm_rows) == 6
    assert list(local_rows[0]) == list(slurm_rows[0])
    assert [r["run_id"] for r in local_rows] == [r["run_id"] for r in slurm_rows]
    assert {r["status"] for r in local_rows + slurm_rows} == {"done"}
    for column in local_rows[0]:
        if column.startswith(("sweep.", "spec.")):
            assert [r[column] for r in local_rows] == [r[column] for r in slurm_rows], column

    # A point whose run is lost is the only one submitted again.
    sd = SweepDir(tmp_path / "slurm")
    lost = sweepdir.read(sd).points[4]
    shutil.rmtree(sd.store / lost.dir_name)
    again = _g5net("sweep", spec, "--out", str(sd.path), "--runner", "slurm", timeout_s=1800)
    assert again.returncode == 0, again.stderr
    jobs = json.loads(sd.slurm_jobs.read_text())
    assert [j["indices"] for j in jobs] == [list(range(6)), [4]]
    assert "#SBATCH --array=4\n" in (sd.slurm / jobs[1]["script"]).read_text()
    status = json.loads(_g5net("status", str(sd.path), "--json", timeout_s=60).stdout)
    assert status["counts"] == {"done": 6}


@pytest.mark.slow
@pytest.mark.gem5
def test_a_per_host_run_is_one_slurm_job_of_a_task_per_host(slurm_cluster, gem5_engine, tmp_path):
    """Two hosts, each in its gem5 process: one array task asking for 2 tasks;
    the server runs beside the runner and the switch, the client as a job
    step, and it finds the switch through the allocation. Restores the
    per-host quickstart's boot, which tests/test_gem5_per_host.py makes too."""
    spec = tmp_path / "per-host.toml"
    spec.write_text(per_host_smoke())
    out = tmp_path / "sweep"
    # Past the run's own hour (per_host_smoke), so that the run says why it stopped.
    done = _g5net("sweep", str(spec), "--out", str(out), "--runner", "slurm", timeout_s=4200)
    assert done.returncode == 0, done.stderr + slurm_cluster.logs()
    sd = SweepDir(out)
    [job] = json.loads(sd.slurm_jobs.read_text())
    assert "#SBATCH --ntasks=2\n" in (sd.slurm / job["script"]).read_text()
    [point] = sweepdir.read(sd).points
    rd = RunDir(sd.store / point.dir_name)
    record = rd.read_run()
    assert record["status"] == "done", record.get("failure")
    results = json.loads(rd.results_json.read_text())
    assert results["server"]["workloads"]["stream"]["bytes"] == 250_000
    assert results["client"]["workloads"]["stream"]["throughput_mbps"] > 0
    first = {h: rd.process_log(h).read_text().splitlines()[0] for h in ("server", "client")}
    assert first["server"].split()[0].endswith("gem5.opt")
    assert first["client"].startswith("srun "), first


@pytest.mark.slow
@pytest.mark.gem5
def test_sampled_windows_are_an_array_of_one_task_per_window(slurm_cluster, gem5_engine, tmp_path):
    """A sampled point's windows are the tasks of an array that its point
    waits for: each task measures its window (the first to come fast-forwards
    the stream where no warm checkpoint is stored, the others wait on its
    lock); the point then finds all of them measured. The stream is
    tests/test_gem5_sampled.py's, whose warm checkpoints this array restores
    where that test ran first; their measured windows are removed here, so
    that the array measures its own."""
    text = smoke_sampled_text()
    smoke = specs.loads(text)
    arts = run.resolve_artifacts(smoke, progress=lambda line: None, build=False)
    warm, _ = gem5_engine.warm_checkpoints(smoke, gem5_engine.checkpoint(smoke, arts))
    shutil.rmtree(warm.path / "windows", ignore_errors=True)
    spec = tmp_path / "sampled.toml"
    spec.write_text(text)
    out = tmp_path / "sweep"
    done = _g5net("sweep", str(spec), "--out", str(out), "--runner", "slurm", timeout_s=3600)
    assert done.returncode == 0, done.stderr + slurm_cluster.logs()
    sd = SweepDir(out)
    windows, points = json.loads(sd.slurm_jobs.read_text())
    assert windows["kind"] == "windows" and windows["indices"] == []
    assert json.loads((sd.slurm / "windows-000.json").read_text()) == [[0, 0], [0, 1]]
    script = (sd.slurm / points["script"]).read_text()
    assert f"#SBATCH --dependency=afterany:{windows['job_id']}\n" in script
    logs = {p.name: p.read_text() for p in sd.slurm.glob("*.out")}
    assert sum("point 0 window 0: measured" in t for t in logs.values()) == 1
    assert sum("point 0 window 1: measured" in t for t in logs.values()) == 1
    point_log = next(t for t in logs.values() if "[point 0] " in t)
    assert "2 of 2 windows measured earlier" in point_log
    [planned] = sweepdir.read(sd).points
    rd = RunDir(sd.store / planned.dir_name)
    assert rd.read_run()["status"] == "done"
    got = json.loads(rd.metrics_json.read_text())["hosts"]["server"]["stream"]
    assert got["n_windows"] == 2 and min(w["gem5_packets"] for w in got["per_window"]) > 10
