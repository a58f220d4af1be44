"""gem5 with four hosts through a switch (examples/switched-gem5.toml): three
clients stream into one server at once, one of them over a 1 Gbit/s link
where the others have 10, and the switch adds 1 us of its own. Checked on the
committed fixture (tests/fixtures/gem5-switched/, made by
scripts/gem5_fixtures.py from the committed configs, and made again whenever
they change: tests/test_gem5_fixtures.py fails until then). Three hosts and
two switches in one process are the committed gem5-jumbo-two-nics run's
(tests/test_gem5_variants.py), this spec through per-host processes
gem5-switched-per-host's; live, a switch process joins the per-host
quickstart's two hosts (tests/test_gem5_per_host.py). A live run of this
four-host spec would add a boot of its own (10-20 minutes of CI) to check
what those and this fixture check already."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from g5net.runs.rundir import RunDir

REPO = Path(__file__).resolve().parents[1]
FIXTURE = RunDir(REPO / "tests" / "fixtures" / "gem5-switched")
CLIENTS = ("client-1", "client-2", "slow")


def check_switched_run(results: dict, metrics: dict, config_ini: str) -> None:
    """What a switched fan-in run must show, from its results, metrics and gem5 config."""
    assert sorted(results) == sorted(("server",) + CLIENTS)
    sent = {c: results[c]["workloads"]["stream"]["sent_mbps"] for c in CLIENTS}
    server = results["server"]["workloads"]["stream"]
    got = {i["peer"]: i["throughput_mbps"] for i in server["instances"]}
    print("clients sent (Mb/s):", {c: round(v, 1) for c, v in sent.items()},
          "server received:", {c: round(v, 1) for c, v in got.items()})
    assert sorted(got) == sorted(CLIENTS) and all(v > 0 for v in got.values())
    # The 1 Gbit/s link is the slow client's narrowest point; the others' is 10.
    assert got["slow"] <= 1000.0 < min(got["client-1"], got["client-2"])
    assert metrics["aggregate"]["stream"]["clients"] == 3
    assert metrics["aggregate"]["stream"]["sent_mbps_sum"] == pytest.approx(sum(sent.values()))
    # gem5 built one switch with its own latency and each host's link at its own speed.
    switches = re.findall(r"^\[(\S+)\]\ntype=EtherSwitch\n(?:.*\n)*?delay=(\d+)", config_ini, re.M)
    assert [d for _, d in switches] == ["1000000"]  # 1 us in ticks (ps)
    speeds = re.findall(r"^type=EtherLink\n(?:.*\n)*?speed=([\d.]+)", config_ini, re.M)
    # gem5 stores a link's speed as ticks (ps) per byte: 800 at 10 Gbit/s, 8000 at 1.
    assert sorted(float(s) for s in speeds) == [800.0, 800.0, 800.0, 8000.0]


def test_fixture_shows_three_clients_into_one_server():
    check_switched_run(json.loads(FIXTURE.results_json.read_text()),
                       json.loads(FIXTURE.metrics_json.read_text()),
                       (FIXTURE.m5out / "config.ini").read_text())

