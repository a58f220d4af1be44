"""Real gem5 runs: the quickstart boots, checkpoints, restores with the detailed
CPU and caches, and measures; the same run sampled restores the same
checkpoint. (That another NIC placement restores it too is the committed
gem5-dca run's, tests/test_gem5_fixtures.py.)

Needs a gem5 X86 build ($G5NET_GEM5 or gem5.opt on PATH) and the guest
artifacts; skipped, with the reason, where gem5 is missing. About 10 minutes
on 2 cores for the first test (the boot), a few for the second.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from g5net import spec as specmod
from g5net.engines.gem5.boards import board_names
from g5net.metrics import profile
from g5net.model import specs
from g5net.runners import execute as run
from g5net.runs.rundir import RunDir
from g5net.stats import iter_dumps

pytestmark = [pytest.mark.gem5, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runs")


def quickstart(**nic: object) -> specmod.Spec:
    """examples/quickstart-gem5.toml (the quickstart sized for gem5) with smoke-sized
    workloads (a 1 MB stream, NetPIPE up to 256 bytes), NIC keys overridden."""
    d = specs.load(REPO / "examples" / "quickstart-gem5.toml").to_dict()
    for h in d["hosts"].values():
        h["nic"].update(nic)
    d["workloads"]["stream"]["bytes"] = 1_000_000
    d["workloads"]["latency"].update(max_bytes=256, repeats=5)
    return specs.from_dict(d)


def nic_counters(stats_txt: Path, spec: specmod.Spec) -> list[dict[str, float]]:
    """Per dump: each host's NIC packet and byte counters."""
    names = board_names(spec)
    out = []
    for dump in iter_dumps(stats_txt):
        row = {}
        for h in spec.hosts:
            for stat in ("txPackets", "rxPackets", "txBytes", "rxBytes"):
                key = f"{names[h.name]}.ethernet.EtherDevice.{stat}"
                if key in dump:
                    row[f"{h.name}.{stat}"] = dump.value(key)
        out.append(row)
    return out


@pytest.fixture(scope="module")
def pcie_run(gem5_engine, store: Path) -> RunDir:
    """The quickstart as written (NIC on PCIe): boots, checkpoints, measures."""
    t0 = time.monotonic()
    rd = run.execute(quickstart(), store, progress=print)
    print(f"quickstart under gem5: {time.monotonic() - t0:.0f} s wall, "
          f"timings {rd.read_run()['timings']}")
    return rd


def test_quickstart_measures_throughput_latency_and_nic_stats(pcie_run: RunDir):
    record = pcie_run.read_run()
    assert record["status"] == "done", record.get("failure")
    client = json.loads(pcie_run.results_json.read_text())["client"]["workloads"]
    assert client["stream"]["throughput_mbps"] > 0
    assert client["latency"]["latency_us"] > 0
    rows = nic_counters(pcie_run.stats_txt, quickstart())
    assert any(r and all(v > 0 for v in r.values()) for r in rows), \
        f"no stats dump with every NIC counter non-zero: {rows}"


def test_sampled_program_counters_say_where_the_time_went_and_change_nothing(
        pcie_run: RunDir, store: Path):
    """experiment.pc_sample_us: gem5's trace, switched on for a moment every
    50 us, gives every workload a breakdown of its CPU time by category; the
    guest cannot notice it, so every NIC counter is the unsampled run's."""
    d = quickstart().to_dict()
    d["experiment"]["pc_sample_us"] = 50
    sampled = specs.from_dict(d)
    t0 = time.monotonic()
    rd = run.execute(sampled, store, progress=print)
    record = rd.read_run()
    assert record["status"] == "done", record.get("failure")
    assert record["timings"]["boot_s"] == {}, "sampling needed a boot of its own"
    print(f"sampled every 50 us, restored: {time.monotonic() - t0:.0f} s wall")
    assert nic_counters(rd.stats_txt, sampled) == nic_counters(pcie_run.stats_txt, quickstart())
    assert not rd.pc_trace.exists(), "the raw trace was kept"
    server = json.loads(rd.metrics_json.read_text())["hosts"]["server"]["stream"]
    b = server["breakdown"]
    assert b["kernel_source"] == "gem5-pc-samples"
    # One sample per busy CPU per 50 us window: the busy time over 50 us, less
    # the windows a CPU spent waiting on memory throughout.
    assert b["samples"] == pytest.approx(server["cpu_busy_s"] / 50e-6, rel=0.1)
    assert 90 < b["sampled_busy_pct"] < 110
    assert sum(server[f"time_{c}_pct"] for c in profile.CATEGORIES) == pytest.approx(100)
    # The receiver's driver, stack and copy to iperf all show.
    for c in (profile.DRIVER, profile.STACK, profile.COPY, profile.APPLICATION):
        assert server[f"time_{c}_us_per_pkt"] > 0, c
    plain = json.loads(pcie_run.metrics_json.read_text())["hosts"]["server"]["stream"]
    assert "breakdown" not in plain


def test_checkpoints_lists_the_boot_the_run_restored(pcie_run: RunDir, capsys):
    """`g5net checkpoints` on real gem5's checkpoint: current, restored by the
    example spec, its last use the run's, and never among the stale to prune."""
    from g5net import cli, engines
    spec = quickstart()
    key = engines.get("gem5").checkpoint_key(spec, run.resolve_artifacts(spec, print, build=False))
    assert cli.main(["checkpoints", "list", "--for", str(REPO / "examples" / "quickstart-gem5.toml"),
                     "--json"]) == 0
    listed = {c["key"]: c for c in json.loads(capsys.readouterr().out)}
    ours = listed[key]
    assert ours["current"] and ours["size_bytes"] > 1 << 20
    assert ours["used_by"] == [str(REPO / "examples" / "quickstart-gem5.toml")]
    # Restored by the run: its last use is no older than the run itself (the
    # listing gives days to two decimals: half of 0.01 day is 432 s).
    started = datetime.fromisoformat(pcie_run.read_run()["timings"]["started"])
    assert ours["unused_days"] * 86400 <= (datetime.now(timezone.utc) - started).total_seconds() + 432
    assert cli.main(["checkpoints", "prune", "--stale", "--dry-run", "--json"]) == 0
    assert key not in json.loads(capsys.readouterr().out)["removed"]
