"""Per-host processes (dist-gem5), without running gem5: the spec's keys and
their errors, what stays as it was for one-process runs, the job's ending,
and the stats merge on a real gem5 stats file. tests/test_gem5_per_host.py
runs them on gem5."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from g5net import engines
from g5net import spec as specmod
from g5net.engines import qemu
from g5net.engines.base import EngineInfo
from g5net.engines.gem5 import dist, process
from g5net.engines.gem5 import engine as gem5_engine
from g5net.engines.gem5.checkpoints import Checkpoint
from g5net.contract.gem5 import DistProcess, Phase, RunConfig
from g5net.engines.gem5.config_files import SUPERSEDED_CONFIGS, configs_digest, dist_config_digest
from g5net.errors import EngineError, Gem5Error, SpecError
from g5net.guest import protocol
from g5net.model import identity
from g5net.model import specs
from g5net.runs.rundir import RunDir
from g5net.stats import iter_dumps, merge
from test_job import ENDING

REPO = Path(__file__).resolve().parents[1]
FIXTURE = RunDir(REPO / "tests" / "fixtures" / "gem5-quickstart")
GEM5_QUICKSTART = (REPO / "examples" / "quickstart-gem5.toml").read_text()


def per_host(extra: str = "", text: str = GEM5_QUICKSTART) -> specmod.Spec:
    return specs.loads(text.replace("[experiment]\n", f"[experiment]\nprocesses = \"per-host\"\n{extra}"))


def test_one_process_runs_keep_their_ids(monkeypatch):
    """The layout's keys do not enter a one-process run's id: the gem5
    fixture's run id, recomputed from its run.json today, is the one it has;
    per host, the engine adds the per-host config's digest."""
    record = json.loads(FIXTURE.run_json.read_text())
    spec = specs.from_dict(record["spec"])
    assert spec.experiment.processes == "one"
    monkeypatch.setattr(gem5_engine.Gem5Engine, "info", lambda self: EngineInfo(
        "gem5", Path(record["engine"]["binary"]), record["engine"]["version"], record["engine"]["digest"]))
    engine = gem5_engine.Gem5Engine()
    arts = {name: a["digest"] for name, a in record["artifacts"].items()}
    assert identity.run_id(spec, arts, engine.identity(spec)) == record["run_id"]
    # ... while per-host is another run, and its configs count in it.
    other = specs.from_dict({**record["spec"], "experiment": {**record["spec"]["experiment"],
                                                                "processes": "per-host"}})
    key = engine.identity(other)
    assert key == {"name": "gem5", "digest": record["engine"]["digest"], "per_host": dist_config_digest()}
    ids = {identity.run_id(other, arts, key), identity.run_id(other, arts, {**key, "per_host": "changed"})}
    assert len(ids) == 2 and record["run_id"] not in ids
    assert json.loads((FIXTURE.path / "provenance.json").read_text())["configs_digest"] in \
        (configs_digest(), *SUPERSEDED_CONFIGS)


def test_the_quantum_defaults_to_the_shortest_hop_and_may_not_exceed_it():
    s = per_host()
    # Back to back, the 1 us link is split at the switch process.
    assert s.hop_delays_us() == {"server": 0.5, "client": 0.5} and s.sync_quantum_us == 0.5
    assert per_host("sync_quantum_us = 0.25\n").sync_quantum_us == 0.25
    with pytest.raises(SpecError, match=r"experiment.sync_quantum_us: 0.6 us exceeds the shortest hop, "
                                        r"0.5 us \(half of link.delay_us"):
        per_host("sync_quantum_us = 0.6\n")
    switched = per_host(text=GEM5_QUICKSTART.replace("delay_us = 1.0", "delay_us = 1.0\nswitch = true")
                        .replace('[hosts.client]\nrole = "client"',
                                 '[hosts.client]\nrole = "client"\nlink = {delay_us = 0.2}'))
    assert switched.hop_delays_us() == {"server": 1.0, "client": 0.2}
    with pytest.raises(SpecError, match=r"0.3 us exceeds the shortest hop, 0.2 us \(hosts.client's"):
        specs.from_dict({**switched.to_dict(), "experiment": {
            **switched.to_dict()["experiment"], "sync_quantum_us": 0.3}})


def test_bad_layouts_are_refused_naming_the_key():
    with pytest.raises(SpecError, match="per-host processes need every link delay above 0"):
        per_host(text=GEM5_QUICKSTART.replace("delay_us = 1.0", "delay_us = 0"))
    with pytest.raises(SpecError, match="experiment.sync_quantum_us: only per-host processes"):
        specs.loads(GEM5_QUICKSTART.replace("[experiment]\n", "[experiment]\nsync_quantum_us = 0.1\n"))
    with pytest.raises(EngineError, match="experiment.processes = 'per-host' lays out gem5's processes"):
        qemu.check_spec(per_host().with_engine("qemu"))
    with pytest.raises(Gem5Error, match="hosts.server.nic.count: per-host processes join"):
        gem5_engine.check_spec(per_host(text=GEM5_QUICKSTART.replace("mtu = 1500", "mtu = 1500\ncount = 2")))


def test_every_host_frames_its_regions_and_ends_the_run_itself():
    s = per_host()
    one = specs.loads(GEM5_QUICKSTART)
    for host in ("server", "client"):
        lines = gem5_engine.job_script(s, s.host(host)).splitlines()
        assert "g5_roi_begin stream stats" in lines and "g5_roi_end latency stats" in lines
    # One process: only the first client frames them; every host of either
    # ends the run itself, since gem5 ends only once every host has run m5 exit.
    assert "g5_roi_begin stream" in gem5_engine.job_script(one, one.host("server")).splitlines()
    assert "g5_roi_begin stream stats" in gem5_engine.job_script(one, one.host("client")).splitlines()
    for spec in (s, one):
        for host in ("server", "client"):
            lines = gem5_engine.job_script(spec, spec.host(host)).splitlines()
            end = next(i for i, line in enumerate(lines) if line.startswith(ENDING))
            assert lines[end + 1] == "job_rc=$?"
            assert lines[end + 4:end + 9:2] == [f'echo "{protocol.BEGIN}"', f'echo "{protocol.END}"',
                                                "while :; do sleep 3600; done"]
            assert lines[end + 7] == "m5 exit"


def _split(stats: Path, tmp: Path) -> dict[str, Path]:
    """A one-process stats file as the two per-host processes would write it:
    each its own board's lines and every unboarded line, instruction counts
    shared out."""
    out = {}
    for host in ("server", "client"):
        lines = []
        for line in stats.read_text().splitlines():
            name = line.split(None, 1)[0] if line.strip() else ""
            if name.startswith(("server.", "client.")) and not name.startswith(host + "."):
                continue
            if name in merge.SUMMED:
                value = int(line.split()[1])
                share = value // 3 if host == "server" else value - value // 3
                line = line.replace(str(value), str(share), 1)
            lines.append(line)
        out[host] = tmp / host / "stats.txt"
        out[host].parent.mkdir()
        out[host].write_text("\n".join(lines) + "\n")
    return out


def test_merged_stats_read_as_the_one_process_file(tmp_path: Path):
    """Splitting the gem5 quickstart's stats.txt by host and merging it back
    gives every dump's every statistic, values included."""
    stats = FIXTURE.stats_txt
    parts = _split(stats, tmp_path)
    out = tmp_path / "stats.txt"
    assert merge.merge(parts, {"server": "server", "client": "client"}, "client", out) == 3
    for before, after in zip(iter_dumps(stats), iter_dumps(out), strict=True):
        assert after.keys() == before.keys()
        assert all(str(after[k].value) == str(before[k].value) for k in before)  # nan too
    # A process without its stats file (it died) leaves no dump to merge.
    parts["server"].unlink()
    assert merge.merge(parts, {"server": "server", "client": "client"}, "client", out) == 0


def _sleeper(tmp: Path) -> Path:
    """A stand-in for gem5: after the two flags start() gives every gem5,
    `CODE SECONDS`: it sleeps, then exits with CODE."""
    binary = tmp / "sleeper"
    binary.write_text("#!/bin/sh\nsleep \"$4\"\nexit \"$3\"\n")
    binary.chmod(0o755)
    return binary


def test_one_failing_process_takes_the_others_down(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """supervise() on real processes: one exits 1, the others would sleep for
    minutes; after the grace they are stopped, and the result names the failure."""
    monkeypatch.setattr(process, "KILL_GRACE_S", 1.0)
    binary = _sleeper(tmp_path)
    procs = []
    for name, code, secs in (("a", 0, 300), ("b", 1, 0.2), ("c", 0, 300)):
        p = process.Gem5Process(name, (str(code), str(secs)), tmp_path / name, tmp_path / f"{name}.log")
        procs.append((p, process.start(binary, p)))
    began = time.monotonic()
    result = process.supervise(procs, time.monotonic() + 60, {})
    assert time.monotonic() - began < 30
    assert result.returncode == 1 and result.log == tmp_path / "b.log"
    assert all(proc.poll() is not None for _, proc in procs)


def test_processes_are_stopped_together_not_one_after_another(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch):
    """Three stand-ins that ignore SIGTERM, stopped at the deadline: each gets
    the same KILL_GRACE_S, all at once, so the stop takes about one grace,
    not three."""
    grace = 3.0
    monkeypatch.setattr(process, "KILL_GRACE_S", grace)
    binary = tmp_path / "stubborn"
    binary.write_text("#!/bin/sh\ntrap '' TERM\nsleep 300\n")
    binary.chmod(0o755)
    procs = []
    for name in "abc":
        p = process.Gem5Process(name, (), tmp_path / name, tmp_path / f"{name}.log")
        procs.append((p, process.start(binary, p)))
    time.sleep(0.5)  # the traps are set
    began = time.monotonic()
    result = process.supervise(procs, time.monotonic(), {})
    assert time.monotonic() - began < 2 * grace
    assert result.timed_out and all(proc.poll() is not None for _, proc in procs)


def test_a_gem5_dies_with_the_process_that_started_it(tmp_path: Path):
    """`kill -9` of g5net leaves no gem5: start() asks the kernel to kill the
    child when its parent dies."""
    binary = _sleeper(tmp_path)
    pid_file = tmp_path / "child"
    parent = subprocess.Popen([sys.executable, "-c", f"""
import sys, time
from pathlib import Path

from g5net.engines.gem5 import process
p = process.Gem5Process("x", ("0", "300"), Path({str(tmp_path / 'x')!r}), Path({str(tmp_path / 'x.log')!r}))
child = process.start(Path({str(binary)!r}), p)
Path({str(pid_file)!r}).write_text(str(child.pid))
time.sleep(300)
"""])
    deadline = time.monotonic() + 30
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pid_file.read_text())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    # Reaped by init, or a zombie at most: not running.
    stat = Path(f"/proc/{child}/stat")
    assert not stat.exists() or stat.read_text().split()[2] == "Z"


def test_a_slurm_job_with_fewer_tasks_than_hosts_is_refused_before_the_run(monkeypatch):
    spec = per_host(text=(REPO / "examples" / "switched-gem5.toml").read_text())
    monkeypatch.setenv("SLURM_JOB_ID", "17")
    monkeypatch.setenv("SLURM_NTASKS", "2")
    with pytest.raises(Gem5Error, match=r"per-host processes of 4 hosts need 4 tasks of this SLURM "
                                        r"job \(one per host\), and it has 2"):
        gem5_engine.check_spec(spec)
    monkeypatch.setenv("SLURM_NTASKS", "4")
    gem5_engine.check_spec(spec)


def test_the_engine_says_how_the_hosts_are_laid_out_in_processes():
    engine = engines.get("gem5")
    assert engine.layout(specs.loads(GEM5_QUICKSTART)) == {"layout": "one"}
    # Back to back: the 1 us link halved at the switch; the quantum is a hop.
    assert engine.layout(per_host()) == {
        "layout": "per-host", "hop_delay_us": {"server": 0.5, "client": 0.5}, "sync_quantum_us": 0.5}
    fan_in = per_host(text=(REPO / "examples" / "switched-gem5.toml").read_text())
    laid_out = engine.layout(fan_in)
    assert laid_out["hop_delay_us"] == {"server": 1.0, "client-1": 1.0, "client-2": 1.0, "slow": 1.0}
    assert laid_out["sync_quantum_us"] == 1.0


# A stand-in for one process of a per-host run: the switch says where it
# listens, as gem5's TCPIface does; a host writes its console; each its report.
FAKE_DIST_GEM5 = r'''
import json, os, sys
args = sys.argv[1:]
outdir = [a.split("=", 1)[1] for a in args if a.startswith("--outdir=")][0]
host = json.load(open(args[-1]))["process"]["host"]
if host is None:
    print("tcp_iface listening on port 4242", flush=True)
else:
    with open(os.path.join(outdir, host + ".pc.com_1.device"), "w") as c:
        c.write("G5NET-BOOTED host=%s\n" % host)
json.dump({"phase": "measure", "completed": True, "sim_seconds": 0.25, "reason": "", "exits": []},
          open(os.path.join(outdir, "g5net-gem5.json"), "w"))
'''


@pytest.mark.parametrize("phase", ["boot", "measure"])
def test_each_process_writes_where_the_run_directory_or_checkpoint_says(tmp_path: Path, monkeypatch,
                                                                         phase: str):
    """dist.run on stand-in processes: each has the output folder and log its
    RunDir (measuring) or Checkpoint (booting) names, and the phase's log
    holds them all in the end."""
    monkeypatch.setenv("G5NET_IDLE_POLL", "0")
    binary = tmp_path / "gem5.opt"
    binary.write_text(f"#!{sys.executable}\n{FAKE_DIST_GEM5}")
    binary.chmod(0o755)
    spec = per_host()
    if phase == "measure":
        out: dist.Outputs = RunDir(tmp_path / "run")
        log = out.engine_log
    else:
        out = Checkpoint("0" * 64, tmp_path / "checkpoint")
        log = out.boot_log
    log.parent.mkdir(parents=True)
    boards = {h.name: h.name for h in spec.hosts}
    config = tmp_path / f"gem5-{phase}.json"
    config.write_text(RunConfig(Phase(phase), spec.to_dict(), (), str(tmp_path / "cpt")).to_json())
    result = dist.run(binary, spec, config, out, tmp_path / "cpt", log, time.monotonic() + 60, boards)
    assert result.returncode == 0 and result.report is not None and result.report.completed
    for name in ("server", "client", dist.SWITCH):
        assert out.process_log(name).read_text().split()[0] == str(binary), name
        assert f"==> {out.process_log(name).name} <==" in log.read_text()
        assert (out.process_out(name) / "g5net-gem5.json").is_file()
    assert dist.host_consoles(spec, out, boards)["client"].read_text() == "G5NET-BOOTED host=client\n"
    prefix = "engine" if phase == "measure" else "boot"
    assert out.process_log("server") == log.parent / f"{prefix}-server.log"
    # Each process's JSON says which it is, where the switch listens, and its checkpoint.
    client = RunConfig.from_json(config.with_name(f"gem5-{phase}-client.json").read_text(), "client")
    assert client.process == DistProcess(host="client", server=dist.LOCAL, port=4242)
    assert client.checkpoint == str(tmp_path / "cpt" / "client")
    switch = RunConfig.from_json(config.with_name(f"gem5-{phase}-{dist.SWITCH}.json").read_text(), "switch")
    assert switch.process is not None and switch.process.host is None


def test_the_heartbeat_says_what_gem5s_acpi_error_line_is():
    """Every gem5 boot's console shows this line for minutes (a committed fixture's
    first line); the heartbeat says it is harmless, and leaves other lines as they are."""
    first = (REPO / "tests" / "fixtures" / "gem5-quickstart" / "console-client.log").read_text().splitlines()[0]
    assert "ACPI BIOS Error" in first
    assert process.shown(first).endswith("(gem5's ACPI tables, harmless: Linux boots on)")
    assert process.shown("e1000: eth0 NIC Link is Up") == repr("e1000: eth0 NIC Link is Up")
