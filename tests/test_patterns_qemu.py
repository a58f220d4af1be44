"""Traffic patterns on real QEMU guests joined by g5net's loopback switch: the
examples for hot-spot, fan-out, both directions, and a fan-in sweep over the
number of clients (about five minutes on two cores)."""

import csv
import shutil
import subprocess
import sys

import pytest

from conftest import EXAMPLES, REPO, run_example

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)

G5NET = [sys.executable, "-m", "g5net.cli"]
CLIENTS = [f"client-{i}" for i in range(1, 5)]


def test_hot_spot_every_client_pingpongs_the_server_at_once(cli_run, tmp_path):
    results, metrics = run_example(cli_run, "hot-spot", tmp_path)
    assert sorted(results) == sorted(["server"] + CLIENTS)
    latencies = [results[c]["workloads"]["latency"]["latency_us"] for c in CLIENTS]
    print("1-byte latency per client (us):", [round(x, 1) for x in latencies])
    assert all(0 < x < 100_000 for x in latencies)
    # The server ran one receiver per client, each on its own port.
    server = results["server"]["workloads"]["latency"]
    assert [i["peer"] for i in server["instances"]] == CLIENTS
    assert all(i["rc"] == 0 for i in server["instances"])
    agg = metrics["aggregate"]["latency"]
    assert agg["clients"] == 4
    assert agg["latency_us_max"] == max(latencies)
    assert agg["latency_us_mean"] == pytest.approx(sum(latencies) / 4)


def test_fan_out_server_sends_what_the_clients_receive(cli_run, tmp_path):
    results, metrics = run_example(cli_run, "fan-out", tmp_path)
    server = results["server"]["workloads"]["stream"]
    received = [results[c]["workloads"]["stream"]["received_mbps"] for c in CLIENTS]
    print(f"server sent {server['sent_mbps']:.1f} Mb/s; clients received", [round(x, 1) for x in received])
    assert all(x > 0 for x in received)
    assert server["received_mbps"] == 0
    assert sum(received) == pytest.approx(server["sent_mbps"], rel=0.05)
    assert metrics["aggregate"]["stream"]["received_mbps_sum"] == pytest.approx(sum(received))


def test_both_directions_on_both_hosts(cli_run, tmp_path):
    results, _ = run_example(cli_run, "bidirectional", tmp_path)
    for host in ("server", "client"):
        w = results[host]["workloads"]["stream"]
        print(host, f"sent {w['sent_mbps']:.1f} Mb/s, received {w['received_mbps']:.1f} Mb/s")
        assert w["sent_mbps"] > 0 and w["received_mbps"] > 0
        assert sorted(i["direction"] for i in w["instances"]) == ["receive", "send"]
    # One connection each way: what one host sent, the other received.
    client, server = (results[h]["workloads"]["stream"] for h in ("client", "server"))
    assert client["sent_mbps"] == pytest.approx(server["received_mbps"], rel=0.1)
    assert server["sent_mbps"] == pytest.approx(client["received_mbps"], rel=0.1)


def test_fan_in_sweep_over_client_count_is_one_table(tmp_path):
    out = tmp_path / "fan-in"
    sweep = subprocess.run(G5NET + ["sweep", str(EXAMPLES / "fan-in-sweep.toml"), "--out", str(out)],
                           cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert sweep.returncode == 0, sweep.stderr[-3000:]
    table = tmp_path / "fan-in.csv"
    done = subprocess.run(G5NET + ["collect", str(out), "-o", str(table)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(table.open()))
    assert [int(r["sweep.hosts.client.replicas"]) for r in rows] == [1, 2, 4]
    assert all(r["status"] == "done" for r in rows)
    for r in rows:
        n = int(r["sweep.hosts.client.replicas"])
        clients = ["client"] if n == 1 else [f"client-{i}" for i in range(1, n + 1)]
        sent = sum(float(r[f"metrics.{c}.stream.sent_mbps"]) for c in clients)
        got = float(r["metrics.server.stream.received_mbps"])
        print(f"{n} client(s): sent {sent:.1f} Mb/s, server received {got:.1f} Mb/s")
        assert float(r["aggregate.stream.clients"]) == n
        assert got > 0 and float(r["aggregate.stream.sent_mbps_sum"]) == pytest.approx(sent)
