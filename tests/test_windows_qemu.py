"""Windows on real QEMU guests (examples/steady-state.toml): each host
snapshots its counters at every window's edge, and the run reports every
metric as its mean over the windows with a 95% interval; the stream's two
ends count the same bytes on the wire."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import run_example
from g5net.metrics import spread

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def steady(cli_run, tmp_path_factory):
    return run_example(cli_run, "steady-state", tmp_path_factory.mktemp("steady"))


def test_every_window_is_measured_on_both_hosts(steady):
    results, metrics = steady
    for host in ("server", "client"):
        got = results[host]["workloads"]["stream"]
        assert len(got["windows"]) == 4
        # 250 ms each by the guest's clock (10 ms ticks), the snapshots' own time on top.
        assert all(0.24 <= w["elapsed_s"] <= 0.4 for w in got["windows"]), got["windows"]
        m = metrics["hosts"][host]["stream"]
        assert m["n_windows"] == 4 and len(m["per_window"]) == 4
        for name in ("throughput_mbps", "wire_sent_mbps", "wire_received_mbps", "cpu_util",
                     "pkts_per_s", "intr_per_pkt"):
            values = [w[name] for w in m["per_window"]]
            assert m[name] == pytest.approx(sum(values) / 4)
            assert m["spread"][name] == spread.summary(values).to_dict()
        # Every window carried the stream.
        assert min(w["throughput_mbps"] for w in m["per_window"]) > 10
        assert m["app_throughput_mbps"] == got["throughput_mbps"] > 0


def test_both_ends_count_the_same_bytes(steady):
    """The client's sent and the server's received bytes are the same frames:
    under QEMU each host times its windows by its own clock, so the two agree
    only to what a window's edges differ by (within 15% here)."""
    _, metrics = steady
    client, server = (metrics["hosts"][h]["stream"] for h in ("client", "server"))
    assert client["throughput_mbps"] == client["wire_sent_mbps"]
    assert server["throughput_mbps"] == server["wire_received_mbps"]
    assert client["throughput_mbps"] == pytest.approx(server["throughput_mbps"], rel=0.15)
    assert metrics["aggregate"]["stream"]["spread"]["throughput_mbps_sum"]["n"] == 4


def test_run_json_says_the_region_was_windows(steady, tmp_path_factory):
    results, _ = steady
    store = next(Path(p) for p in tmp_path_factory.getbasetemp().glob("steady*/store"))
    record = json.loads(next(store.glob("steady-state-*/run.json")).read_text())
    assert record["region"] == {"kind": "windows", "windows": 4, "window_ms": 250.0, "warmup_ms": 500.0}
