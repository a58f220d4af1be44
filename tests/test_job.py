"""Job scripts are golden files: a change to what the guest runs shows in review.
Regenerate with: G5NET_REGEN_GOLDEN=1 pytest tests/test_job.py"""

import os
from pathlib import Path

import pytest

from g5net import spec
from g5net.guest import job

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("host", ["server", "client"])
def test_quickstart_job_matches_golden(quickstart_text, host):
    s = spec.loads(quickstart_text)
    text = job.render(s, s.host(host))
    golden = GOLDEN / f"job-quickstart-{host}.sh"
    if os.environ.get("G5NET_REGEN_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text(), f"regenerate with G5NET_REGEN_GOLDEN=1 if intended ({golden})"


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
