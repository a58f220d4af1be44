#!/usr/bin/env python3
"""Quickstart wall time with artifacts cached, one guest's boot-to-workload time,
and the time of a cached artifact rebuild. Targets: < 60 s and < 5 s."""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
G5NET = [sys.executable, "-m", "g5net.cli"]


def timed(cmd: list[str]) -> float:
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0


rebuild_s = timed(G5NET + ["artifacts", "build"])
print(f"cached artifact rebuild: {rebuild_s:.2f} s (target < 5 s)")
with tempfile.TemporaryDirectory() as out:
    t0 = time.monotonic()
    proc = subprocess.run(G5NET + ["run", "examples/quickstart.toml", "--out", out, "--json", "-q"],
                          cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if proc.returncode:
        sys.exit(f"quickstart failed:\n{proc.stdout}\n{proc.stderr}")
    run = json.loads((Path(json.loads(proc.stdout)["run_dir"]) / "run.json").read_text())
print(f"quickstart wall time: {wall:.1f} s (target < 60 s)")
for host, s in run["timings"]["boot_s"].items():
    print(f"boot to workload, {host}: {s:.1f} s")
