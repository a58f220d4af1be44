"""Traffic-pattern keys of the spec: replicas, direction, instances, per-host
links and the switch; bad input is rejected before any run directory exists,
naming the key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from g5net.errors import SpecError
from g5net.model import sweep
from g5net.model import specs
from g5net.workloads import flows

BASE = """
[experiment]
name = "patterns"
[hosts.server]
role = "server"
[hosts.client]
role = "client"
replicas = 3
[workloads.stream]
kind = "iperf"
"""


def test_replicas_name_and_address_the_hosts():
    s = specs.loads(BASE)
    assert [(h.name, h.ip, h.peer) for h in s.hosts] == [
        ("server", "10.0.0.1", ""), ("client-1", "10.0.0.2", "server"),
        ("client-2", "10.0.0.3", "server"), ("client-3", "10.0.0.4", "server")]
    assert s.switched and all(h.replicas == 1 for h in s.hosts)
    # An explicit address is the first replica's; the others count up from it.
    s = specs.loads(BASE.replace("replicas = 3", 'replicas = 3\nip = "10.0.0.20"'))
    assert [h.ip for h in s.hosts[1:]] == ["10.0.0.20", "10.0.0.21", "10.0.0.22"]
    # The resolved spec reads back as itself (run.json, sweep plans).
    assert specs.from_dict(s.to_dict()) == s


def test_host_count_is_a_sweep_axis():
    sw = sweep.expand(specs.parse_toml(BASE + '[sweep]\n"hosts.client.replicas" = [1, 2, 4]\n'))
    assert [len(p.spec.hosts) for p in sw.points] == [2, 3, 5]
    assert [p.spec.switched for p in sw.points] == [False, True, True]


def test_each_host_has_its_own_link_through_a_switch():
    s = specs.loads(BASE + "[hosts.server.link]\nspeed_gbps = 40\n[link]\nspeed_gbps = 10\n"
                          "switch_delay_us = 0.5\n")
    assert s.link_of(s.host("server")).speed_gbps == 40.0
    assert s.link_of(s.host("client-2")).speed_gbps == 10.0
    assert s.link.switch_delay_us == 0.5


def test_flows_cover_clients_nics_instances_and_directions():
    s = specs.loads(BASE.replace('kind = "iperf"', 'kind = "iperf"\ninstances = 2\ndirection = "both"'))
    w = s.workloads[0]
    assert len(flows.flows(s, w)) == 3 * 2 * 2
    assert len(flows.flows_of(s, s.host("client-1"), w)) == 4
    assert len(flows.flows_of(s, s.host("server"), w)) == 12


@pytest.mark.parametrize("text, key", [
    (BASE.replace("replicas = 3", "replicas = 0"), "hosts.client.replicas"),
    (BASE.replace("replicas = 3", "replicas = 65"), "hosts.client.replicas"),
    (BASE + '[workloads.lat]\nkind = "netpipe"\ndirection = "receive"\n', "workloads.lat.direction"),
    (BASE + '[workloads.lat]\nkind = "netpipe"\ninstances = 2\n', "workloads.lat.instances"),
    (BASE.replace('kind = "iperf"', 'kind = "iperf"\ndirection = "sideways"'), "workloads.stream.direction"),
    (BASE.replace("replicas = 3", "replicas = 1") + "[hosts.server.link]\nspeed_gbps = 40\n",
     "hosts.server.link"),
    (BASE.replace("replicas = 3", "replicas = 1") + "[link]\nswitch_delay_us = 1\n", "link.switch_delay_us"),
    (BASE + "[hosts.server.link]\nspeed = 40\n", "hosts.server.link.speed"),
    (BASE + "[hosts.server.link]\ndelay_us = -1\n", "hosts.server.link.delay_us"),
    (BASE.replace('kind = "iperf"', 'kind = "iperf"\ninstances = 2\nclient_cpus = [[0]]'),
     "workloads.stream.client_cpus"),
    (BASE + '[hosts.client-2]\nrole = "client"\n', "hosts.client-2"),
])
def test_bad_pattern_keys_are_named(text: str, key: str):
    with pytest.raises(SpecError, match=rf"^{key.replace('.', chr(92) + '.')}\b"):
        specs.loads(text)


def test_a_sweep_over_a_host_that_does_not_exist_is_named():
    with pytest.raises(SpecError, match=r"hosts\.nobody"):
        sweep.expand(specs.parse_toml(BASE + '[sweep]\n"hosts.nobody.link.speed_gbps" = [1, 10]\n'))


def test_rejected_spec_leaves_no_run_directory(tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text(BASE.replace("replicas = 3", "replicas = 100"))
    out = tmp_path / "store"
    proc = subprocess.run([sys.executable, "-m", "g5net.cli", "run", str(bad), "--out", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "hosts.client.replicas" in proc.stderr, proc.stderr
    assert not out.exists() or not any(out.iterdir())
