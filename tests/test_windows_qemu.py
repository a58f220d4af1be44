"""Windows and repeats on real QEMU guests (examples/steady-state.toml): each
host snapshots its counters at every window's edge, each repeat runs from the
same boot in a folder of its own, and the run reports every metric as the
mean over its repeats with their 95% interval, the windows' beside it; the
stream's two ends count the same bytes on the wire."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES
from g5net.metrics import spread
from g5net.runs.rundir import RunDir

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def steady(cli_run, tmp_path_factory) -> RunDir:
    rc, summary = cli_run(EXAMPLES / "steady-state.toml", tmp_path_factory.mktemp("steady"))
    rd = RunDir(Path(summary["run_dir"]))
    assert rc == 0, rd.read_run().get("failure")
    return rd


def _json(path: Path) -> dict:
    return json.loads(path.read_text())


def test_every_window_of_every_repeat_is_measured_on_both_hosts(steady: RunDir):
    for k in (0, 1):
        rd = steady.repeat(k)
        results, metrics = _json(rd.results_json), _json(rd.metrics_json)
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
            # Every window carried the stream; iperf, stopped after the
            # windows, still reported.
            assert min(w["throughput_mbps"] for w in m["per_window"]) > 10
            assert m["app_throughput_mbps"] == got["throughput_mbps"] > 0
    # Repeat 1 was perturbed; repeat 0 ran as a run without repeats does.
    assert "echo g5net-repeat-1 >/dev/urandom" in steady.repeat(1).job_script("client").read_text()
    assert "g5net-repeat" not in steady.repeat(0).job_script("client").read_text()
    # The run's results are repeat 0's.
    assert _json(steady.results_json) == _json(steady.repeat(0).results_json)


def test_the_run_pools_its_repeats(steady: RunDir):
    pooled = _json(steady.metrics_json)
    each = [_json(steady.repeat(k).metrics_json) for k in (0, 1)]
    for host in ("server", "client"):
        m = pooled["hosts"][host]["stream"]
        values = [e["hosts"][host]["stream"]["throughput_mbps"] for e in each]
        assert m["n_repeats"] == 2 and m["n_windows"] == 4
        assert m["throughput_mbps"] == pytest.approx(sum(values) / 2)
        assert m["spread"]["throughput_mbps"] == spread.summary(values).to_dict()
        windows = [w["throughput_mbps"] for e in each for w in e["hosts"][host]["stream"]["per_window"]]
        assert m["within_run"]["throughput_mbps"] == spread.summary(windows).to_dict()
        assert [r["throughput_mbps"] for r in m["per_repeat"]] == values


def test_both_ends_count_the_same_bytes(steady: RunDir):
    """The client's sent and the server's received bytes are the same frames:
    under QEMU each host times its windows by its own clock, so the two agree
    only to what a window's edges differ by (within 15% here)."""
    metrics = _json(steady.metrics_json)
    client, server = (metrics["hosts"][h]["stream"] for h in ("client", "server"))
    assert client["throughput_mbps"] == client["wire_sent_mbps"]
    assert server["throughput_mbps"] == server["wire_received_mbps"]
    assert client["throughput_mbps"] == pytest.approx(server["throughput_mbps"], rel=0.15)
    assert metrics["aggregate"]["stream"]["spread"]["throughput_mbps_sum"]["n"] == 2


def test_run_json_says_the_region_was_windows(steady: RunDir):
    assert steady.read_run()["region"] == {"kind": "windows", "windows": 4, "window_ms": 250.0,
                                           "warmup_ms": 500.0, "method": "consecutive"}
