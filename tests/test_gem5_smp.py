"""Real gem5, hosts with several CPUs: a pair of 4-CPU hosts (2 cores x 2
threads, SMP kernel) boots on the atomic CPU into its checkpoint and measures
a small stream on the timing CPU, every CPU of both hosts having run; and a
boot made not to finish is stopped as stalled, long before its time limit.
About 10 and 5 minutes on 2 cores; skipped, with the reason, where gem5 is
missing."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from g5net.engines.gem5 import Gem5Engine
from g5net.model import specs
from g5net.runners import execute as run

pytestmark = [pytest.mark.gem5, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]


def test_a_pair_of_4_cpu_hosts_boots_and_measures(gem5_engine: Gem5Engine, tmp_path: Path):
    """examples/smp-gem5.toml: 2 cores x 2 threads per host, a 1 MB stream."""
    spec = specs.load(REPO / "examples" / "smp-gem5.toml")
    t0 = time.monotonic()
    rd = run.execute(spec, tmp_path, progress=print)
    record = rd.read_run()
    assert record["status"] == "done", record.get("failure")
    print(f"4-CPU pair under gem5: {time.monotonic() - t0:.0f} s wall, timings {record['timings']}")
    results = json.loads(rd.results_json.read_text())
    for h in spec.hosts:
        stream = results[h.name]["workloads"]["stream"]
        assert stream["roi"]["cpus"] == 4, stream["roi"]
        assert stream["throughput_mbps"] > 0
    # Every CPU of both hosts ran during the boot: none halted for good.
    arts = run.resolve_artifacts(spec, progress=print, build=False)
    boot = json.loads(gem5_engine.checkpoint(spec, arts).meta.read_text())
    assert sorted(boot["insts"]) == ["client", "server"]
    for board, insts in boot["insts"].items():
        assert len(insts) == 4 and min(insts) > 1_000_000, (board, insts)


def test_a_boot_that_stops_making_progress_fails_as_stalled(gem5_engine: Gem5Engine, tmp_path: Path):
    """The kernel waits ten hours before it mounts the root file system
    (`rootdelay`, a word kernel_args may hold; the protocol's own, such as
    `init=`, are refused): it boots, then nothing more is printed."""
    d = specs.load(REPO / "examples" / "quickstart-gem5.toml").to_dict()
    d["experiment"].update(name="gem5-stall", timeout_s=3600)
    for h in d["hosts"].values():
        h["kernel_args"] = ["rootdelay=36000"]
    t0 = time.monotonic()
    rd = run.execute(specs.from_dict(d), tmp_path, progress=print)
    wall = time.monotonic() - t0
    record = rd.read_run()
    assert record["status"] == "failed:boot", record["status"]
    reason = record["failure"]["reasons"][0]
    # An idle guest's simulated time runs fast: many simulated seconds pass
    # between two of the engine's looks, so the silence found is 2 s or more.
    # (The idle CPUs still wake for timer ticks, so they need not count as halted.)
    m = re.fullmatch(r"boot stalled: no console output for ([\d.]+) simulated s \(at [\d.]+ simulated s; "
                     r"CPUs halted: [^;]*(?:; [^;]*)?; last console lines: server: '.*'; "
                     r"client: '.*'\) \(while booting\)", reason)
    assert m and float(m.group(1)) > 2.0, reason
    # Each host's console, silent after its first line, is kept in the run.
    assert rd.console("server").read_text().count("\n") == 1
    assert wall < 3600 / 3, f"stopped after {wall:.0f} s"
