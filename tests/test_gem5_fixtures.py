"""A real gem5 run, kept as fixtures (tests/fixtures/gem5-quickstart/): two
hosts booted on the atomic CPU into a checkpoint, restored, the stream and
latency workloads measured (examples/quickstart-gem5.toml with cpu.model =
"atomic"), gem5 v24.0.0.1. The consoles hold both phases; the stats file is the
stream's region of interest (the first dump)."""

from __future__ import annotations

import json
from pathlib import Path

from g5net import spec as specmod
from g5net.engines.gem5 import STUB_MARK
from g5net.guest import results
from g5net.stats import iter_dumps

FIXTURE = Path(__file__).parent / "fixtures" / "gem5-quickstart"


def test_consoles_hold_the_boot_and_the_measurement_and_parse_to_the_results():
    spec = specmod.from_dict(json.loads((FIXTURE / "spec.json").read_text()))
    expected = json.loads((FIXTURE / "results.json").read_text())
    for host in spec.hosts:
        console = (FIXTURE / f"console-{host.name}.log").read_text()
        assert console.index(f"G5NET-BOOTED host={host.name}") < console.index(results.BEGIN)
        assert STUB_MARK not in console  # the stub runs, it is not printed
        assert results.host_results(console, spec, host) == expected[host.name]
    assert expected["client"]["workloads"]["stream"]["throughput_mbps"] > 0
    assert expected["client"]["workloads"]["latency"]["latency_us"] > 0


def test_stream_roi_dump_has_both_nics_counting():
    (dump,) = list(iter_dumps(FIXTURE / "stats-stream-roi.txt"))
    for host, direction in (("client", "tx"), ("server", "rx")):
        assert dump.value(f"{host}.ethernet.EtherDevice.{direction}Packets") > 2000
        assert dump.value(f"{host}.ethernet.EtherDevice.{direction}Bytes") > 4_000_000
