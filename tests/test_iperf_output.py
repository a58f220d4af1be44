"""iperf 2's `-y C` report as the real binary prints it (Debian's iperf
2.1.8, the version the image carries), parsed as a workload's result."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from g5net.machine.local_ports import free_ports
from g5net.workloads.kinds.iperf import parse_csv

IPERF = shutil.which("iperf")
STREAMS = 4
STREAM_BYTES = 4 << 20
# Both ends of a 16 MiB loopback transfer finish in well under a second.
LIMIT_S = 60

needs_iperf = pytest.mark.skipif(IPERF is None, reason="needs iperf 2 on PATH: apt-get install iperf "
                                                       "(listed in disk-images/host-packages.txt)")


def _udp_bound(port: int) -> None:
    """Waits until a UDP socket is bound to `port`: iperf 2 has no connect
    retries for UDP (the job waits the same way, ready.py)."""
    deadline = time.monotonic() + LIMIT_S
    while f":{port:04X} " not in Path("/proc/net/udp").read_text():
        assert time.monotonic() < deadline, f"no iperf server bound to UDP port {port}"
        time.sleep(0.01)


def _run_pair(*client_args: str, udp: bool = False) -> tuple[str, str]:
    """(server's report, client's report) of one run on 127.0.0.1."""
    [port] = free_ports(1, "127.0.0.1")
    common = ["-p", str(port), "-y", "C"] + (["-u"] if udp else [])
    server = subprocess.Popen([str(IPERF), "-s", "-B", "127.0.0.1", "-P", str(STREAMS), *common],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if udp:
            _udp_bound(port)
        retries = [] if udp else ["--connect-retries", "50"]
        client = subprocess.run([str(IPERF), "-c", "127.0.0.1", "-P", str(STREAMS), *retries,
                                 *client_args, *common],
                                capture_output=True, text=True, timeout=LIMIT_S, check=True)
        out, _ = server.communicate(timeout=LIMIT_S)
    finally:
        server.kill()
        server.wait()
    return out, client.stdout


@needs_iperf
def test_several_streams_without_a_sum_line_are_summed():
    """iperf 2.1.8 prints one line per stream and no sum line (id -1) on
    either side: the result is every stream's, not the last one's."""
    server, client = _run_pair("-n", str(STREAM_BYTES))
    for text in (server, client):
        rows = [l.split(",") for l in text.splitlines()]
        assert len(rows) == STREAMS and all(r[5] != "-1" for r in rows), text
        out = parse_csv(text)
        assert out["streams"] == STREAMS
        assert out["bytes"] == STREAMS * STREAM_BYTES
        assert out["throughput_mbps"] == pytest.approx(sum(int(r[8]) for r in rows) / 1e6)
        spans = [tuple(map(float, r[6].split("-"))) for r in rows]
        assert out["duration_s"] == pytest.approx(max(e for _, e in spans) - min(s for s, _ in spans))


@needs_iperf
def test_udp_streams_add_their_datagrams_and_losses():
    """UDP: the receiver counts datagrams and losses per stream; the sender
    knows neither (total -1), so its loss is not made up from them."""
    server, client = _run_pair("-b", "20M", "-t", "1", udp=True)
    rows = [l.split(",") for l in server.splitlines()]
    out = parse_csv(server)
    assert out["streams"] == STREAMS
    assert out["datagrams"] == sum(int(r[11]) for r in rows) > 0
    assert out["lost"] == sum(int(r[10]) for r in rows)
    assert out["loss_pct"] == pytest.approx(100 * out["lost"] / out["datagrams"])
    sent = parse_csv(client)
    assert sent["datagrams"] == -1 and sent["loss_pct"] == 0.0 and sent["streams"] == STREAMS


def test_a_sum_line_is_taken_as_it_is():
    """Where iperf prints a sum line (id -1), it is the result."""
    text = ("20240101000000,10.0.0.2,40000,10.0.0.1,5001,3,0.0-3.0,1000,2666,\n"
            "20240101000000,10.0.0.2,40002,10.0.0.1,5001,4,0.0-3.0,3000,8000\n"
            "20240101000000,10.0.0.2,0,10.0.0.1,5001,-1,0.0-3.0,4000,10666\n")
    assert parse_csv(text) == {"bytes": 4000, "duration_s": 3.0, "throughput_mbps": 0.010666,
                               "streams": 2}
