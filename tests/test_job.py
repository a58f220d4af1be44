"""Job scripts are golden files: a change to what the guest runs shows in review.
Regenerate with: G5NET_REGEN_GOLDEN=1 pytest tests/test_job.py"""

import os
from pathlib import Path

import pytest

from g5net import spec
from g5net.engines import qemu
from g5net.engines.gem5 import engine as gem5_engine
from g5net.guest import protocol
from g5net.model import specs
from g5net.spec import Host, Spec
from g5net.workloads import flows, job
from g5net.workloads.shell import cpu_mask

GOLDEN = Path(__file__).parent / "golden"


def multinic(quickstart_text: str) -> str:
    """The quickstart with two NICs per host and an iperf3 stream as well."""
    return quickstart_text.replace("mtu = 1500", "mtu = 1500\ncount = 2") + (
        '[workloads.stream3]\nkind = "iperf3"\nduration_s = 2\nstreams = 2\nclient_cpus = [0]\n')


def render(s: Spec, host: Host) -> str:
    """`host`'s job as the engine of `s` renders it."""
    return (gem5_engine if s.experiment.engine == "gem5" else qemu).job_script(s, host)


# The first line of a gem5 job's own ending (job._ending).
ENDING = "# under gem5 the run ends"


def before_ending(text: str) -> str:
    """A job's workloads: its text before the ending a gem5 job adds (the
    comment line that opens it, then `job_rc=$?`)."""
    head, mark, _ = text.partition("\njob_rc=$?\n")
    return head.rpartition("\n")[0] + "\n" if mark else text


def check_golden(text: str, name: str) -> None:
    golden = GOLDEN / name
    if os.environ.get("G5NET_REGEN_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text(), f"regenerate with G5NET_REGEN_GOLDEN=1 if intended ({golden})"


@pytest.mark.parametrize("host", ["server", "client"])
def test_quickstart_job_matches_golden(quickstart_text, host):
    s = specs.loads(quickstart_text)
    check_golden(render(s, s.host(host)), f"job-quickstart-{host}.sh")


@pytest.mark.parametrize("host", ["server", "client"])
def test_multinic_job_matches_golden(quickstart_text, host):
    s = specs.loads(multinic(quickstart_text))
    check_golden(render(s, s.host(host)), f"job-multinic-{host}.sh")


def test_streams_run_once_per_nic_at_once_and_netpipe_once(quickstart_text):
    s = specs.loads(multinic(quickstart_text))
    client = render(s, s.host("client")).splitlines()
    server = render(s, s.host("server")).splitlines()
    streams = [l for l in client if l.startswith("g5_capture stream ")
               or l.startswith("g5_capture stream.nic1 ")]
    assert [l.split()[6] for l in streams] == ["10.0.0.1", "10.0.1.1"]
    assert all(l.endswith(" &") for l in streams)
    assert client[client.index(streams[-1]) + 1] == "wait"
    assert any("g5_capture stream3.nic1 g5_retry 120 g5_json_ok g5_pin 0 iperf3 -c 10.0.1.1 -p 5005" in l
               for l in client)
    # Each NIC's flow has a server and a port of its own.
    assert [l for l in server if "iperf -s" in l] == [
        f"g5_capture {name} g5_pin '' timeout 123 iperf -s -P 1 -p {port} -l 131072 -y C &"
        for name, port in (("stream", 5001), ("stream.nic1", 5002))]
    assert sum("NPtcp" in l for l in client) == 1 and "latency.nic1" not in "\n".join(client)


def test_nic_setup_covers_every_nic(quickstart_text):
    text = multinic(quickstart_text).replace("cores = 1", "cores = 2").replace(
        "count = 2", "count = 2\noffloads = {tso = false}\nirq_cpus = [1]")
    s = specs.loads(text)
    lines = render(s, s.host("client")).splitlines()
    assert "g5_capture nic-offloads ethtool -K eth0 tso off" in lines
    assert "g5_capture nic-offloads.nic1 ethtool -K eth1 tso off" in lines
    assert "g5_irq_affinity 1" in lines and "g5_irq_affinity 1 eth1" in lines


def test_receive_packet_steering_writes_each_nics_mask(quickstart_text):
    text = multinic(quickstart_text).replace("cores = 1", "cores = 2").replace(
        "count = 2", "count = 2\nrps_cpus = [0, 1]")
    s = specs.loads(text)
    lines = render(s, s.host("client")).splitlines()
    assert ("g5_capture nic-rps sh -c 'echo 00000003 >/sys/class/net/eth0/queues/rx-0/rps_cpus "
            "&& cat /sys/class/net/eth0/queues/rx-0/rps_cpus'") in lines
    assert any(line.startswith("g5_capture nic-rps.nic1 sh -c 'echo 00000003 >/sys/class/net/eth1/")
               for line in lines)
    plain = specs.loads(quickstart_text)
    assert "rps_cpus" not in render(plain, plain.host("client"))


def test_a_write_back_threshold_is_set_on_each_nic_and_read_back(quickstart_text):
    s = specs.loads(multinic(quickstart_text).replace("count = 2", "count = 2\nrx_wthresh = 63"))
    lines = render(s, s.host("server")).splitlines()
    # RXDCTL (0x2828), its WTHRESH field (bits 16-21) to 63, the rest kept.
    assert "g5_capture nic-rxdctl nicreg eth0 0x2828 0x3f0000 0x3f0000" in lines
    assert "g5_capture nic-rxdctl.nic1 nicreg eth1 0x2828 0x3f0000 0x3f0000" in lines
    # The NIC's reset value is left to the NIC: no write, as before the key.
    plain = specs.loads(multinic(quickstart_text).replace("count = 2", "count = 2\nrx_wthresh = 1"))
    assert "nicreg" not in render(plain, plain.host("server"))


@pytest.mark.parametrize("cpus,mask", [([0], "00000001"), ([0, 1, 2, 3], "0000000f"), ([31], "80000000"),
                                       ([32], "00000001,00000000"), (list(range(64)), "ffffffff,ffffffff")])
def test_a_cpu_mask_is_the_kernels_32_bit_words(cpus, mask):
    assert cpu_mask(cpus) == mask


def test_options_reach_the_command_line(quickstart_text):
    text = quickstart_text.replace("msg_bytes = 131072", "msg_bytes = 8192\nwindow_bytes = 262144\n"
                                   "streams = 4\nclient_cpus = [1]").replace('"tcp"', '"udp"')
    text = text.replace("cores = 1", "cores = 2").replace('mtu = 1500', 'mtu = 9000\noffloads = {tso = false}\nirq_cpus = [0]')
    s = specs.loads(text)
    client = render(s, s.host("client"))
    assert "g5_pin 1 iperf -c 10.0.0.1 -P 4" in client
    assert "-l 8192 -y C -w 262144 -u -b 1000.0M" in client
    assert "g5_capture nic-offloads ethtool -K eth0 tso off" in client
    assert "g5_irq_affinity 0" in client
    server = render(s, s.host("server"))
    assert "timeout 123 iperf -s -P 4 -p 5001" in server


def test_every_flow_has_its_own_port(quickstart_text):
    s = specs.loads(multinic(quickstart_text))
    ports = [i.port for w in s.workloads for i in flows.instances(s, s.host("client"), w)]
    assert ports == [5001, 5002, 5003, 5004, 5005]  # stream x2 NICs, latency, stream3 x2 NICs
    assert ports == [i.port for w in s.workloads for i in flows.instances(s, s.host("server"), w)]


def three_hosts(quickstart_text: str, extra: str = "") -> spec.Spec:
    """The quickstart with `replicas = 2` clients (a switch joins them)."""
    return specs.loads(quickstart_text.replace('[hosts.client]\nrole = "client"',
                                              '[hosts.client]\nrole = "client"\nreplicas = 2')
                      .replace('kind = "iperf"', 'kind = "iperf"' + extra, 1))


def test_fan_in_server_runs_one_server_per_client(quickstart_text):
    s = three_hosts(quickstart_text, "\nstreams = 3")
    assert [h.name for h in s.clients_of(s.host("server"))] == ["client-1", "client-2"]
    server = render(s, s.host("server"))
    assert "g5_capture stream.client-1 g5_pin '' timeout 123 iperf -s -P 3 -p 5001 " in server
    assert "g5_capture stream.client-2 g5_pin '' timeout 123 iperf -s -P 3 -p 5002 " in server
    assert "g5_capture stream g5_pin '' iperf -c 10.0.0.1 -P 3 " in render(s, s.host("client-2"))
    assert "-p 5002 " in render(s, s.host("client-2"))


def test_hot_spot_runs_one_netpipe_receiver_per_client(quickstart_text):
    s = three_hosts(quickstart_text)
    server = [l for l in render(s, s.host("server")).splitlines() if "NPtcp" in l]
    assert [l.split()[1] for l in server] == ["latency.client-1", "latency.client-2"]
    assert [l.split("-P ")[-1].split()[0] for l in server] == ["5003", "5004"]
    assert all(l.endswith(" &") for l in server)


def test_direction_receive_and_both(quickstart_text):
    s = specs.loads(quickstart_text.replace('kind = "iperf"', 'kind = "iperf"\ndirection = "receive"', 1))
    assert render(s, s.host("client")).count(" -R") == 1
    s = specs.loads(quickstart_text.replace('kind = "iperf"', 'kind = "iperf"\ndirection = "both"', 1))
    client = [i for i in flows.instances(s, s.host("client"), s.workloads[0])]
    server = [i for i in flows.instances(s, s.host("server"), s.workloads[0])]
    assert [(i.item, i.direction) for i in client] == [("stream.send", "send"), ("stream.receive", "receive")]
    assert [(i.item, i.direction) for i in server] == [("stream.send", "receive"), ("stream.receive", "send")]
    lines = render(s, s.host("client")).splitlines()
    assert [" -R" in l for l in lines if "iperf -c" in l] == [False, True]


def test_instances_are_processes_each_pinned_to_its_own_cpus(quickstart_text):
    text = quickstart_text.replace("cores = 1", "cores = 2").replace(
        'kind = "iperf"', 'kind = "iperf"\ninstances = 2\nclient_cpus = [[0], [1]]', 1)
    s = specs.loads(text)
    client = [l for l in render(s, s.host("client")).splitlines() if "iperf -c" in l]
    assert [l.split()[1:4] for l in client] == [["stream.i0", "g5_pin", "0"], ["stream.i1", "g5_pin", "1"]]


def test_pin_each_puts_each_process_on_its_own_cpu(quickstart_text):
    text = quickstart_text.replace("cores = 1", "cores = 2").replace("mtu = 1500", "mtu = 1500\ncount = 3")
    s = specs.loads(text.replace('kind = "iperf"', 'kind = "iperf"\npin_each = true', 1))
    client = [l.split()[3] for l in render(s, s.host("client")).splitlines() if "iperf -c" in l]
    assert client == ["0", "1", "0"]  # three NICs' processes over two CPUs


def test_a_profiled_client_connects_once_its_server_answers(quickstart_text):
    """The profiler is switched and read outside the region; inside it, each
    client of a profiled workload waits for its server's ready port (its flow's
    port + 30000) before it connects: one answer per client of a fan-in."""
    s = three_hosts(quickstart_text)
    stream = s.workloads[0]
    assert stream.profile
    server = render(s, s.host("server")).splitlines()
    begin = server.index("g5_roi_begin stream")
    assert server[begin - 3:begin - 1] == ["g5_profile_start", "g5_profile_snap stream"]
    assert server[begin + 1:begin + 3] == ["timeout 123 nc -l -p 35001 </dev/null >/dev/null &",
                                           "timeout 123 nc -l -p 35002 </dev/null >/dev/null &"]
    assert "iperf -s" in server[begin + 3]
    end = server.index("g5_roi_end stream")
    assert server[end + 2] == "g5_profile_region stream"
    for client, port in (("client-1", 35001), ("client-2", 35002)):
        lines = render(s, s.host(client)).splitlines()
        begin = lines.index("g5_roi_begin stream stats" if client == "client-1" else "g5_roi_begin stream")
        assert lines[begin + 1].startswith(f"i=0; until nc 10.0.0.1 {port} </dev/null")
        assert "iperf -c" in lines[begin + 2]
    # The unprofiled workloads keep their plain start, with the profiler off.
    assert not any(f"nc -l -p {35000 + n}" in line for line in server for n in range(3, 6))
    assert server.count("g5_profile_start") == 1
    assert server[server.index("# workload latency: netpipe") + 1] == \
        'echo 0 >"$G5_TRACING/function_profile_enabled"'


def test_under_gem5_a_profiled_first_workload_boots_profiled(quickstart_text):
    """Under gem5 the profiler of a spec whose first workload is profiled is on
    from the checkpoint stub, so the job only reads it; a later profiled
    workload switches it on outside its region."""
    s = specs.loads(quickstart_text).with_engine("gem5")
    assert s.workloads[0].profile and job.first_profiled(s)
    assert protocol.checkpoint_stub(True).splitlines()[1] == "g5_profile_start"
    assert "g5_profile_start" not in protocol.checkpoint_stub(False)
    lines = render(s, s.host("server")).splitlines()
    assert "g5_profile_start" not in lines
    assert lines.index("g5_profile_snap stream") < lines.index("g5_roi_begin stream")
    # QEMU has no boot phase to switch it in: its job does.
    assert "g5_profile_start" in render(s.with_engine("qemu"), s.host("server")).splitlines()
    # A profiler still on after the last region is switched off before the
    # results are printed (a profiled kernel writes its console very slowly).
    d = s.to_dict()
    d["workloads"]["latency"]["profile"] = True
    lines = render(specs.from_dict(d), s.host("client")).splitlines()
    assert before_ending("\n".join(lines)).splitlines()[-2:] == [
        "g5_profile_region latency", 'echo 0 >"$G5_TRACING/function_profile_enabled"']


def test_a_udp_client_waits_for_its_bound_server_without_connect_retries(quickstart_text):
    """iperf 2 refuses --connect-retries with -u ("not supported with -u UDP"):
    the server answers on its ready port once /proc/net/udp shows its socket."""
    s = specs.loads(quickstart_text.replace('kind = "iperf"', 'kind = "iperf"\nprotocol = "udp"', 1)
                   .replace('protocol = "tcp"\n', '', 1).replace("msg_bytes = 131072", "msg_bytes = 1470"))
    assert s.workloads[0].protocol == "udp"
    [client] = [l for l in render(s, s.host("client")).splitlines() if "iperf -c" in l]
    [server] = [l for l in render(s, s.host("server")).splitlines() if "iperf -s" in l]
    assert "--connect-retries" not in client and " -u " in client
    assert client.startswith("{ i=0; until nc 10.0.0.1 35001 ")
    assert "grep -q ':1389 ' /proc/net/udp /proc/net/udp6" in server and "nc -l -p 35001" in server
    assert server.index("iperf -s") < server.index("grep -q") < server.index("nc -l")
