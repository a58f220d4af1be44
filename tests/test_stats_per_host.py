"""The metric catalogue on hand-made dumps: host discovery, spellings, priorities."""

import pytest

from g5net.stats import CATALOGUE, METRICS, Dump, Stat, host_metrics, metric
from g5net.stats.catalogue import glob_regex


def dump(values):
    return Dump("test", 0, 1, {k: Stat(v) for k, v in values.items()})


def test_two_v24_boards_as_our_configs_name_them():
    d = dump({
        "simSeconds": 0.5,
        "server.processor.cores0.core.commitStats0.numInsts": 100,
        "server.processor.cores1.core.commitStats0.numInsts": 50,
        "server.processor.cores0.core.numCycles": 1000,
        "server.processor.cores1.core.numCycles": 900,
        "server.memory.mem_ctrl0.bytesReadSys": 64,
        "server.memory.mem_ctrl1.bytesReadSys": 128,
        "server.memory.mem_ctrl0.dram.bytesRead::total": 64,  # same bytes, per DRAM interface
        "server.ethernet.EtherDevice.txPackets": 2903,
        "server.ethernet.EtherDevice.rxPackets": 1450,
        "server.ethernet.EtherDevice.postedInterrupts": 77,
        "client.processor.cores.core.commitStats0.numInsts": 7,
        "client.ethernet.EtherDevice.txPackets": 1450,
        "client.ethernet.EtherDevice.txBytes": 96000,
        "client.ethernet.EtherDevice.rxBytes": 4300000,
        # A switch has NIC-like counters but no CPU or memory: not a host.
        "switch.txPackets": 4353,
    })
    assert host_metrics(d) == {
        "client": dict(sim_seconds=0.5, insts=7, nic_tx_pkts=1450, nic_tx_bytes=96000,
                       nic_rx_bytes=4300000),
        "server": dict(sim_seconds=0.5, insts=150, cycles=1900, mem_bytes_read=192,
                       nic_tx_pkts=2903, nic_rx_pkts=1450, nic_interrupts=77),
    }
    assert metric(d, "nic_tx_pkts", "client") == 1450
    assert metric(d, "mem_bytes", "server") is None  # written bytes unknown, so the sum is too


def test_two_2016_systems_test_and_drive():
    d = dump({
        "sim_seconds": 0.1,
        "testsys.cpu.committedInsts": 10,
        "testsys.cpu.commit.committedInsts": 10,  # O3 commit stage: the same count again
        "testsys.physmem.bytes_read::cpu.inst": 4,
        "testsys.physmem.bytes_read::tsunami.ethernet": 60,
        "testsys.physmem.bytes_read::total": 64,
        "testsys.physmem.bytes_written::total": 36,
        "testsys.tsunami.ethernet.txPackets": 5,
        "drivesys.cpu.committedInsts": 20,
        "drivesys.tsunami.ethernet.rxPackets": 5,
        "drivesys.tsunami.ethernet.rxBytes": 320,
    })
    assert host_metrics(d) == {
        "drivesys": dict(sim_seconds=0.1, insts=20, nic_rx_pkts=5, nic_rx_bytes=320),
        "testsys": dict(sim_seconds=0.1, insts=10, mem_bytes_read=64, mem_bytes_written=36,
                        mem_bytes=100, nic_tx_pkts=5),
    }


def test_first_matching_spelling_wins_per_host():
    d = dump({
        # DRAM controller: the system-side total and the vector count the same bytes.
        "a.physmem.bytesReadSys": 10, "a.physmem.bytes_read::total": 10,
        # SimpleMemory: only the vector, summed over memories.
        "b.physmem.bytes_read::total": 10, "b.nvmem.bytes_read::total": 1,
        # Private L2s come before a shared one behind them.
        "a.cpu0.l2cache.overall_misses::total": 3, "a.cpu1.l2cache.overall_misses::total": 4,
        "a.l2c.overall_misses::total": 2,
        "b.l2.overallMisses::total": 9,
    })
    assert metric(d, "mem_bytes_read", "a") == 10
    assert metric(d, "mem_bytes_read", "b") == 11
    assert metric(d, "l2_misses", "a") == 7
    assert metric(d, "l2_misses", "b") == 9


def test_standard_library_caches_and_cores():
    d = dump({
        "board.processor.cores0.core.committedInsts": 1,  # v21-v22
        "board.processor.cores1.core.committedInsts": 2,
        "board.cache_hierarchy.l1icaches0.overallMisses::total": 1,
        "board.cache_hierarchy.l1icaches1.overallMisses::total": 2,
        "board.cache_hierarchy.l1d-cache-0.overallMisses::total": 3,
        "board.cache_hierarchy.l1d-cache-1.overallMisses::total": 4,
        "board.cache_hierarchy.l2cache.overallMisses::total": 5,
        "board.cache_hierarchy.l1d-cache-0.overallMisses::processor.cores0.core.data": 3,
    })
    assert host_metrics(d)["board"] == dict(insts=3, l1i_misses=3, l1d_misses=7, l2_misses=5)


def test_unknown_metric_lists_known_ones():
    with pytest.raises(ValueError, match=r"unknown metric 'ipc'; known: sim_seconds, sim_ticks, insts"):
        metric(dump({}), "ipc", "system")


def test_catalogue_names_and_globs():
    assert set(METRICS) >= {
        "insts", "cycles", "l1i_misses", "l1d_misses", "l2_misses", "mem_bytes_read",
        "mem_bytes_written", "mem_bytes", "nic_tx_pkts", "nic_rx_pkts", "nic_tx_bytes",
        "nic_rx_bytes", "nic_interrupts", "sim_seconds"}
    assert [m.name for m in CATALOGUE] == list(METRICS)
    assert glob_regex("**.l1d-cache-*.overallMisses::total").fullmatch(
        "cache_hierarchy.l1d-cache-12.overallMisses::total")
    assert not glob_regex("*.numCycles").fullmatch("cpu.commit.numCycles")
    with pytest.raises(ValueError, match="last component must be literal"):
        glob_regex("cpu.*Insts")
