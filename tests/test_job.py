"""Job scripts are golden files: a change to what the guest runs shows in review.
Regenerate with: G5NET_REGEN_GOLDEN=1 pytest tests/test_job.py"""

import os
from pathlib import Path

import pytest

from g5net import spec
from g5net.guest import job

GOLDEN = Path(__file__).parent / "golden"


def multinic(quickstart_text: str) -> str:
    """The quickstart with two NICs per host and an iperf3 stream as well."""
    return quickstart_text.replace("mtu = 1500", "mtu = 1500\ncount = 2") + (
        '[workloads.stream3]\nkind = "iperf3"\nduration_s = 2\nstreams = 2\nclient_cpus = [0]\n')


def check_golden(text: str, name: str) -> None:
    golden = GOLDEN / name
    if os.environ.get("G5NET_REGEN_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text(), f"regenerate with G5NET_REGEN_GOLDEN=1 if intended ({golden})"


@pytest.mark.parametrize("host", ["server", "client"])
def test_quickstart_job_matches_golden(quickstart_text, host):
    s = spec.loads(quickstart_text)
    check_golden(job.render(s, s.host(host)), f"job-quickstart-{host}.sh")


@pytest.mark.parametrize("host", ["server", "client"])
def test_multinic_job_matches_golden(quickstart_text, host):
    s = spec.loads(multinic(quickstart_text))
    check_golden(job.render(s, s.host(host)), f"job-multinic-{host}.sh")


def test_streams_run_once_per_nic_at_once_and_netpipe_once(quickstart_text):
    s = spec.loads(multinic(quickstart_text))
    client = job.render(s, s.host("client")).splitlines()
    server = job.render(s, s.host("server")).splitlines()
    streams = [l for l in client if l.startswith("g5_capture stream ")
               or l.startswith("g5_capture stream.nic1 ")]
    assert [l.split()[6] for l in streams] == ["10.0.0.1", "10.0.1.1"]
    assert all(l.endswith(" &") for l in streams)
    assert client[client.index(streams[-1]) + 1] == "wait"
    assert any("g5_capture stream3.nic1 g5_retry 120 g5_json_ok g5_pin 0 iperf3 -c 10.0.1.1 -p 5003" in l
               for l in client)
    assert [l for l in server if "iperf -s" in l] == [
        f"g5_capture {name} g5_pin '' timeout 123 iperf -s -P 1 -B {ip} -p 5001 -l 131072 -y C &"
        for name, ip in (("stream", "10.0.0.1"), ("stream.nic1", "10.0.1.1"))]
    assert sum("NPtcp" in l for l in client) == 1 and "latency.nic1" not in "\n".join(client)


def test_nic_setup_covers_every_nic(quickstart_text):
    text = multinic(quickstart_text).replace("cores = 1", "cores = 2").replace(
        "count = 2", "count = 2\noffloads = {tso = false}\nirq_cpus = [1]")
    s = spec.loads(text)
    lines = job.render(s, s.host("client")).splitlines()
    assert "g5_capture nic-offloads ethtool -K eth0 tso off" in lines
    assert "g5_capture nic-offloads.nic1 ethtool -K eth1 tso off" in lines
    assert "g5_irq_affinity 1" in lines and "g5_irq_affinity 1 eth1" in lines


def test_options_reach_the_command_line(quickstart_text):
    text = quickstart_text.replace("msg_bytes = 131072", "msg_bytes = 8192\nwindow_bytes = 262144\n"
                                   "streams = 4\nclient_cpus = [1]").replace('"tcp"', '"udp"')
    text = text.replace("cores = 1", "cores = 2").replace('mtu = 1500', 'mtu = 9000\noffloads = {tso = false}\nirq_cpus = [0]')
    s = spec.loads(text)
    client = job.render(s, s.host("client"))
    assert "g5_pin 1 iperf -c 10.0.0.1 -P 4" in client
    assert "-l 8192 -y C -w 262144 -u -b 1000.0M" in client
    assert "g5_capture nic-offloads ethtool -K eth0 tso off" in client
    assert "g5_irq_affinity 0" in client
    server = job.render(s, s.host("server"))
    assert "timeout 123 iperf -s -P 4 -p 5001" in server


def test_ports_differ_per_workload(quickstart_text):
    s = spec.loads(quickstart_text)
    assert [job.port(s, w) for w in s.workloads] == [5001, 5002]


def test_fan_in_server_serves_every_stream_of_every_client(quickstart_text):
    # Two clients of one server (gem5 joins three hosts through a switch).
    three = quickstart_text.replace('[hosts.client]\nrole = "client"',
                                    '[hosts.client]\nrole = "client"\n[hosts.client2]\nrole = "client"')
    s = spec.loads(three.replace('kind = "iperf"', 'kind = "iperf"\nstreams = 3', 1))
    assert [h.name for h in s.clients_of(s.host("server"))] == ["client", "client2"]
    server = job.render(s, s.host("server"))
    assert "iperf -s -P 6 " in server
    assert "iperf -c 10.0.0.1 -P 3 " in job.render(s, s.host("client2"))
