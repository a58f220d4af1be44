"""A real gem5 run, kept as fixtures (tests/fixtures/gem5-quickstart/, made by
scripts/gem5_fixtures.py): examples/quickstart-gem5.toml, both hosts booted on
the atomic CPU into a checkpoint, restored on the timing CPU with caches, the
stream and latency workloads measured. provenance.json names the gem5 version.
The consoles hold both phases; stats.txt holds one dump per workload (the
client brackets each region) and gem5's own at exit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from g5net.artifacts import kernels
from g5net.engines.gem5.boards import board_names
from g5net.engines.gem5.config_files import SUPERSEDED_CONFIGS, configs_digest
from g5net.guest.protocol import STUB_MARK
from g5net.metrics import derive as run_metrics
from g5net.model import specs
from g5net.runs.rundir import RunDir
from g5net.stats import iter_dumps, system
from g5net.engines.gem5.engine import job_script
from g5net.workloads import results

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = RunDir(FIXTURES / "gem5-quickstart")
SPEC = specs.from_dict(json.loads(FIXTURE.spec_json.read_text()))


SMP = RunDir(FIXTURES / "gem5-smp")
SWITCHED = RunDir(FIXTURES / "gem5-switched")


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("gem5-*")), ids=lambda p: p.name)
def test_fixtures_were_made_by_these_configs(fixture: Path):
    provenance = json.loads((fixture / "provenance.json").read_text())
    assert provenance["gem5_version"].startswith("24.")
    # A digest a named mend superseded stays while its fixtures are made again
    # (SUPERSEDED_CONFIGS, which tests/test_studies.py keeps to digests in use).
    assert provenance["configs_digest"] in (configs_digest(), *SUPERSEDED_CONFIGS), \
        "configs/ changed since the fixtures were made: run scripts/gem5_fixtures.py"


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("gem5-*")), ids=lambda p: p.name)
def test_fixtures_ran_the_jobs_the_product_writes_now(fixture: Path):
    """A fixture's consoles and stats are what its job scripts did: where the
    product now writes other jobs, the fixture no longer shows what a run does."""
    rd = RunDir(fixture)
    spec = specs.from_dict(json.loads(rd.spec_json.read_text()))
    for host in spec.hosts:
        assert rd.job_script(host.name).read_text() == job_script(spec, host), \
            f"{fixture.name}: job-{host.name}.sh is not what g5net writes now: rerun scripts/gem5_fixtures.py"


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("gem5-*")), ids=lambda p: p.name)
def test_fixtures_booted_kernels_of_todays_patches(fixture: Path):
    """A patch in kernels/patches changes what a guest does as much as a
    config does: a fixture whose kernel had other patches no longer shows
    what a run does. (The Debian source and compiler a kernel is built from,
    like the image's packages, are the machine's: not compared.)"""
    provenance = json.loads((fixture / "provenance.json").read_text())
    now = kernels.current_patches_digest()
    assert provenance.get("kernel_patches") == now, \
        f"{fixture.name}: kernels/patches changed since it was made: rerun scripts/gem5_fixtures.py"
    # Hosts on O3 boot the O3 builds, with kernels/patches-o3 too.
    spec = specs.from_dict(json.loads(RunDir(fixture).spec_json.read_text()))
    on_o3 = any(kernels.boots_o3(h) for h in spec.hosts)
    assert provenance.get("kernel_patches_o3") == (kernels.current_o3_patches_digest() if on_o3 else None), \
        f"{fixture.name}: its O3 hosts' kernel patches are not today's: rerun scripts/gem5_fixtures.py"


def test_four_cpu_hosts_booted_every_cpu_and_measured_on_four():
    """examples/smp-gem5.toml: every CPU of both hosts ran in the boot (none
    halted for good), and the guests measured with 4 CPUs online."""
    provenance = json.loads((SMP.path / "provenance.json").read_text())
    assert sorted(provenance["boot"]["insts"]) == ["client", "server"]
    for board, insts in provenance["boot"]["insts"].items():
        assert len(insts) == 4 and min(insts) > 1_000_000, (board, insts)
    got = json.loads(SMP.results_json.read_text())
    spec = specs.from_dict(json.loads(SMP.spec_json.read_text()))
    for h in spec.hosts:
        assert got[h.name]["workloads"]["stream"]["roi"]["cpus"] == 4
    assert got["client"]["workloads"]["stream"]["throughput_mbps"] > 0
    # gem5's view of the stream: four CPUs per host, each with its own counters.
    stream = next(iter_dumps(SMP.stats_txt))
    for h in spec.hosts:
        insts = [stream.value(f"{h.name}.processor.cores{i}.core.commitStats0.numInsts")
                 for i in range(4)]
        assert all(i > 0 for i in insts), (h.name, insts)


def test_run_record_says_done_on_gem5():
    record = json.loads(FIXTURE.run_json.read_text())
    assert record["status"] == "done" and record["engine"]["name"] == "gem5"
    assert record["spec"] == json.loads(FIXTURE.spec_json.read_text())


def test_consoles_hold_the_boot_and_the_measurement_and_parse_to_the_results():
    expected = json.loads(FIXTURE.results_json.read_text())
    for host in SPEC.hosts:
        console = FIXTURE.console(host.name).read_text()
        assert console.index(f"G5NET-BOOTED host={host.name}") < console.index(results.BEGIN)
        assert STUB_MARK not in console  # the stub runs, it is not printed
        assert results.host_results(console, SPEC, host) == expected[host.name]
    assert expected["client"]["workloads"]["stream"]["throughput_mbps"] > 0
    assert expected["client"]["workloads"]["latency"]["latency_us"] > 0


def test_one_dump_per_workload_then_gem5s_at_exit():
    dumps = list(iter_dumps(FIXTURE.stats_txt))
    assert len(dumps) == len(SPEC.workloads) + 1


def test_stream_roi_dump_has_both_nics_counting():
    stream = next(iter_dumps(FIXTURE.stats_txt))
    payload = next(w for w in SPEC.workloads if w.name == "stream").bytes
    for host, direction in (("client", "tx"), ("server", "rx")):
        assert stream.value(f"{host}.ethernet.EtherDevice.{direction}Packets") > payload / 1500
        assert stream.value(f"{host}.ethernet.EtherDevice.{direction}Bytes") > payload


def test_metrics_per_packet_from_the_stream_dump():
    client = json.loads(FIXTURE.metrics_json.read_text())["hosts"]["client"]["stream"]
    assert client["nic_tx_pkts"] > 0 and client["l1d_misses_per_pkt"] > 0


def test_config_ini_puts_the_nic_on_pcie():
    ini = system.read(FIXTURE.m5out / "config.ini")
    summary = system.summarise(ini, board_names(SPEC))
    assert [p["object"] for p in summary["client"]["nics"][0]["dma_path"]] == \
        ["pcie_links.dma_monitor", "pcie_links.dma_window", "pcie_links.upstream",
         "pcie_links.root_port", "iobus"]
    # The default link, Gen2 x8 at 128 B payloads: 4 GB/s x 128 / 152 of data,
    # 32 reads of 512 B in flight.
    link = summary["client"]["nics"][0]["link"]
    assert link["gbytes_per_s"] == pytest.approx(4 * 128 / 152, rel=1e-3)
    assert link["dma_window_bytes"] == 32 * 512
    assert summary["client"]["cpu_types"] == ["BaseTimingSimpleCPU"]


def test_an_integrated_nic_restored_the_quickstarts_boot_and_moved_its_dma_on_chip():
    """examples/dca-gem5.toml (the NIC on chip, DMA into a shared L3) restored
    the checkpoint the quickstart booted into: where the NIC attaches and the
    caches below the L1s are not part of a boot. Its stream crossed both NICs."""
    dca = RunDir(FIXTURES / "gem5-dca")
    assert dca.read_run()["timings"]["boot_s"] == {}, "the run booted instead of restoring"
    boots = [json.loads((rd.path / "provenance.json").read_text())["boot"] for rd in (dca, FIXTURE)]
    # One boot, whatever the session that made each fixture: gem5 is deterministic.
    assert [(b["sim_seconds"], b["insts"]) for b in boots] == [(boots[1]["sim_seconds"], boots[1]["insts"])] * 2
    spec = specs.from_dict(json.loads(dca.spec_json.read_text()))
    summary = system.summarise(system.read(dca.m5out / "config.ini"), board_names(spec))
    for h in spec.hosts:
        assert [p["object"] for p in summary[h.name]["nics"][0]["dma_path"]] == \
            ["dma_buffers", "cache_hierarchy.l3bus"], h.name
    stream = next(iter_dumps(dca.stats_txt))
    for host, direction in (("client", "tx"), ("server", "rx")):
        assert stream.value(f"{host}.ethernet.EtherDevice.{direction}Packets") > 4_000_000 / 1500


def test_a_host_whose_board_is_not_its_name_gets_its_own_gem5_metrics(tmp_path: Path):
    """The fixture's client renamed `client-1`: gem5 cannot name an object that,
    so its statistics live under the board `host_client_1`; run.json's `boards`
    map is how the metrics find them."""
    d = json.loads(FIXTURE.spec_json.read_text())
    d["hosts"] = {("client-1" if name == "client" else name): h for name, h in d["hosts"].items()}
    spec = specs.from_dict(d)
    boards = board_names(spec)
    assert boards == {"server": "server", "client-1": "host_client_1"}
    rd = RunDir(tmp_path)
    rd.m5out.mkdir()
    stats = FIXTURE.stats_txt.read_text()
    rd.stats_txt.write_text(re.sub(r"^client\.", "host_client_1.", stats, flags=re.M))
    got = json.loads(FIXTURE.results_json.read_text())
    got["client-1"] = got.pop("client")
    computed = run_metrics.compute(spec, got, rd, boards)["hosts"]
    made = json.loads(FIXTURE.metrics_json.read_text())["hosts"]
    assert computed["client-1"]["stream"]["insts"] == made["client"]["stream"]["insts"] > 0
    assert computed == {"server": made["server"], "client-1": made["client"]}
    # Without the map the host's gem5 counters are lost, as they were before it.
    assert "insts" not in run_metrics.compute(spec, got, rd)["hosts"]["client-1"]["stream"]


def _hand_cpu_util(stats_txt: Path, host: str) -> tuple[float, list[float], list[float]]:
    """From the text of the first dump alone: the host's and each CPU's busy share,
    from the simple CPU's busy and idle cycles, and each CPU's count of its cycles.
    Every CPU's share is of the same ticks, the dump's: the host's is their mean."""
    text = stats_txt.read_text().split("---------- End Simulation Statistics")[0]
    cycles: dict[int, dict[str, float]] = {}
    pattern = rf"^{host}\.processor\.cores(\d*)\.core\.exec_context\.thread_0\.num(Busy|Idle)Cycles\s+([\d.]+)"
    for cpu, kind, value in re.findall(pattern, text, re.M):
        cycles.setdefault(int(cpu or 0), {})[kind] = float(value)
    per_cpu = [c["Busy"] / (c["Busy"] + c["Idle"]) for _, c in sorted(cycles.items())]
    counted = [c["Busy"] + c["Idle"] for _, c in sorted(cycles.items())]
    return sum(per_cpu) / len(per_cpu), per_cpu, counted


def test_cpu_utilisation_is_gem5s_busy_time_not_the_guests_ticks():
    """examples/smp-gem5.toml's stream, 4 CPUs a host: CPU utilisation from each
    CPU's busy and idle cycles in stats.txt, computed here by hand; rates over
    the dump's simulated seconds. The guest's 10 ms ticks see a region of a few
    simulated ms coarsely: its figure stays beside gem5's as guest_cpu_util."""
    metrics = json.loads(SMP.metrics_json.read_text())["hosts"]
    sim_seconds = next(iter_dumps(SMP.stats_txt)).value("simSeconds")
    for host in ("server", "client"):
        m = metrics[host]["stream"]
        util, per_cpu, counted = _hand_cpu_util(SMP.stats_txt, host)
        assert m["cpu_util"] == pytest.approx(util, rel=1e-9)
        # gem5 counts a halted CPU's cycles only when it wakes: CPUs asleep at
        # the dump counted fewer, so weighing the shares by them would be wrong.
        assert len(set(counted)) > 1
        assert m["cpu_util_per_cpu"] == pytest.approx(per_cpu, rel=1e-9) and len(per_cpu) == 4
        # 2 cores x 2 threads: a core is the mean of its two CPUs.
        assert m["cpu_util_per_core"] == pytest.approx([sum(per_cpu[:2]) / 2, sum(per_cpu[2:]) / 2])
        assert m["elapsed_s"] == sim_seconds != m["guest_elapsed_s"]
        assert m["ctxt_per_s"] == pytest.approx(m["ctxt"] / sim_seconds)
        print(f"{host}: gem5 {m['cpu_util']:.3f} (per CPU {[round(x, 3) for x in per_cpu]}), "
              f"guest {m['guest_cpu_util']:.3f} over {m['guest_elapsed_s']} s vs {sim_seconds} s")

    # The dca fixture's receiver, one CPU: the guest counted 8 ticks of 10 ms for
    # a region of 74 simulated ms, and its busy share in whole ticks (2/3).
    m = json.loads(DCA.metrics_json.read_text())["hosts"]["server"]["stream"]
    util, [only], _ = _hand_cpu_util(DCA.stats_txt, "server")
    assert m["cpu_util"] == pytest.approx(util, rel=1e-9) and util == pytest.approx(only)
    print(f"dca server: gem5 {m['cpu_util']:.3f} over {m['elapsed_s']} s, guest {m['guest_cpu_util']:.3f} "
          f"over {m['guest_elapsed_s']} s")
    assert m["guest_elapsed_s"] != m["elapsed_s"] and abs(m["cpu_util"] - m["guest_cpu_util"]) > 0.02


DCA = RunDir(FIXTURES / "gem5-dca")
SPLITS = ("l1i_misses", "l1d_misses", "l2_misses", "l2_inst_misses", "l2_data_misses", "l3_misses",
          "l3_inst_misses", "l3_data_misses", "mem_bytes_read", "mem_bytes_written", "uops",
          "load_uops", "store_uops", "other_uops", "nic_irqs", "ipi_irqs", "other_irqs")


def test_dca_run_holds_every_split_and_they_add_up():
    """examples/dca-gem5.toml: the integrated NIC writes into a shared L3."""
    metrics = json.loads(DCA.metrics_json.read_text())["hosts"]
    got = json.loads(DCA.results_json.read_text())
    stream = next(iter_dumps(DCA.stats_txt))
    for host in ("server", "client"):
        m = metrics[host]["stream"]
        for k in SPLITS:
            assert k in m and f"{k}_per_pkt" in m, (host, k)
        for k in SPLITS[:-3]:  # gem5's counts, also per received and per sent packet
            assert f"{k}_per_rx_pkt" in m and f"{k}_per_tx_pkt" in m, (host, k)
        assert m["l2_inst_misses"] + m["l2_data_misses"] == m["l2_misses"] > 0
        assert m["l3_inst_misses"] + m["l3_data_misses"] == m["l3_misses"] > 0
        assert m["load_uops"] + m["store_uops"] + m["other_uops"] == m["uops"] > m["insts"]
        assert m["mem_bytes_read"] + m["mem_bytes_written"] == m["mem_bytes"]
        interrupts = got[host]["workloads"]["stream"]["roi"]["interrupts"]
        assert m["nic_irqs"] + m["ipi_irqs"] + m["other_irqs"] == sum(interrupts.values())
        assert m["l2_misses_per_rx_pkt"] == pytest.approx(m["l2_misses"] / m["nic_rx_pkts"])
    # Direct cache access: the receiver's NIC wrote every line of what it received
    # into the L3, and none of it went to DRAM.
    server = metrics["server"]["stream"]
    lines = stream.value("server.ethernet.EtherDevice.rxBytes") / 64
    assert server["llc_nic_writes"] == pytest.approx(lines, rel=0.1)
    assert server.get("nic_dram_bytes_written", 0) == 0


