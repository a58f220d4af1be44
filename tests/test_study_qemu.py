"""`g5net study` end to end on a study of one's own ($G5NET_STUDIES) run on
real QEMU guests: run (resumable sweep), report (figure with the paper's
points beside ours, summary table whose verdict follows the measured values),
and a run on another machine that takes the committed points instead of
running them. Under a minute on two cores."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from g5net.runs import record as run_record


pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)

QUICK = """
[experiment]
name = "toy"
timeout_s = 300
[host]
memory_mb = 256
[hosts.server]
role = "server"
[hosts.client]
role = "client"
[workloads.stream]
kind = "iperf"
duration_s = 2
[sweep]
"workloads.stream.msg_bytes" = [1024, 65536]
"""
STUDY = """
title = "Bigger writes"
paper = "A. Nobody, Writes, 2001"
about = "Does a bigger write move more data?"
[[stand_in]]
paper = "a 2001 server"
g5net = "a QEMU guest"
[[figure]]
name = "throughput-vs-write"
title = "Throughput vs write size"
paper_ref = "Fig. 1"
x = "workloads.stream.msg_bytes"
y = "server.stream.throughput_mbps"
[[finding]]
name = "bigger"
text = "64 KB writes move more than 1 KB writes"
paper = "+50%"
relation = "bigger"
why = "measured under QEMU, no timing model"
[[finding]]
name = "offload"
text = "an offload engine halves latency"
paper = "-50%"
[[finding]]
name = "packets"
text = "a 64 KB write is more than 40 packets"
paper = "45"
measure = "client.stream.tx_packets"
range = [40, 1e12]
[[table]]
name = "big"
title = "The 64 KB point"
columns = ["server.stream.throughput_mbps", "client.stream.cpu_util"]
where = {"workloads.stream.msg_bytes" = 65536}
"""
EXPECT = """
[[relation]]
name = "bigger"
by = "workloads.stream.msg_bytes"
expect = ["65536.server.stream.throughput_mbps > 1024.server.stream.throughput_mbps"]
"""
PAPER = "figure,series,x,y,unit,source\nthroughput-vs-write,host,1024,300,Mbit/s,Fig. 1\n" \
        "throughput-vs-write,host,65536,450,Mbit/s,Fig. 1\n"


def test_a_study_runs_reports_and_resumes_from_its_committed_points(tmp_path: Path):
    studies = tmp_path / "studies"
    toy = studies / "toy"
    toy.mkdir(parents=True)
    for name, text in (("study.toml", STUDY), ("quick.toml", QUICK), ("expect.toml", EXPECT),
                       ("paper.csv", PAPER)):
        (toy / name).write_text(text)
    env = {**os.environ, "G5NET_STUDIES": str(studies)}

    def g5net(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "g5net.cli", "study", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=900)

    listed = g5net("list")
    assert listed.returncode == 0 and "toy" in listed.stdout and "Bigger writes" in listed.stdout
    [toy_json] = json.loads(g5net("list", "--json").stdout)
    assert toy_json["scales"] == ["quick"] and toy_json["findings"] == ["bigger", "offload", "packets"]
    assert g5net("run", "toy", "--scale", "full").returncode == 2  # it has no full scale
    ran = g5net("run", "toy")
    assert ran.returncode == 0, ran.stderr[-2000:]
    sweep_dir = tmp_path / "results" / "studies" / "toy-quick"
    assert (sweep_dir / "sweep.json").is_file()
    # QEMU runs are not what a study commits.
    refused = g5net("save", "toy")
    assert refused.returncode == 2 and "no gem5 run" in refused.stderr
    report = g5net("report", "toy", "--from", str(sweep_dir), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    md = (tmp_path / "report" / "report.md").read_text()
    assert (tmp_path / "report" / "throughput-vs-write.png").stat().st_size > 10_000
    # The verdict follows the measured values.
    got = {}
    for run_dir in (sweep_dir / "runs").iterdir():
        spec = json.loads((run_dir / "run.json").read_text())["spec"]
        metrics = json.loads((run_dir / "metrics.json").read_text())
        got[spec["workloads"]["stream"]["msg_bytes"]] = metrics["hosts"]["server"]["stream"]["throughput_mbps"]
    verdict = "yes" if got[65536] > got[1024] else "no"
    row = next(line for line in md.splitlines() if line.startswith("| 64 KB writes"))
    assert f"| {verdict} |" in row and f"{got[65536]:.4g} vs {got[1024]:.4g}" in row, row
    assert "| an offload engine halves latency | -50% | - | not modelled | - |" in md
    # A magnitude: every run's value inside the paper's range.
    assert "| a 64 KB write is more than 40 packets | 45 | " in md and "2 inside 40-1e+12 | yes |" in md
    # A table of the runs its `where` selects: one row, the figures of metrics.json.
    table = md[md.index("## The 64 KB point"):].split("\n\n")[1].splitlines()
    assert table[0] == "| server.stream.throughput_mbps | client.stream.cpu_util |" and len(table) == 3
    assert table[2].startswith(f"| {got[65536]:.4g} | "), table
    assert "| a 2001 server | a QEMU guest |" in md
    as_json = json.loads(g5net("report", "toy", "--from", str(sweep_dir), "--out", str(tmp_path / "r2"),
                               "--json").stdout)
    assert [(f["name"], f["reproduced"]) for f in as_json["findings"]] == \
        [("bigger", verdict), ("offload", "not modelled"), ("packets", "yes")]

    # Another machine, without the sweep directory: the point committed (as
    # `g5net study save` commits a run: its small files, the record portable)
    # is taken from the committed results, and only the other one runs.
    first, second = sorted((sweep_dir / "runs").iterdir())
    committed = toy / "results" / "quick"
    (committed / first.name).mkdir(parents=True)
    record = json.loads((first / "run.json").read_text())
    (committed / first.name / "run.json").write_text(json.dumps(run_record.portable(record)))
    for name in ("results.json", "metrics.json"):
        shutil.copy(first / name, committed / first.name / name)
    (committed / "provenance.json").write_text(json.dumps({"study": "toy", "scale": "quick", "runs": 1,
                                                           "points": 2}))
    shutil.rmtree(tmp_path / "results")
    again = g5net("run", "toy")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "1 of 2 points taken from the committed results (studies/toy/results/quick)" in again.stderr
    assert "2 points, 1 already have a run, 1 to run" in again.stderr
    taken, ran = sweep_dir / "runs" / first.name, sweep_dir / "runs" / second.name
    assert sorted(p.name for p in taken.iterdir()) == ["metrics.json", "results.json", "run.json"]
    assert (ran / "console-server.log").is_file()
    status = subprocess.run([sys.executable, "-m", "g5net.cli", "status", str(sweep_dir), "--json"],
                            cwd=tmp_path, env=env, capture_output=True, text=True)
    assert status.returncode == 0 and json.loads(status.stdout)["counts"] == {"done": 2}

    # A point that ran out of its time (on a busy machine, say) stays as it
    # is unless asked for again.
    record = json.loads((ran / "run.json").read_text())
    (ran / "run.json").write_text(json.dumps({**record, "status": "timeout"}))
    for flags, again_runs in (((), False), (("--retry-failed",), True)):
        dry = g5net("run", "toy", "--dry-run", "--json", *flags)
        assert dry.returncode == 0, dry.stderr[-2000:]
        rows = {r["dir"]: r for r in json.loads(dry.stdout)}
        assert (rows[ran.name]["state"], rows[ran.name]["will_run"]) == ("timeout", again_runs)
        assert (rows[taken.name]["state"], rows[taken.name]["will_run"]) == ("done", False)
