"""The MPI and web workload kinds and nic.txqueuelen: what the spec accepts,
what it rejects (naming the key, before any run directory), and the job lines
and results they make."""

from __future__ import annotations

import pytest

from g5net.errors import GuestError, SpecError
from g5net.model import specs
from g5net.workloads.kinds.web import parse_wrk
from test_job import render

PAIR = """
[experiment]
name = "workloads"
[hosts.server]
role = "server"
[hosts.client]
role = "client"
"""
MPI = PAIR + '[workloads.mpi]\nkind = "mpi"\n'
WEB = PAIR + '[workloads.web]\nkind = "web"\nduration_s = 2\n'


@pytest.mark.parametrize("text, key", [
    (MPI.replace('role = "client"', 'role = "client"\nreplicas = 2'), "workloads.mpi.kind"),
    (MPI + "direction = \"both\"\n", "workloads.mpi.direction"),
    (MPI + "instances = 2\n", "workloads.mpi.instances"),
    (MPI + "min_bytes = 10\nmax_bytes = 2\n", "workloads.mpi.min_bytes"),
    (MPI + 'protocol = "udp"\n', "workloads.mpi.protocol"),
    (WEB + "file_bytes = []\n", "workloads.web.file_bytes"),
    (WEB + "file_bytes = [0]\n", "workloads.web.file_bytes"),
    (WEB + "file_bytes = [200000000]\n", "workloads.web.file_bytes"),
    (WEB.replace("duration_s = 2", "duration_s = 1.5"), "workloads.web.duration_s"),
    (WEB + "bytes = 1000\n", "workloads.web.duration_s"),
    (WEB + "zipf_exponent = -1.0\n", "workloads.web.zipf_exponent"),
    (WEB + "connections = 0\n", "workloads.web.connections"),
    (PAIR + '[host.nic]\ntxqueuelen = -1\n[workloads.s]\nkind = "iperf"\n', "hosts.server.nic.txqueuelen"),
    # iperf3 reads -t as an integer: 1.5 would run 1 s, 0.5 until killed.
    (PAIR + '[workloads.s]\nkind = "iperf3"\nduration_s = 1.5\n', "workloads.s.duration_s"),
    (PAIR + '[workloads.s]\nkind = "iperf3"\nduration_s = 0.5\n', "workloads.s.duration_s"),
])
def test_bad_workload_keys_are_named(text: str, key: str):
    with pytest.raises(SpecError, match=rf"^{key.replace('.', chr(92) + '.')}\b"):
        specs.loads(text)


def test_mpi_client_launches_both_ranks_and_server_listens():
    s = specs.loads(MPI)
    client = render(s, s.host("client"))
    server = render(s, s.host("server"))
    line = next(l for l in client.splitlines() if "orterun" in l)
    # Rank 0 on the client itself (listed first), rank 1 on its server, over NIC 0.
    assert "--host 10.0.0.2,10.0.0.1" in line and "G5_RSH_PORT=5001" in line
    assert "NPopenmpi -o /tmp/g5out/mpi.np -l 1 -u 65536" in line
    assert "g5_capture mpi g5_rsh_listen '' 5001 240" in server


def test_web_files_are_made_outside_the_region_and_requested_by_zipf():
    s = specs.loads(WEB + "file_bytes = [1000, 2000, 3000]\nzipf_exponent = 1.0\n")
    server = render(s, s.host("server")).splitlines()
    files = server.index("g5_web_files /tmp/www-web 1000 2000 3000")
    assert files < server.index("g5_roi_begin web")
    client = render(s, s.host("client"))
    # 1, 1/2, 1/3 normalised: the cumulative probabilities the Lua script draws from.
    assert "local cdf = {0.545454545, 0.818181818, 1}" in client
    assert "wrk -t 1 -c 8 -d 2s" in client and "http://10.0.0.1:5001/" in client
    assert "g5_web_get 10.0.0.1 5001 25001" in client


def test_txqueuelen_is_set_on_every_nic():
    s = specs.loads(PAIR + '[host.nic]\ncount = 2\ntxqueuelen = 10000\n[workloads.s]\nkind = "iperf"\n')
    lines = render(s, s.host("client")).splitlines()
    assert "ip link set eth0 txqueuelen 10000" in lines and "ip link set eth1 txqueuelen 10000" in lines
    default = specs.loads(PAIR + '[workloads.s]\nkind = "iperf"\n')
    assert "txqueuelen" not in render(default, default.host("client"))


def test_wrk_summary_parses_into_rates():
    out = parse_wrk("Running 2s test\nG5WRK requests=300 duration_us=2000000 bytes=4950000 "
                            "errors=0 lat_mean_us=1500.5 lat_p50_us=1400 lat_p99_us=4000 lat_max_us=5000\n")
    assert out["requests_per_s"] == 150.0
    assert out["throughput_mbps"] == pytest.approx(4950000 * 8 / 2 / 1e6)
    assert (out["latency_us"], out["latency_p99_us"], out["errors"]) == (1500.5, 4000, 0)
    with pytest.raises(GuestError, match="no summary"):
        parse_wrk("wrk: connection refused\n")
    with pytest.raises(GuestError, match="no request"):
        parse_wrk("G5WRK requests=0 duration_us=2000000 bytes=0 errors=12 lat_mean_us=0 "
                          "lat_p50_us=0 lat_p99_us=0 lat_max_us=0\n")


def test_online_cpus_takes_the_others_offline_before_the_workloads():
    s = specs.loads(PAIR + '[host]\nonline_cpus = 2\n[host.cpu]\ncores = 4\n[workloads.s]\nkind = "iperf"\n')
    lines = render(s, s.host("client")).splitlines()
    offline = lines.index("for c in 2 3; do echo 0 >/sys/devices/system/cpu/cpu$c/online; done")
    assert offline < lines.index("g5_roi_begin s stats")
    with pytest.raises(SpecError, match=r"^hosts\.server\.online_cpus: 8 is more than the host's 4 CPUs"):
        specs.loads(PAIR + '[host]\nonline_cpus = 8\n[host.cpu]\ncores = 4\n[workloads.s]\nkind = "iperf"\n')
