"""Spec validation: every error names the key, the bad value and what is allowed."""

import json
import tomllib

import pytest

from g5net import spec
from g5net.errors import SpecError
from g5net.model import identity, sweep
from g5net.model import specs

MINIMAL = """
[hosts.server]
role = "server"
[hosts.client]
role = "client"
[workloads.stream]
kind = "iperf"
"""


def error(text: str) -> str:
    with pytest.raises(SpecError) as e:
        specs.loads(text)
    return str(e.value)


def test_quickstart_resolves(quickstart_text):
    s = specs.loads(quickstart_text)
    assert [h.name for h in s.hosts] == ["server", "client"]
    client = s.host("client")
    assert client.peer == "server" and client.ip == "10.0.0.2"
    assert client.memory_mb == 256 and client.nic.mtu == 1500
    assert [w.kind for w in s.workloads] == ["iperf", "netpipe"]


def test_defaults_and_overrides():
    text = MINIMAL.replace("[hosts.client]\n", "[hosts.client]\nnic.mtu = 1500\n")
    s = specs.loads(text + "[host.nic]\nmtu = 9000\n[host.cpu]\ncores = 2\n")
    assert s.host("server").nic.mtu == 9000
    assert s.host("client").nic.mtu == 1500
    assert s.host("client").cpu.cores == 2


def test_misspelt_key_names_key_and_allowed():
    msg = error(MINIMAL + "[experiment]\nengnie = 'qemu'\n")
    assert "experiment.engnie: unknown key" in msg and "engine" in msg


def test_misspelt_nested_key():
    msg = error(MINIMAL.replace('role = "server"', 'role = "server"\nnic.mut = 9000'))
    assert msg.startswith("hosts.server.nic.mut: unknown key")


def test_unknown_top_level_table():
    assert "hostz: unknown top-level key" in error(MINIMAL + "[hostz]\n")


def test_mtu_out_of_range():
    msg = error(MINIMAL + "[host.nic]\nmtu = 20000\n")
    assert "hosts.server.nic.mtu: 20000 is out of range (68..16110)" == msg


def test_bad_choice_lists_allowed():
    msg = error(MINIMAL + "[host.nic]\nattach = 'usb'\n")
    assert "hosts.server.nic.attach: 'usb' is not one of 'pcie', 'integrated'" == msg


def test_wrong_type():
    assert "expected an integer" in error(MINIMAL + "[host]\nmemory_mb = '512'\n")
    assert "expected an integer" in error(MINIMAL + "[host]\nmemory_mb = true\n")


def test_float_accepts_int():
    assert specs.loads(MINIMAL + "[link]\nspeed_gbps = 40\n").link.speed_gbps == 40.0


def test_dca_needs_integrated():
    msg = error(MINIMAL + "[host.nic]\ndca = true\n")
    assert "nic.dca: needs nic.attach = \"integrated\"" in msg


def test_up_kernel_with_many_cpus():
    msg = error(MINIMAL + "[host]\nkernel = 'up'\n[host.cpu]\ncores = 4\n")
    assert "kernel: \"up\" boots one CPU but cpu has 4" in msg


def test_receive_packet_steering_names_real_cpus_of_an_smp_kernel():
    assert "hosts.server.nic.rps_cpus: CPU 2 does not exist (0..1)" == error(
        MINIMAL + "[host.cpu]\ncores = 2\n[host.nic]\nrps_cpus = [0, 2]\n")
    assert "hosts.server.nic.rps_cpus: receive packet steering needs an SMP kernel" in error(
        MINIMAL + "[host]\nkernel = 'up'\n[host.nic]\nrps_cpus = [0]\n")
    assert specs.loads(MINIMAL + "[host.cpu]\ncores = 2\n[host.nic]\nrps_cpus = [0, 1]\n") \
        .host("server").nic.rps_cpus == [0, 1]


def test_pinning_to_missing_cpu():
    msg = error(MINIMAL.replace('kind = "iperf"', 'kind = "iperf"\nclient_cpus = [3]'))
    assert "workloads.stream.client_cpus: CPU 3 does not exist on hosts.client (0..0)" == msg


def test_needs_server_and_two_hosts():
    assert "no host has role" in error(MINIMAL.replace('"server"', '"client"'))
    one = MINIMAL.split("[hosts.client]")[0] + '[workloads.w]\nkind = "iperf"\n'
    assert "at least two hosts" in error(one)


def test_peer_must_be_a_server():
    text = MINIMAL.replace('role = "client"', 'role = "client"\npeer = "nobody"')
    assert "hosts.client.peer: 'nobody' is not a server" in error(text)


def test_netpipe_bounds():
    text = MINIMAL + "[workloads.lat]\nkind = 'netpipe'\nmin_bytes = 100\nmax_bytes = 10\n"
    assert "workloads.lat.min_bytes: 100 is larger than max_bytes 10" == error(text)


def test_icount_needs_one_cpu_on_qemu():
    text = MINIMAL + "[experiment]\nicount = true\n[host.cpu]\ncores = 2\n"
    assert "experiment.icount" in error(text)


def test_invalid_toml_names_source():
    with pytest.raises(SpecError, match="x.toml: not valid TOML"):
        specs.loads("[[[", source="x.toml")


def test_missing_file(tmp_path):
    with pytest.raises(SpecError, match="cannot read spec"):
        specs.load(tmp_path / "nope.toml")


def test_niagara2_preset():
    s = specs.loads(MINIMAL + "[host.cpu]\npreset = 'niagara2'\n")
    h = s.host("server")
    assert (h.cpu.cores, h.cpu.threads_per_core, h.cpu.clock_ghz) == (8, 8, 1.2)
    assert (h.caches.l1d_kib, h.caches.l1d_assoc, h.caches.l1i_kib, h.caches.l2_kib) == (8, 4, 16, 4096)
    # Every key the spec writes wins over the preset's.
    swept = specs.loads(MINIMAL + "[host.cpu]\npreset = 'niagara2'\ncores = 2\n")
    assert swept.host("server").cpu.count == 16
    one = specs.loads(MINIMAL + "[host.cpu]\npreset = 'niagara2'\ncores = 1\nthreads_per_core = 1\n")
    assert one.host("server").cpu.count == 1 and one.host("server").cpu.clock_ghz == 1.2
    big = specs.loads(MINIMAL + "[host.cpu]\npreset = 'niagara2'\n[host.caches]\nl2_kib = 8192\n")
    assert (big.host("server").caches.l2_kib, big.host("server").caches.l1d_kib) == (8192, 8)
    fast = specs.loads(MINIMAL + "[host.cpu]\npreset = 'niagara2'\nclock_ghz = 3.0\n")
    assert fast.host("server").cpu.clock_ghz == 3.0


def test_niagara2_cpu_count_sweep_expands_to_distinct_points():
    text = (MINIMAL + "[host.cpu]\npreset = 'niagara2'\n[sweep]\n"
            "'host.cpu.cores' = [1, 2, 4, 8]\n'host.cpu.threads_per_core' = [1, 8]\n")
    points = sweep.expand(tomllib.loads(text)).points
    counts = sorted(p.spec.host("server").cpu.count for p in points)
    assert counts == [1, 2, 4, 8, 8, 16, 32, 64]
    assert len({identity.spec_digest(p.spec) for p in points}) == 8


def test_json_round_trip_and_digest(tmp_path, quickstart_text):
    s = specs.loads(quickstart_text)
    p = tmp_path / "spec.json"
    p.write_text(s.to_json())
    back = specs.from_dict(json.loads(p.read_text()))
    assert back == s
    renamed = specs.loads(quickstart_text.replace('name = "quickstart"', 'name = "other"'))
    assert identity.spec_digest(renamed) == identity.spec_digest(s)
    assert identity.spec_digest(s.with_engine("gem5")) != identity.spec_digest(s)
    assert json.loads(s.to_json())["schema"] == spec.SCHEMA_VERSION


def test_nic_i_gets_the_third_number_plus_i():
    s = specs.loads(MINIMAL + "[host.nic]\ncount = 3\n")
    server = s.host("server")
    assert server.ip == "10.0.0.1"
    assert [server.nic_ip(i) for i in range(3)] == ["10.0.0.1", "10.0.1.1", "10.0.2.1"]
    assert s.host("client").nic_ip(2) == "10.0.2.2"


def test_nic_addresses_must_stay_within_the_third_number():
    text = MINIMAL.replace('role = "server"', 'role = "server"\nip = "10.0.254.1"')
    specs.loads(text + "[host.nic]\ncount = 2\n")
    msg = error(text + "[host.nic]\ncount = 3\n")
    assert msg.startswith("hosts.server.nic.count: 3 NICs do not fit ip 10.0.254.1")
    assert "at most 253" in msg


def test_nic_addresses_must_not_collide_with_another_hosts():
    text = MINIMAL.replace('role = "client"', 'role = "client"\nip = "10.0.1.1"')
    assert "hosts.client.ip" in error(text.replace('role = "server"', 'role = "server"\nip = "10.0.1.1"'))
    msg = error(text + "[host.nic]\ncount = 2\n")
    assert msg == "hosts.client.ip: 10.0.1.1 is already used by hosts.server (NIC 1)"


def test_kernel_args_are_single_words():
    s = specs.loads(MINIMAL + '[host]\nkernel_args = ["idle=poll", "mitigations=off"]\n')
    assert s.host("server").kernel_args == ["idle=poll", "mitigations=off"]
    for bad in ('"1 init=/bin/sh"', '"a;b"', '"x\\ny"', '""', "3"):
        with pytest.raises(SpecError, match=r"hosts\.server\.kernel_args: .* is not one kernel argument"):
            specs.loads(MINIMAL + f"[host]\nkernel_args = [{bad}]\n")


TWO_WORKLOADS = MINIMAL + """
[workloads.latency]
kind = "netpipe"
"""


def test_experiment_workloads_picks_the_runs_workloads():
    """One sweep's rows may run different workloads (experiment.workloads):
    the spec then holds only those, and its resolved form says so again."""
    every = specs.loads(TWO_WORKLOADS)
    assert [w.name for w in every.workloads] == ["stream", "latency"]
    picked = specs.loads("[experiment]\nworkloads = [\"latency\"]\n" + TWO_WORKLOADS)
    assert [w.name for w in picked.workloads] == ["latency"]
    assert specs.from_dict(json.loads(picked.to_json())) == picked
    # The selection is part of what the run measures; a spec without one keeps the id it had.
    assert identity.spec_digest(picked) != identity.spec_digest(every)
    unselected = json.loads(every.to_json())
    del unselected["experiment"]["workloads"]
    assert identity.spec_digest(specs.from_dict(unselected)) == identity.spec_digest(every)


@pytest.mark.parametrize("names, message", [
    (["lat"], "experiment.workloads: 'lat' names no [workloads.*] table (there are: stream, latency)"),
    (["stream", "stream"], "names a workload twice"),
    (42, "experiment.workloads"),
])
def test_experiment_workloads_names_real_workloads(names, message):
    assert message in error(f"[experiment]\nworkloads = {json.dumps(names)}\n" + TWO_WORKLOADS)


def test_a_sweep_row_may_run_other_workloads(tmp_path):
    path = tmp_path / "rows.toml"
    path.write_text(TWO_WORKLOADS + """
[sweep]
"experiment.workloads" = [["stream"], ["stream", "latency"]]
""")
    plan = sweep.load(path)
    assert [[w.name for w in p.spec.workloads] for p in plan.points] == [["stream"], ["stream", "latency"]]
