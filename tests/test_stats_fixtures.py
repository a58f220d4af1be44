"""The stats parser, metric catalogue and `g5net stats` on real gem5 output of
every generation (2016, 2020, v24). Expected values are copied from the files.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from g5net import cli
from g5net.stats import Stat, host_metrics, iter_dumps, metric

# Real stats.txt files of gem5 2016, 2020 and v24 (full system and SE, x86 and Arm).
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "stats-generations"

ARM16 = "2016-arm64-realview-o3-dual.stats.txt"
X86_16 = "2016-x86-pc-o3-timing.stats.txt"
ARM20 = "2020-arm-realview-simple-atomic-dual.stats.txt"
X86_20 = "2020-x86-pc-simple-timing.stats.txt"
V24 = "2024-v24-x86-se-timing-classic-2dumps.stats.txt"


def dumps(name):
    return list(iter_dumps(FIXTURES / name))


@pytest.mark.parametrize("name, stat_counts, begin_lines", [
    (ARM16, [3992], [2]),
    (X86_16, [1620], [2]),
    (ARM20, [1608], [2]),
    (X86_20, [1351], [2]),
    (V24, [1004, 552], [2, 1010]),
])
def test_dump_counts(name, stat_counts, begin_lines):
    ds = dumps(name)
    assert [len(d) for d in ds] == stat_counts
    assert [d.line for d in ds] == begin_lines
    assert [d.index for d in ds] == list(range(len(ds)))


# (file, dump, name, value, pdf %, cdf %): scalars, vector entries and totals,
# distribution fields, histogram buckets, under/overflows, negative and non-finite values.
VALUES = [
    (ARM16, 0, "sim_seconds", 47.384924, None, None),
    (ARM16, 0, "final_tick", 47384923997000, None, None),
    (ARM16, 0, "system.cpu0.committedInsts", 541241308, None, None),
    (ARM16, 0, "system.physmem.bytes_read::cpu0.inst", 3744224, None, None),
    (ARM16, 0, "system.physmem.bytes_read::total", 47171096, None, None),
    (ARM16, 0, "system.cpu0.commit.committed_per_cycle::samples", 733649612, None, None),
    (ARM16, 0, "system.cpu0.commit.committed_per_cycle::mean", 0.845840, None, None),
    (ARM16, 0, "system.cpu0.commit.committed_per_cycle::stdev", 1.553610, None, None),
    (ARM16, 0, "system.cpu0.commit.committed_per_cycle::0", 452365639, 61.66, 61.66),
    (ARM16, 0, "system.cpu0.commit.committed_per_cycle::8", 13062036, 1.78, 100.0),
    (ARM16, 0, "system.cpu0.commit.committed_per_cycle::max_value", 8, None, None),
    (ARM16, 0, "system.cpu0.pwrStateClkGateDist::underflows", 3741, 74.64, 74.64),
    (ARM16, 0, "system.cpu0.pwrStateClkGateDist::1000-5e+10", 1240, 24.74, 99.38),
    (ARM16, 0, "system.cpu0.pwrStateClkGateDist::overflows", 18, 0.36, 100.0),
    (ARM16, 0, "system.cpu0.pwrStateClkGateDist::min_value", 501, None, None),
    (ARM16, 0, "system.cpu0.pwrStateClkGateDist::max_value", 1988782107984, None, None),
    (ARM16, 0, "system.cpu0.pwrStateClkGateDist::total", 5012, None, None),
    (ARM16, 0, "system.cpu0.dcache.StoreCondFailReq_avg_miss_latency::total", math.inf, None, None),
    (ARM16, 0, "system.realview.ethernet.txPackets", 3, None, None),
    (X86_16, 0, "system.cpu.numCycles", 480891878, None, None),
    (X86_16, 0, "system.physmem.bytes_written::total", 9293760, None, None),
    (X86_16, 0, "system.cpu.iq.issued_per_cycle::3", 7166598, 1.51, 67.00),
    (X86_16, 0, "system.cpu.iq.issued_per_cycle::total", 475825817, None, None),
    (X86_16, 0, "system.physmem.rdPerTurnAround::0-2047", 6864, 99.99, 99.99),
    (X86_16, 0, "system.physmem.rdPerTurnAround::47104-49151", 1, 0.01, 100.0),
    (X86_16, 0, "system.physmem.wrPerTurnAround::gmean", 18.881845, None, None),
    (X86_16, 0, "system.cpu.dcache.avg_blocked_cycles::no_targets", 96.5, None, None),
    (ARM20, 0, "system.physmem.bytes_read::cpu1.data", 1111568, None, None),
    (ARM20, 0, "system.cpu0.dcache.overall_misses::total", 769245, None, None),
    # A 32-bit counter that wrapped in gem5; kept as written.
    (ARM20, 0, "system.cpu1.dtb.walker.walksPending::0", -1804201736, 100.0, 100.0),
    (ARM20, 0, "system.membus.snoop_fanout::mean", 0.010413, None, None),
    (ARM20, 0, "system.membus.snoop_fanout::1", 5565, 1.04, 100.0),
    (X86_20, 0, "system.cpu.committedInsts", 128436892, None, None),
    (X86_20, 0, "system.physmem.bytes_read::pc.south_bridge.ide", 28352, None, None),
    (X86_20, 0, "system.physmem.bytesPerActivate::128-255", 13820, 24.30, 59.58),
    (X86_20, 0, "system.physmem.bytesPerActivate::mean", 316.898416, None, None),
    (V24, 0, "simTicks", 1051887500, None, None),
    (V24, 0, "board.cache_hierarchy.l1d-cache-0.overallMisses::total", 220, None, None),
    (V24, 0, "board.cache_hierarchy.l1d-cache-0.overallMissRate::total", 0.000545, None, None),
    (V24, 0, "board.processor.cores.core.commitStats0.committedInstType::IntAlu", 1615565, 79.97, 79.97),
    (V24, 0, "board.memory.mem_ctrl.dram.bytesPerActivate::1024-1151", 15, 8.72, 100.0),
    (V24, 0, "board.memory.mem_ctrl.dram.bytesPerActivate::stdev", 305.867840, None, None),
    (V24, 1, "simTicks", 20000000000, None, None),
    (V24, 1, "board.memory.mem_ctrl.dram.bytesPerActivate::64-79", 1, 50.0, 50.0),
    # A zero vector entry is printed without percentages.
    (V24, 1, "board.processor.cores.core.commitStats0.committedInstType::IntAlu", 0, None, None),
]


@pytest.mark.parametrize("name, index, stat, value, pdf, cdf", VALUES)
def test_values(name, index, stat, value, pdf, cdf):
    s = dumps(name)[index][stat]
    assert (s.value, s.pdf_percent, s.cdf_percent) == (value, pdf, cdf)


def test_integers_stay_exact_and_nan_is_read():
    (d,) = dumps(ARM20)
    assert type(d.value("sim_ticks")) is int
    assert math.isnan(d.value("system.realview.ethernet.coalescedSwi"))


def test_descriptions_keep_v24_units():
    d = dumps(V24)[0]
    assert d["simSeconds"] == Stat(0.001052, None, None, "Number of seconds simulated (Second)")
    assert d["board.cache_hierarchy.l1d-cache-0.overallMisses::total"].description == \
        "number of overall misses (Count)"


# Sums checked by hand against the per-CPU lines of each file.
METRICS = {
    ARM16: {"system": dict(
        sim_seconds=47.384924, sim_ticks=47384923997000, insts=541241308 + 519872171, cycles=767196996 + 672713020,
        l1i_misses=6613282 + 5789178, l1d_misses=14529911 + 12491027,
        l2_misses=1784158 + 1597742,  # private cpuN.l2cache; system.l2c is a third level here
        mem_bytes_read=47171096, mem_bytes_written=65493928, mem_bytes=47171096 + 65493928,
        nic_tx_pkts=3, nic_tx_bytes=966, nic_interrupts=13)},  # nothing received: no rx lines
    X86_16: {"system": dict(
        sim_seconds=5.230834, sim_ticks=5230834315000, insts=407959263, cycles=480891878, l1i_misses=1443748,
        l1d_misses=2620606, l2_misses=182580, mem_bytes_read=11615232,
        mem_bytes_written=9293760, mem_bytes=11615232 + 9293760)},
    ARM20: {"system": dict(
        sim_seconds=2.802884, sim_ticks=2802884446000, insts=95421368 + 51395178, cycles=5605770867 + 5605299760,
        l1i_misses=1109914 + 523790, l1d_misses=769245 + 259771, l2_misses=371436 + 141027,
        # SimpleMemory: physmem's vector total plus the flash's (realview.nvmem).
        mem_bytes_read=11983020 + 68, mem_bytes_written=8889436,
        mem_bytes=11983020 + 68 + 8889436, nic_interrupts=0)},
    X86_20: {"system": dict(
        sim_seconds=5.194946, sim_ticks=5194946000500, insts=128436892, cycles=10389892001, l1i_misses=791008,
        l1d_misses=1636216, l2_misses=154846, mem_bytes_read=9881152,
        mem_bytes_written=8151616, mem_bytes=9881152 + 8151616)},
}


@pytest.mark.parametrize("name", list(METRICS))
def test_host_metrics(name):
    (d,) = dumps(name)
    assert host_metrics(d) == METRICS[name]


def test_host_metrics_v24_both_dumps():
    first, second = dumps(V24)
    assert host_metrics(first) == {"board": dict(
        sim_seconds=0.001052, sim_ticks=1051887500, insts=1210218, uops=2020217, load_uops=202027, store_uops=202001,
        cycles=2103775,
        l1i_misses=526, l1d_misses=220,
        l2_misses=778, mem_bytes_read=52544, mem_bytes_written=0, mem_bytes=52544)}
    # After the reset nothing ran: gem5 left out the zero instruction and miss counts.
    assert host_metrics(second) == {"board": dict(
        sim_seconds=0.02, sim_ticks=20000000000, uops=0, load_uops=0, store_uops=0, cycles=0,
        mem_bytes_read=0, mem_bytes_written=0, mem_bytes=0)}
    assert metric(second, "cycles", "board") == 0
    assert metric(second, "insts", "board") is None
    assert metric(second, "insts", "server") is None


def run_cli(capsys, *argv):
    status = cli.main(["stats", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def values(stats):
    """name -> value of one dump of --json (which also has each unit and description)."""
    return {name: s["value"] for name, s in stats.items()}


def test_cli_last_dump_json_is_only_the_last(capsys):
    status, out, _ = run_cli(capsys, FIXTURES / V24, "--dump", "last", "--json")
    assert status == 0
    stats = json.loads(out)
    assert len(stats) == 552
    assert stats["simSeconds"] == {"value": 0.02, "unit": "Second",
                                   "description": "Number of seconds simulated"}
    assert stats["board.memory.mem_ctrl.dram.bytesPerActivate::64-79"]["value"] == 1
    assert stats["board.cache_hierarchy.l2buses.snoopFanout::mean"]["value"] == "nan"
    assert "board.cache_hierarchy.l1d-cache-0.overallMisses::total" not in stats  # dump 0 only


def test_cli_default_is_last_dump(capsys):
    default = run_cli(capsys, FIXTURES / V24, "--json")
    assert default == run_cli(capsys, FIXTURES / V24, "--dump", "last", "--json")


def test_cli_all_dumps_json(capsys):
    status, out, _ = run_cli(capsys, FIXTURES / V24, "--dump", "all", "--json",
                             "--match", r"^simSeconds$|HardPFReq\.mshrMissRate::total")
    assert status == 0
    assert [values(d) for d in json.loads(out)] == [
        {"simSeconds": 0.001052,
         "board.cache_hierarchy.l1d-cache-0.HardPFReq.mshrMissRate::total": "inf",
         "board.cache_hierarchy.l2-cache-0.HardPFReq.mshrMissRate::total": "inf"},
        {"simSeconds": 0.02},
    ]


def test_cli_json_names_as_written(capsys):
    status, out, _ = run_cli(capsys, FIXTURES / ARM16, "--json",
                             "--match", "physmem.bytes_read::|ClkGateDist::1000")
    assert status == 0
    stats = values(json.loads(out))
    assert stats["system.physmem.bytes_read::realview.ide"] == 437568
    assert stats["system.physmem.bytes_read::total"] == 47171096
    assert stats["system.cpu0.pwrStateClkGateDist::1000-5e+10"] == 1240
    assert stats["system.cpu1.pwrStateClkGateDist::1000-5e+10"] == 10193


def test_cli_dump_number_text(capsys):
    status, out, _ = run_cli(capsys, FIXTURES / V24, "--dump", "0", "--match", "^sim(Seconds|Ticks)$")
    assert (status, out) == (0, "simSeconds    0.001052  Second\nsimTicks    1051887500  Tick\n")


def test_cli_csv(capsys):
    status, out, _ = run_cli(capsys, FIXTURES / V24, "--dump", "all", "--csv", "--match", "^simTicks$")
    assert (status, out) == (0, "dump,workload,name,value,unit,description\n"
                                "0,,simTicks,1051887500,Tick,Number of ticks simulated\n"
                                "1,,simTicks,20000000000,Tick,Number of ticks simulated\n")


def test_cli_bad_dump_number(capsys):
    status, out, err = run_cli(capsys, FIXTURES / V24, "--dump", "2")
    assert status == 2 and out == ""
    assert f"{FIXTURES / V24}: no dump 2: the file holds 2 dump(s), numbered 0 to 1" in err


def test_cli_output_cut_short_by_the_reader():
    proc = subprocess.Popen([sys.executable, "-m", "g5net.cli", "stats", str(FIXTURES / ARM16)],
                            cwd=Path(__file__).resolve().parents[1],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("sim_seconds ")
    proc.stdout.close()  # like `| head -1`, long before the 3992 lines are written
    assert (proc.wait(timeout=60), proc.stderr.read()) == (0, "")
