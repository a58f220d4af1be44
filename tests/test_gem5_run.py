"""Real gem5 runs: the quickstart boots, checkpoints, restores with the detailed
CPU and caches, and measures; a second placement restores the same checkpoint.

Needs a gem5 X86 build ($G5NET_GEM5 or gem5.opt on PATH) and the guest
artifacts; skipped, with the reason, where gem5 is missing. About 10 minutes
on 2 cores for the first test (the boot), a few for the second.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from g5net import run, spec as specmod, system
from g5net.engines.gem5.boards import board_names
from g5net.rundir import RunDir
from g5net.stats import iter_dumps

pytestmark = [pytest.mark.gem5, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runs")


def quickstart(**nic: object) -> specmod.Spec:
    """examples/quickstart-gem5.toml (the quickstart sized for gem5) with smoke-sized
    workloads (a 1 MB stream, NetPIPE up to 256 bytes), NIC keys overridden."""
    d = specmod.load(REPO / "examples" / "quickstart-gem5.toml").to_dict()
    for h in d["hosts"].values():
        h["nic"].update(nic)
    d["workloads"]["stream"]["bytes"] = 1_000_000
    d["workloads"]["latency"].update(max_bytes=256, repeats=5)
    return specmod.from_dict(d)


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


def dma_path(rd: RunDir, host: str = "client") -> list[str]:
    """The objects the host's NIC DMA crosses, from the run's config.ini."""
    summary = system.summarise(system.read(rd.m5out / "config.ini"), board_names(quickstart()))
    return [p["object"] for p in summary[host]["nics"][0]["dma_path"]]


def test_integrated_nic_restores_the_same_checkpoint_and_moves_dma(pcie_run: RunDir, store: Path):
    t0 = time.monotonic()
    rd = run.execute(quickstart(attach="integrated"), store, progress=print)
    record = rd.read_run()
    assert record["status"] == "done", record.get("failure")
    assert record["timings"]["boot_s"] == {}, "booted again instead of restoring the checkpoint"
    print(f"integrated placement, restored: {time.monotonic() - t0:.0f} s wall")
    # DMA: across the PCIe link (its monitor, the bound on reads in flight, the
    # crossbar) into the I/O bus, or through an on-chip buffer onto the membus.
    assert dma_path(pcie_run) == ["pcie_links.dma_monitor", "pcie_links.dma_window",
                                  "pcie_links.upstream", "iobus"]
    assert dma_path(rd) == ["dma_buffers", "cache_hierarchy.membus"]
    rows = nic_counters(rd.stats_txt, quickstart())
    assert any(r and all(v > 0 for v in r.values()) for r in rows), rows
