"""gem5 with four hosts through a switch (examples/switched-gem5.toml): three
clients stream into one server at once, one of them over a 1 Gbit/s link
where the others have 10, and the switch adds 1 us of its own. Checked on the
committed fixture (tests/fixtures/gem5-switched/, made by
scripts/gem5_fixtures.py) and, where gem5 is present, on a real run (about
ten minutes on two cores the first time: the four hosts' boot checkpoint)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from g5net.engines.gem5 import Gem5Engine
from g5net.model import specs
from g5net.runners import execute as run
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


@pytest.mark.gem5
@pytest.mark.slow
def test_real_gem5_switched_fan_in(gem5_engine: Gem5Engine, tmp_path: Path):
    spec = specs.load(REPO / "examples" / "switched-gem5.toml")
    rd = run.execute(spec, tmp_path, progress=print)
    record = rd.read_run()
    assert record["status"] == "done", record.get("failure")
    check_switched_run(json.loads(rd.results_json.read_text()), json.loads(rd.metrics_json.read_text()),
                       (rd.m5out / "config.ini").read_text())
