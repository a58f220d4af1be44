import json
import math
import shutil
from pathlib import Path

import pytest
from test_metrics_fixtures import results, spec

from g5net.metrics import derive as run_metrics
from g5net.metrics import gem5 as gem5_metrics
from g5net.metrics import profile, windows
from g5net.model import specs
from g5net.runs.rundir import RunDir
from g5net.stats import host_metrics, iter_dumps

# Real stats.txt files of gem5 2016, 2020 and v24 (full system and SE, x86 and Arm).
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "stats-generations"
TWO_DUMPS = FIXTURES / "2024-v24-x86-se-timing-classic-2dumps.stats.txt"
# Three dumps of a windowed stream between two hosts of 16 timing CPUs (the
# niagara2 preset at 2 cores x 8 threads): the warm-up's end, then two 5 ms
# windows; only the CPUs' cycle and power-state lines kept.
SIXTEEN_CPUS = FIXTURES / "2024-v24-x86-fs-16cpu-windows-trimmed.stats.txt"
# Four dumps of a windowed stream into a receiver of 4 timing CPUs (the
# niagara2 preset at 2 cores x 2 threads), whose CPU 1 had been halted since
# before the stats reset: gem5 printed 0 cycles for it until it woke in the
# second window. Only the server CPUs' cycle and power-state lines kept.
ASLEEP = FIXTURES / "2024-v24-x86-fs-4cpu-windows-asleep-trimmed.stats.txt"


def test_per_packet_interrupts_and_context_switches_for_both_hosts(tmp_path):
    s = spec()
    res = results(s)
    out = run_metrics.compute(s, res, RunDir(tmp_path))["hosts"]
    assert set(out) == {"server", "client"}
    for host, workloads in out.items():
        m = workloads["stream"]
        roi = res[host]["workloads"]["stream"]["roi"]
        packets = roi["rx_packets"] + roi["tx_packets"]
        assert packets > 0 and m["packets"] == packets
        assert m["intr_per_pkt"] == pytest.approx(roi["intr"] / packets) and m["intr_per_pkt"] > 0
        assert m["ctxt_per_pkt"] == pytest.approx(roi["ctxt"] / packets) and m["ctxt_per_pkt"] > 0
        assert m["ctxt_per_s"] == pytest.approx(roi["ctxt"] / roi["elapsed_s"])
        assert 0 <= m["cpu_util"] <= 1
        assert m["throughput_mbps"] == pytest.approx(900)
        # The breakdown adds up to 100 % and is per packet too.
        shares = [v for k, v in m.items() if k.startswith("time_") and k.endswith("_pct")]
        assert len(shares) == 7 and math.fsum(shares) == pytest.approx(100)
        assert m["time_driver_us_per_pkt"] > 0
        # No stats.txt (QEMU): gem5 metrics are absent, not zero.
        assert not {"insts", "insts_per_pkt", "l1d_misses_per_pkt"} & set(m)


def test_without_profile_there_is_no_breakdown(tmp_path):
    s = spec(profile=False)
    m = run_metrics.compute(s, results(s), RunDir(tmp_path))["hosts"]["client"]["stream"]
    assert "breakdown" not in m and not any(k.startswith("time_") for k in m)


def test_gem5_roi_dumps_follow_workload_order(tmp_path):
    # The v24 fixture's host is `board`; its two dumps are two workloads' ROIs.
    s = spec(hosts=("other", "board"), profile=False)
    rd = RunDir(tmp_path)
    rd.m5out.mkdir()
    shutil.copy(TWO_DUMPS, rd.stats_txt)
    res = results(s)
    # Two workloads in the results: the second is a copy of the first's guest data.
    for host in res.values():
        host["workloads"]["second"] = dict(host["workloads"]["stream"])
    names = ["stream", "second"]
    gem5 = gem5_metrics.roi_stats(rd.stats_txt, [(n, 1) for n in names])
    dumps = [host_metrics(d)["board"] for d in iter_dumps(TWO_DUMPS)]
    # Each dump's catalogue metrics, the L2's instruction misses (526 of its 778:
    # the rest are the data port's 213 and the L1D prefetcher's 39), and its one
    # CPU's busy and all ticks: busy 2103774.998 of its 2103775 cycles (gem5 keeps
    # the busy share as a time-weighted average) of the dump's ticks. The second
    # dump ran no cycle: gem5 counted none for the CPU, asleep throughout, so it
    # is busy for none of the dump's ticks. Each region's first and last tick:
    # the second dump follows the first.
    assert gem5 == {"stream": [{"board": {**dumps[0], "l2_inst_misses": 526,
                                          "cpu_ticks": [(2103774.998 / 2103775 * 1051887500, 1051887500.0)],
                                          "region_ticks": (0, 1051887500)}}],
                    "second": [{"board": {**dumps[1], "cpu_ticks": [(0.0, 20000000000.0)],
                                          "region_ticks": (1051887500, 21051887500)}}]}

    out = {w: run_metrics.workload_metrics(res["board"]["workloads"][w], gem5[w][0]["board"]) for w in names}
    first = out["stream"]
    # SE mode has no NIC: the guest's packet count is the denominator.
    assert first["gem5_packets"] == first["packets"]
    for k in ("insts", "l1i_misses", "l1d_misses", "l2_misses", "mem_bytes"):
        assert first[f"{k}_per_pkt"] == pytest.approx(dumps[0][k] / first["packets"])
    # The second dump counted no instructions and no misses: absent, not zero.
    assert "insts_per_pkt" not in out["second"] and "l1d_misses" not in out["second"]
    # A CPU asleep through a region is idle in it, not missing from it.
    assert out["second"]["cpu_util"] == 0 and out["second"]["cpu_busy_s"] == 0
    assert out["second"]["mem_bytes_per_pkt"] == 0
    # Time is gem5's: the CPU ran the whole region, rates are per simulated second,
    # and the guest's own clocked figures stay under guest_.
    assert first["cpu_util"] == pytest.approx(1.0) and first["cpu_util_per_cpu"] == [first["cpu_util"]]
    assert first["elapsed_s"] == dumps[0]["sim_seconds"]
    assert first["ctxt_per_s"] == pytest.approx(first["ctxt"] / dumps[0]["sim_seconds"])
    assert first["guest_cpu_util"] == res["board"]["workloads"]["stream"]["roi"]["cpu_util"]
    assert first["cpu_us_per_pkt"] == pytest.approx(dumps[0]["sim_seconds"] * 1e6 / first["packets"])
    # Splits add up to their totals.
    assert first["l2_inst_misses"] + first["l2_data_misses"] == first["l2_misses"] == 778
    assert first["load_uops"] + first["store_uops"] + first["other_uops"] == first["uops"]
    assert first["mem_bytes_read"] + first["mem_bytes_written"] == first["mem_bytes"]


def test_a_windows_cpu_time_is_gem5s_on_time_in_it_even_for_a_cpu_that_slept_through_it():
    dumps = list(iter_dumps(SIXTEEN_CPUS))
    windows = gem5_metrics.roi_stats(SIXTEEN_CPUS, [("stream", 3)])["stream"]
    assert len(windows) == 2

    def on_ticks(k: int, host: str) -> list[float]:
        return [dumps[k].value(f"{host}.processor.cores{i}.core.power_state"
                               ".pwrStateResidencyTicks::ON") for i in range(16)]

    for k, window in enumerate(windows):
        ticks = dumps[k + 1].value("simTicks") - dumps[k].value("simTicks")
        for host in ("server", "client"):
            # gem5 brings a CPU's power-state residency up to date at every dump:
            # the window's ON time is exact, and the busy time is that.
            on = [(b - a) / ticks for a, b in zip(on_ticks(k, host), on_ticks(k + 1, host))]
            cpu = gem5_metrics.cpu(window[host], threads_per_core=8)
            assert cpu["cpu_util_per_cpu"] == pytest.approx(on, abs=1e-9)
            assert cpu["cpu_util"] == pytest.approx(sum(on) / 16, abs=1e-9)
            assert cpu["cpu_busy_s"] == pytest.approx(sum(on) * ticks / 1e12)
    # Client CPU 0 slept through the second window: gem5 counted none of its
    # cycles there (a halted CPU's are counted when it wakes), so the cycles'
    # differences gave it no time at all, and took busy time off others.
    cycles = [d.value("client.processor.cores0.core.numCycles") for d in dumps]
    assert cycles[1] == cycles[2] > cycles[0]
    assert gem5_metrics.cpu(windows[1]["client"], 8)["cpu_util_per_cpu"][0] == pytest.approx(0, abs=1e-9)


def test_a_cpu_halted_since_the_reset_is_idle_in_the_windows_not_missing_from_them():
    """Its cycle counts are 0 until it wakes: the host's CPU figures were left
    out of those dumps, and the window in which it woke was given the other
    CPUs' busy time since the reset (205% in a Niagara 2 quick point)."""
    dumps = list(iter_dumps(ASLEEP))
    assert [d.value("server.processor.cores1.core.numCycles") for d in dumps[:3]] == [0, 0, 43153748]

    def on(k: int, cpu: int) -> float:
        # gem5 prints no residency for a state the CPU has not been in.
        stat = dumps[k].get(f"server.processor.cores{cpu}.core.power_state.pwrStateResidencyTicks::ON")
        return stat.value if stat is not None else 0.0

    windows = gem5_metrics.roi_stats(ASLEEP, [("stream", 4)])["stream"]
    assert len(windows) == 3
    for k, window in enumerate(windows):
        ticks = dumps[k + 1].value("simTicks") - dumps[k].value("simTicks")
        cpu = gem5_metrics.cpu(window["server"], threads_per_core=2)
        assert cpu["cpu_util_per_cpu"] == pytest.approx(
            [(on(k + 1, i) - on(k, i)) / ticks for i in range(4)], abs=1e-9)
    assert gem5_metrics.cpu(windows[0]["server"], 2)["cpu_util_per_cpu"][1] == 0


def test_windows_in_which_both_hosts_stalled_are_counted_and_live_ones_are_not():
    """A 10gbe medium O3 point's sampled windows: in five of six every CPU of
    both hosts stayed halted and no frame crossed the link (two of them here,
    trimmed). The stream measured 0 Mbit/s there; its metrics say the hosts
    stalled rather than leave a mean over zeros unexplained."""
    rd = RunDir(Path(__file__).resolve().parent / "fixtures" / "stalled-o3-windows")
    for k in range(2):
        (dump,) = iter_dumps(rd.window(k).stats_txt)
        assert all(dump.value(f"{h}.processor.cores{c}.core.numCycles") == 0
                   for h in ("server", "client") for c in range(2))
    spec = specs.from_dict(json.loads(rd.spec_json.read_text()))
    got = run_metrics.compute(spec, json.loads(rd.results_json.read_text()), rd, rd.read_run().get("boards"))
    for host in ("server", "client"):
        stream = got["hosts"][host]["stream"]
        assert stream["stalled_windows"] == 2 and stream["throughput_mbps"] == 0
        # Its CPUs slept through both windows: idle there, not left unknown
        # (gem5 counted none of their cycles: stats/cpu_time.py).
        assert stream["cpu_util"] == 0 and stream["cpu_util_per_cpu"] == [0, 0]
    # What the run prints once its metrics are written.
    assert windows.stalls(got) == [
        f"warning: {h}.stream stalled in 2 of its 2 windows: every CPU of the host halted and its NICs "
        f"moved no byte (metrics.json stalled_windows)" for h in ("server", "client")]
    # A stream that ran in every window has none (the steady-state fixture's metrics, derived now).
    live = RunDir(Path(__file__).resolve().parent / "fixtures" / "gem5-steady-state")
    spec = specs.from_dict(json.loads(live.spec_json.read_text()))
    got = run_metrics.compute(spec, json.loads(live.results_json.read_text()), live, live.read_run().get("boards"))
    assert all("stalled_windows" not in got["hosts"][h]["stream"] and got["hosts"][h]["stream"]["throughput_mbps"] > 1000
               for h in ("server", "client"))
    assert all(windows.NIC_STALLED not in got["hosts"][h]["stream"] for h in ("server", "client"))


def test_windows_in_which_a_receivers_nics_dropped_every_frame_are_counted():
    """multi-nic medium, two NICs a host in PCIe 1.0 x1 slots: the server's
    NICs took frames from the wire (the IGbE counts a frame on arrival) and
    moved none to memory, every one dropped in their FIFOs; its guest received
    nothing. The wire figure alone reads 2.6 Gbit/s received."""
    rd = RunDir(Path(__file__).resolve().parent / "fixtures" / "stalled-nics-windows")
    spec = specs.from_dict(json.loads(rd.spec_json.read_text()))
    got = run_metrics.compute(spec, json.loads(rd.results_json.read_text()), rd, rd.read_run().get("boards"))
    server, client = got["hosts"]["server"]["stream"], got["hosts"]["client"]["stream"]
    dump = list(iter_dumps(rd.stats_txt))
    for k in range(2):
        for nic in range(2):
            arrived = [d.value(f"server.ethernet{nic}.EtherDevice.rxPackets") for d in dump]
            moved = [d.value(f"server.pcie_links{nic}.dma_monitor.{rw}LatencyHist::samples")
                     for d in dump for rw in ("read", "write")]
            assert arrived[k + 1] > arrived[k] and not any(moved)
    assert server[windows.NIC_STALLED] == 2 and server["wire_received_mbps"] > 2000
    assert server["rx_packets"] == 0  # what the guest's stack received over the windows
    # The sender's NICs moved what they sent: no stall there.
    assert windows.NIC_STALLED not in client and client["wire_sent_mbps"] > 2000
    assert windows.stalls(got) == [
        "warning: server.stream stalled in 2 of its 2 windows: frames reached its NICs and their DMA "
        "moved nothing: every one was dropped in the NIC, though its wire figures count it received "
        "(gem5's IGbE under overload: configs/README.md, the e1000 under UDP overload, and "
        "host.nic.rx_wthresh) "
        "(metrics.json nic_stalled_windows)"]


def test_what_a_receivers_nics_wrote_to_memory_is_each_windows_dma_writes_in_lines():
    """A TCP stream at MTU 1500 that dropped nothing: each window's DMA writes,
    a cache line each, carry the frames received and the descriptors written
    back, so their rate is above the wire's by less than a line a frame and
    one for its descriptor."""
    rd = RunDir(Path(__file__).resolve().parent / "fixtures" / "gem5-steady-state")
    spec = specs.from_dict(json.loads(rd.spec_json.read_text()))
    got = run_metrics.compute(spec, json.loads(rd.results_json.read_text()), rd, rd.read_run().get("boards"))
    server = got["hosts"]["server"]["stream"]
    dumps = list(iter_dumps(rd.stats_txt))
    by_hand = [(after.value("server.pcie_links.dma_monitor.writeLatencyHist::samples")
                - before.value("server.pcie_links.dma_monitor.writeLatencyHist::samples"))
               * 64 * 8 / (after.value("simSeconds") - before.value("simSeconds")) / 1e6
               for before, after in zip(dumps, dumps[1:])]
    assert [w[windows.DMA_RECEIVED] for w in server["per_window"]] == pytest.approx(by_hand)
    frame = 1514
    assert 1 < server[windows.DMA_RECEIVED] / server["wire_received_mbps"] < (frame // 64 + 2 + 1) * 64 / frame


def test_without_the_boards_cache_line_the_nics_dma_has_no_rate():
    """The trimmed fixture keeps no config.ini: the metric is absent, not 0."""
    rd = RunDir(Path(__file__).resolve().parent / "fixtures" / "stalled-nics-windows")
    spec = specs.from_dict(json.loads(rd.spec_json.read_text()))
    got = run_metrics.compute(spec, json.loads(rd.results_json.read_text()), rd, rd.read_run().get("boards"))
    assert windows.DMA_RECEIVED not in got["hosts"]["server"]["stream"]


def test_gem5_nic_counters_are_the_packet_count():
    dump = next(iter_dumps(FIXTURES / "2016-arm64-realview-o3-dual.stats.txt"))
    gem5 = host_metrics(dump)["system"]
    s = spec(profile=False)
    m = run_metrics.workload_metrics(results(s)["client"]["workloads"]["stream"], gem5)
    assert m["nic_tx_pkts"] == gem5["nic_tx_pkts"] and "nic_rx_pkts" not in m
    assert m["gem5_packets"] == gem5["nic_tx_pkts"]
    assert m["l2_misses_per_pkt"] == pytest.approx(gem5["l2_misses"] / gem5["nic_tx_pkts"])


def test_missing_stats_file_is_no_gem5_metrics(tmp_path):
    assert gem5_metrics.roi_stats(tmp_path / "m5out" / "stats.txt", [("stream", 1)]) == {}


def test_a_profiled_workload_is_compared_with_its_unprofiled_twin():
    from g5net.model import specs
    base = ('[hosts.server]\nrole = "server"\n[hosts.client]\nrole = "client"\n'
            '[workloads.plain]\nkind = "iperf"\nbytes = 1000\n')
    s = specs.loads(base + '[workloads.profiled]\nkind = "iperf"\nbytes = 1000\nprofile = true\n'
                             '[workloads.other]\nkind = "iperf"\nbytes = 2000\nprofile = true\n')
    # Only a workload that differs in nothing but `profile` is a twin.
    assert profile.profiled_twins(s) == [("profiled", "plain")]
    change = profile.perturbation({"throughput_mbps": 900.0, "cpu_us_per_pkt": 12.0},
                                 {"throughput_mbps": 1000.0, "cpu_us_per_pkt": 10.0})
    assert change == pytest.approx({"profile_throughput_change_pct": -10.0,
                                    "profile_cpu_us_per_pkt_change_pct": 20.0})
