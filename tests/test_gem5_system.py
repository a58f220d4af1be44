"""Real gem5 builds the systems a spec describes (`g5net system`), without
simulating: the NIC placements differ only in the NIC's paths, the PCIe link
and the memory are built as the spec asks, and the niagara2 preset has
Niagara 2's shape. Seconds each; skipped, with the
reason, where gem5 is missing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from g5net import spec as specmod
from g5net.contract import catalogue
from g5net.engines.gem5 import Gem5Engine
from g5net.engines.gem5.boards import board_names
from g5net.model import specs
from g5net.runners import execute as run
from g5net.stats import system

pytestmark = pytest.mark.gem5

REPO = Path(__file__).resolve().parents[1]


def quickstart(**nic: object) -> specmod.Spec:
    d = specs.load(REPO / "examples" / "quickstart-gem5.toml").to_dict()
    for h in d["hosts"].values():
        h["nic"].update(nic)
        h["caches"]["l2_shared"] = True  # where DCA allocates
    return specs.from_dict(d)


def build(engine: Gem5Engine, spec: specmod.Spec, out: Path):
    ini = system.read(engine.describe(spec, run.resolve_artifacts(spec, print), out))
    return ini, system.summarise(ini, board_names(spec))


@pytest.fixture(scope="module")
def placements(gem5_engine, tmp_path_factory):
    out = tmp_path_factory.mktemp("placements")
    return {name: build(gem5_engine, quickstart(**nic), out / name)
            for name, nic in {"pcie": {"attach": "pcie"},
                              "integrated": {"attach": "integrated"},
                              "dca": {"attach": "integrated", "dca": True}}.items()}


def dma_path(summary: dict, host: str = "client") -> list[tuple[str, str]]:
    return [(p["object"], p["type"]) for p in summary[host]["nics"][0]["dma_path"]]


def test_each_placement_takes_dma_where_designed(placements):
    # PCIe: the monitor, the bound on DMA in flight, the link's upstream
    # crossbar, its root port (which keeps the link's pace off the shared bus),
    # then the I/O bus (and the I/O cache).
    assert dma_path(placements["pcie"][1]) == [("pcie_links.dma_monitor", "CommMonitor"),
                                               ("pcie_links.dma_window", "Bridge"),
                                               ("pcie_links.upstream", "NoncoherentXBar"),
                                               ("pcie_links.root_port", "Bridge"),
                                               ("iobus", "NoncoherentXBar")]
    # Integrated: an on-chip DMA buffer straight onto the coherent membus ...
    assert dma_path(placements["integrated"][1]) == [("dma_buffers", "Cache"),
                                                     ("cache_hierarchy.membus", "CoherentXBar")]
    # ... or, with DCA, above the shared L2, so that DMA writes allocate in it.
    assert dma_path(placements["dca"][1]) == [("dma_buffers", "Cache"),
                                              ("cache_hierarchy.l2bus", "CoherentXBar")]


@pytest.mark.parametrize("gen, lanes, mps, raw_gbps, data_gbps", [
    # Gen1 x4: 4 x 250 MB/s, of which 128 / (128 + 24) is data.
    (1, 4, 128, 1.0, 1.0 * 128 / 152),
    # Gen3 x16: 16 x 8 GT/s x 128/130 / 8 bits, 256 B payloads.
    (3, 16, 256, 15.754, 15.754 * 256 / 280)])
def test_system_shows_the_pcie_link_the_spec_asks_for(gem5_engine, tmp_path, gen, lanes, mps,
                                                      raw_gbps, data_gbps):
    text = (REPO / "examples" / "quickstart-gem5.toml").read_text().replace(
        'attach = "pcie"', f'attach = "pcie"\npcie_gen = {gen}\npcie_lanes = {lanes}\n'
        f'pcie_max_payload = {mps}\npcie_latency_ns = 500\npcie_max_read_request = 1024\n'
        f'pcie_read_requests = 4')
    spec_path = tmp_path / "link.toml"
    spec_path.write_text(text)
    r = subprocess.run([sys.executable, "-m", "g5net.cli", "system", str(spec_path)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    print(r.stdout)
    assert (f"pcie: Gen{gen} x{lanes}, {raw_gbps:.2f} GB/s per direction, {data_gbps:.2f} GB/s of "
            f"data in {mps} B payloads, 500 ns one way; reads 4 x 1024 B = 4096 B in flight") in r.stdout
    # What gem5 built: the crossbars' clock is whole picoseconds, so the
    # bandwidth is within 0.1% of the asked one and the latency within a cycle.
    _, summary = build(gem5_engine, specs.load(spec_path), tmp_path / "built")
    link = summary["client"]["nics"][0]["link"]
    assert link["gbytes_per_s"] == pytest.approx(data_gbps, rel=1e-3)
    assert link["latency_ns"] == pytest.approx(500.0, abs=16 / data_gbps)
    assert link["dma_window_bytes"] == 4 * 1024


def test_memory_type_and_channels_are_built(gem5_engine, tmp_path):
    d = quickstart().to_dict()
    for h in d["hosts"].values():
        h.update(memory_type="ddr3_1600", memory_channels=2)
    _, summary = build(gem5_engine, specs.from_dict(d), tmp_path)
    # Two DDR3-1600 x64 channels: 2 x 1600 MT/s x 8 B.
    assert summary["server"]["memory"] == {"channels": 2, "gbytes_per_s": 25.6}


def test_every_memory_type_is_built_and_differs(gem5_engine, tmp_path):
    """configs/ finds each catalogue memory type's gem5 DRAM interface, a
    different one for each."""
    drams = {}
    for memory_type in catalogue.MEMORY_TYPES:
        d = quickstart().to_dict()
        for h in d["hosts"].values():
            h["memory_type"] = memory_type
        ini, _ = build(gem5_engine, specs.from_dict(d), tmp_path / memory_type)
        drams[memory_type] = tuple(ini["server.memory.mem_ctrl.dram"].items())
    assert len(set(drams.values())) == len(catalogue.MEMORY_TYPES)


def _differences(a, b) -> set[tuple[str, str]]:
    out = {(s, "<section>") for s in set(a.sections()) ^ set(b.sections())}
    for s in set(a.sections()) & set(b.sections()):
        out |= {(s, k) for k in set(a[s]) | set(b[s]) if a[s].get(k) != b[s].get(k)}
    return out


def test_placements_differ_only_in_the_nic_paths(placements):
    pcie, integrated = placements["pcie"][0], placements["integrated"][0]
    for section, key in _differences(pcie, integrated):
        board, _, rest = section.partition(".")
        expected = (rest.startswith(("pcie_links", "dma_buffers"))
                    or (rest == "ethernet" and key in ("pio", "dma", "pio_latency"))
                    # the crossbars the paths plug into list their ports
                    or (rest in ("iobus", "cache_hierarchy.membus") and key.endswith("_ports"))
                    or (rest == "" and key in ("readfile", "children")))
        assert expected, f"{section} {key}: {pcie[section].get(key)} | {integrated[section].get(key)}"


def test_niagara2_preset_has_niagara2s_shape(gem5_engine, tmp_path):
    d = quickstart().to_dict()
    for h in d["hosts"].values():
        h["cpu"] = {"preset": "niagara2", "model": "timing"}
        h.pop("caches")
    _, summary = build(gem5_engine, specs.from_dict(d), tmp_path)
    host = summary["server"]
    assert host["cpus"] == 64 and host["clock_ghz"] == pytest.approx(1.2, abs=0.001)
    caches = {c["object"].rstrip("0123456789"): [] for c in host["caches"]}
    for c in host["caches"]:
        caches[c["object"].rstrip("0123456789")].append(c)
    # A core's 8 threads share its L1s: 8 of each, each behind an 8-port crossbar.
    assert [(c["size_bytes"], c["assoc"], c["requesters"]) for c in
            caches["cache_hierarchy.l1icaches"]] == [(16384, 8, 8)] * 8
    assert [(c["size_bytes"], c["assoc"], c["requesters"]) for c in
            caches["cache_hierarchy.l1dcaches"]] == [(8192, 4, 8)] * 8
    [l2] = caches["cache_hierarchy.l2cache"]
    assert (l2["size_bytes"], l2["assoc"]) == (4 << 20, 16)


@pytest.mark.parametrize("cores, threads", [(1, 1), (2, 8), (4, 1)])
def test_niagara2_keys_written_win_over_the_preset(gem5_engine, tmp_path, cores, threads):
    """A CPU-count sweep point and a bigger L2 on the preset build what they say."""
    d = quickstart().to_dict()
    for h in d["hosts"].values():
        h["cpu"] = {"preset": "niagara2", "model": "timing", "cores": cores, "threads_per_core": threads}
        h["caches"] = {"l2_kib": 8192}
    _, summary = build(gem5_engine, specs.from_dict(d), tmp_path)
    host = summary["server"]
    assert host["cpus"] == cores * threads and host["clock_ghz"] == pytest.approx(1.2, abs=0.001)
    [l2] = [c for c in host["caches"] if c["object"] == "cache_hierarchy.l2cache"]
    assert (l2["size_bytes"], l2["assoc"]) == (8 << 20, 16)


def test_system_command_prints_json_and_says_so_without_gem5(gem5_engine, tmp_path):
    cmd = [sys.executable, "-m", "g5net.cli", "system", str(REPO / "examples" / "quickstart-gem5.toml"),
           "--json", "--out", str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["config_ini"] == str(tmp_path / "m5out" / "config.ini")
    assert out["processes"] == {"layout": "one"}
    assert out["hosts"]["client"]["nics"][0]["mac"] != out["hosts"]["server"]["nics"][0]["mac"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                       env={"PATH": "/usr/bin:/bin", "G5NET_GEM5": str(tmp_path / "no-gem5")})
    assert r.returncode == 2 and "G5NET_GEM5" in r.stderr
