"""Real gem5, the variants the studies add to the quickstart, in one committed
run (tests/fixtures/gem5-jumbo-two-nics/, made by scripts/gem5_fixtures.py
from examples/jumbo-two-nics-gem5.toml): three hosts through Ethernet
switches (two clients into one server), the UP kernel, jumbo frames (MTU
9000) and two NICs per host, each NIC index its own switched network, and a
host whose name gem5 does not take as an object name (`client-1`). Its boot
and run took CI's machine some 20 minutes; test_gem5_fixtures.py checks that
the fixture ran the configs and jobs the product has now."""

from __future__ import annotations

import json
from pathlib import Path

from g5net.engines.gem5.boards import board_names
from g5net.model import specs
from g5net.runs.rundir import RunDir
from g5net.stats import iter_dumps, system

FIXTURE = RunDir(Path(__file__).parent / "fixtures" / "gem5-jumbo-two-nics")


def test_up_kernel_jumbo_frames_two_nics_and_fan_in():
    rd = FIXTURE
    spec = specs.from_dict(json.loads(rd.spec_json.read_text()))
    assert [h.name for h in spec.hosts] == ["server", "client", "client-1"]
    record = rd.read_run()
    assert record["status"] == "done", record.get("failure")
    results = json.loads(rd.results_json.read_text())

    # The UP kernel booted everywhere: no inter-processor interrupts to count
    # (an SMP kernel lists RES, CAL and TLB in /proc/interrupts even on one CPU).
    for h in spec.hosts:
        interrupts = results[h.name]["workloads"]["stream"]["roi"]["interrupts"]
        assert "eth1" in interrupts and not {"RES", "CAL", "TLB"} & set(interrupts), interrupts
    # The server's iperf took both clients' streams on both of its NICs, in jumbo frames.
    server = results["server"]["workloads"]["stream"]
    # One server process per client and NIC, each with its own figures.
    assert sorted((i["peer"], i["nic"]) for i in server["instances"]) == \
        [("client", 0), ("client", 1), ("client-1", 0), ("client-1", 1)]
    assert all(i["throughput_mbps"] > 0 for i in server["instances"])
    for dev, counters in server["roi"]["netdev"].items():
        assert counters["rx_bytes"] / counters["rx_packets"] > 4000, (dev, counters)
    for client in ("client", "client-1"):
        assert results[client]["workloads"]["stream"]["throughput_mbps"] > 0

    # gem5's view: every NIC of every client sent its megabyte, through two switches.
    names = board_names(spec)
    assert record["boards"] == names and names["client-1"] != "client-1"
    stream = next(iter_dumps(rd.stats_txt))
    for client in ("client", "client-1"):
        for nic in (0, 1):
            assert stream.value(f"{names[client]}.ethernet{nic}.EtherDevice.txBytes") > 1_000_000
    # Every host's metrics hold its own gem5 counters, looked up by its board.
    metrics = json.loads(rd.metrics_json.read_text())["hosts"]
    for h in spec.hosts:
        sent = stream.value(f"{names[h.name]}.ethernet0.EtherDevice.txPackets") + \
            stream.value(f"{names[h.name]}.ethernet1.EtherDevice.txPackets")
        assert metrics[h.name]["stream"]["nic_tx_pkts"] == sent > 0, h.name
    ini = system.read(rd.m5out / "config.ini")
    assert sum(ini.get(s, "type", fallback="") == "EtherSwitch" for s in ini.sections()) == 2
