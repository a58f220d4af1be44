"""A 4-host fan-in on real gem5 with a process per host: three clients sent
through the switch process to one server at the one-process run's rates.

A committed run (tests/fixtures/gem5-switched-per-host/, made by
scripts/gem5_fixtures.py from examples/switched-gem5.toml): booting four
hosts and the switch took CI's machine 20 minutes, more than any other test,
for a path that tests/test_gem5_per_host.py's two hosts and switch process
run live. test_gem5_fixtures.py checks that the fixture ran the configs and
the jobs the product has now.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_gem5_per_host import TOLERANCE

from g5net.engines.gem5.dist import SWITCH
from g5net.runs.rundir import RunDir

FIXTURES = Path(__file__).parent / "fixtures"
PER_HOST_FAN_IN = RunDir(FIXTURES / "gem5-switched-per-host")
ONE_PROCESS_FAN_IN = RunDir(FIXTURES / "gem5-switched")
FAN_IN_BYTES = 2_000_000  # each client's, in examples/switched-gem5.toml


def test_a_4_host_fan_in_ran_through_the_switch_process():
    rd = PER_HOST_FAN_IN
    record = rd.read_run()
    assert record["status"] == "done", record.get("failure")
    assert record["spec"]["experiment"]["processes"] == "per-host"
    results = json.loads(rd.results_json.read_text())
    clients = [h for h in results if h != "server"]
    assert len(clients) == 3
    received = results["server"]["workloads"]["stream"]["instances"]
    assert sorted(i["peer"] for i in received) == sorted(clients)
    assert all(i["bytes"] == FAN_IN_BYTES and i["throughput_mbps"] > 0 for i in received)
    # Each client sends at the one-process run's rate. The server's own
    # figures are not compared: each of its iperf servers times a 2 MB
    # transfer from its first byte, so which client started first sways
    # them: when the per-host job's text grew by 4 bytes (a comment naming
    # its module), their sum went from 3,603 to 4,941 Mbit/s while every
    # client's rate moved under 4%.
    one = json.loads(ONE_PROCESS_FAN_IN.results_json.read_text())
    for client in clients:
        assert results[client]["workloads"]["stream"]["throughput_mbps"] == pytest.approx(
            one[client]["workloads"]["stream"]["throughput_mbps"], rel=TOLERANCE), client
    # The switch was a process of its own, and each host's gem5 counters are
    # in its metrics, read from its own process's statistics.
    assert SWITCH not in results
    metrics = json.loads(rd.metrics_json.read_text())["hosts"]
    for host in results:
        assert metrics[host]["stream"]["nic_tx_pkts"] > 0, host
