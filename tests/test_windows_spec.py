"""Windows inside a running stream (experiment.windows): what the spec refuses,
naming the key, the job each engine renders for them (workloads/windows.py),
and what a workload after the windowed stream reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from g5net.errors import SpecError
from g5net.metrics import derive as run_metrics
from g5net.model import identity
from g5net.model import specs
from g5net.runs.rundir import RunDir
from g5net.workloads import windows
from test_job import before_ending, render

FIXTURES = Path(__file__).resolve().parent / "fixtures"

BASE = """
[experiment]
name = "windows"
engine = "ENGINE"
windows = 8
window_ms = 5
warmup_ms = 10
[hosts.server]
role = "server"
[hosts.client]
role = "client"
[workloads.stream]
kind = "iperf"
duration_s = 0.055
"""


# A NetPIPE latency workload, to follow the windowed stream.
NETPIPE = """
[workloads.latency]
kind = "netpipe"
max_bytes = 1024
"""


def windowed(engine: str = "gem5", **replace: str) -> str:
    text = BASE.replace("ENGINE", engine)
    for old, new in replace.items():
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("text, key, words", [
    (windowed(**{"windows = 8": "windows = 1"}), "experiment.windows", "no spread"),
    (windowed(**{"window_ms = 5": "window_ms = 0"}), "experiment.window_ms", "measure nothing"),
    (windowed(**{"warmup_ms = 10": "warmup_ms = 4"}), "experiment.warmup_ms", "shorter than a window"),
    # Warm-up, 8 windows and one more: 55 ms; a stream of 54 ends inside the last.
    (windowed(**{"duration_s = 0.055": "duration_s = 0.054"}), "workloads.stream.duration_s",
     "ends before the windows do"),
    # Warm-up past the end of the workload.
    (windowed(**{"warmup_ms = 10": "warmup_ms = 100"}), "workloads.stream.duration_s", "= 145 ms"),
    (windowed(**{"duration_s = 0.055": "bytes = 4000000"}), "workloads.stream.bytes", "for a time"),
    (windowed(**{'kind = "iperf"\nduration_s = 0.055': 'kind = "netpipe"'}), "workloads.stream.kind",
     "no stream"),
    (windowed(**{"duration_s = 0.055": "duration_s = 0.055\nprofile = true"}),
     "workloads.stream.profile", "pc_sample_us"),
    (windowed(**{'kind = "iperf"': 'kind = "iperf3"'}), "workloads.stream.kind", "use iperf"),
    (windowed(**{'name = "windows"': 'name = "windows"\nprocesses = "per-host"'}) + "[link]\ndelay_us = 1\n",
     "experiment.windows", "per-host"),
    # Two streams' windows would mix: the message names both.
    (windowed() + '[workloads.other]\nkind = "iperf"\nduration_s = 0.055\n', "experiment.windows",
     "workloads.stream and workloads.other are streams"),
    (windowed() + '[workloads.other]\nkind = "iperf"\nduration_s = 0.055\nprotocol = "udp"\nmsg_bytes = 1470\n',
     "experiment.windows", "a second stream's windows would mix"),
    # A UDP stream is a stream like any other: by time, long enough.
    (windowed(**{"duration_s = 0.055": 'bytes = 4000000\nprotocol = "udp"\nmsg_bytes = 1470'}),
     "workloads.stream.bytes", "for a time"),
    (windowed(**{"duration_s = 0.055": 'duration_s = 0.05\nprotocol = "udp"\nmsg_bytes = 1470'}),
     "workloads.stream.duration_s", "ends before the windows do"),
    # Its message is a datagram (iperf -l), which IPv4 holds to 65,507 bytes.
    (windowed(**{"duration_s = 0.055": 'duration_s = 0.055\nprotocol = "udp"\nmsg_bytes = 65508'}),
     "workloads.stream.msg_bytes", "more than a UDP datagram carries over IPv4 (65507 bytes)"),
    # NetPIPE runs after the windowed stream, never before it, nor after
    # sampled windows, which end inside the stream.
    (NETPIPE + windowed(), "workloads.latency.kind", "lists it before; list it after workloads.stream"),
    (windowed("gem5", **{'name = "windows"': 'name = "windows"\nwindow_method = "sampled"',
                         "duration_s = 0.055": "duration_s = 0.11"}) + NETPIPE,
     "workloads.latency.kind", "no process runs a workload after it"),
    (windowed() + '[workloads.web]\nkind = "web"\n', "workloads.web.kind", "web is no stream"),
    (windowed() + NETPIPE + '[workloads.other]\nkind = "iperf"\nduration_s = 0.055\n',
     "experiment.windows", "workloads.stream and workloads.other"),
])
def test_windows_a_run_cannot_hold_are_refused_by_name(text: str, key: str, words: str):
    with pytest.raises(SpecError, match=rf"^{re.escape(key)}: .*{re.escape(words)}"):
        specs.loads(text)


def test_a_spec_without_windows_keeps_its_run_id():
    """Its windows' keys at any value count for nothing without windows."""
    plain = specs.loads(windowed(**{"windows = 8": "windows = 0"}))
    other = specs.loads(windowed(**{"windows = 8": "windows = 0", "window_ms = 5": "window_ms = 7"}))
    before = specs.loads(windowed(**{"windows = 8\nwindow_ms = 5\nwarmup_ms = 10\n": ""}))
    assert identity.spec_digest(plain) == identity.spec_digest(other) == identity.spec_digest(before)
    assert identity.spec_digest(specs.loads(windowed())) != identity.spec_digest(plain)


# The line that finds a client's iperf before its stream starts (windows._pids).
PIDS = "i=0; until set -- $(pidof iperf); [ $# -ge 1 ] || [ $i -ge 120000 ]; do i=$((i + 1)); sleep 0.001; done; g5_stop=\"$*\""


def _region(job: str) -> list[str]:
    """The windowed stream's lines of `job`, up to its ending."""
    return before_ending(job).split("# workload stream: iperf, 8 windows of 5 ms after 10 ms of warm-up\n")[1] \
        .splitlines()


def test_gem5_arms_every_window_with_one_call_once_its_stream_is_connected():
    s = specs.loads(windowed())
    client, server = _region(render(s, s.host("client"))), _region(render(s, s.host("server")))
    # Binaries in the page cache; the client starts once its server listens;
    # each host waits for its flow to connect; then one periodic dump (10 ms,
    # then every 5 ms) on the host that frames regions.
    assert client[0] == server[0] == "iperf -v >/dev/null 2>&1"
    assert client[1].startswith("i=0; until nc 10.0.0.1 35001")
    assert client[2].startswith("g5_capture stream ") and client[2].endswith(" &")
    # The client finds its iperf's PID while the flow connects, for the stop.
    assert client[3] == PIDS
    assert client[4].startswith("i=0; until grep -qE ' [0-9A-F]+:1389 01 ' /proc/net/tcp")
    assert client[5] == "g5_windows_arm 10000000 5000000"
    assert not any("g5_windows_arm" in line for line in server)
    assert server[1].startswith("g5_capture stream ") and server[1].endswith(" &")
    assert server[2].startswith("i=0; until grep -qE ':1389 [0-9A-F]+:0000 0A ' /proc/net/tcp")
    assert server[3] == "timeout 120 nc -l -p 35001 </dev/null >/dev/null"
    assert server[4].startswith("i=0; until grep -qE ':1389 [0-9A-F]+:[0-9A-F]{4} 01 '")
    # Each host snapshots its counters as the warm-up begins and after the
    # last window, and sleeps through the windows; the client stops iperf,
    # which reports, just before that last snapshot, and its server ends with it.
    assert client[-5:] == ["g5_window_snap stream.w0", "sleep 0.0501", "kill -INT $g5_stop",
                           "g5_window_snap stream.w8", "wait"]
    assert server[-3:] == ["g5_window_snap stream.w0", "wait", "g5_window_snap stream.w8"]
    assert "g5_window_snap()" in render(s, s.host("client"))


def test_qemu_snapshots_every_window_edge_and_stops_once_the_server_has():
    """Each guest times its windows by its own clock, and two guests' clocks
    drift apart: a client stops its flows only once its server, after its
    own last snapshot, answers on the ready port."""
    s = specs.loads(windowed("qemu"))
    edges = ["sleep 0.01", "g5_window_snap stream.w0", "k=1", "while [ $k -le 8 ]; do",
             "\tsleep 0.005", "\tg5_window_snap stream.w$k", "\tk=$((k + 1))", "done"]
    client, server = _region(render(s, s.host("client"))), _region(render(s, s.host("server")))
    assert not any("g5_windows_arm" in line for line in client + server)
    assert client[-11:-3] == server[-10:-2] == edges
    assert client[-3].startswith("i=0; until nc 10.0.0.1 35001 ")
    assert client[-2:] == ["kill -INT $g5_stop", "wait"]
    assert server[-2:] == ["timeout 120 nc -l -p 35001 </dev/null >/dev/null &", "wait"]
    assert windows.snapshot("stream", 3) == "stream.w3.proc"


def test_the_warm_up_counts_from_the_last_connection_of_several_streams():
    s = specs.loads(windowed(**{"duration_s = 0.055": "duration_s = 0.055\nstreams = 2"}))
    client = _region(render(s, s.host("client")))
    assert client[4].startswith("i=0; until [ \"$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | "
                                "grep -cE ' [0-9A-F]+:1389 01 ')\" -ge 2 ]")


def test_a_udp_stream_waits_for_its_flows_in_proc_net_udp_and_keeps_its_own_handshake():
    """iperf 2 connect()s a UDP flow's sockets (the server's on the first
    datagram), so each host waits for state 01 in /proc/net/udp; the kind's
    own ready handshake, inside its command, is the only one."""
    s = specs.loads(windowed(**{"duration_s = 0.055": 'duration_s = 0.055\nprotocol = "udp"\nmsg_bytes = 1470'}))
    client, server = _region(render(s, s.host("client"))), _region(render(s, s.host("server")))
    assert client[0] == server[0] == "iperf -v >/dev/null 2>&1"
    assert client[1].startswith("{ i=0; until nc 10.0.0.1 35001 ") and " iperf -c 10.0.0.1 " in client[1]
    assert client[1].endswith(" -u -b 1000.0M; } &")
    assert client[2] == PIDS
    assert client[3] == ("i=0; until grep -qE ' [0-9A-F]+:1389 01 ' /proc/net/udp /proc/net/udp6 2>/dev/null "
                         "|| [ $i -ge 120000 ]; do i=$((i + 1)); sleep 0.001; done")
    assert client[4] == "g5_windows_arm 10000000 5000000"
    assert server[1].startswith("{ g5_capture stream ") and server[1].endswith("; wait $p; } &")
    assert "grep -q ':1389 ' /proc/net/udp /proc/net/udp6" in server[1] and "nc -l -p 35001 " in server[1]
    assert server[3].startswith("i=0; until grep -qE ':1389 [0-9A-F]+:[0-9A-F]{4} 01 ' /proc/net/udp /proc/net/udp6 ")
    # One handshake each, no TCP listening wait; the client stopped as a TCP
    # stream's is. The server too, found while its flow connects, but two
    # windows after its own span (10 + 10 x 5 ms): by then every client has
    # stopped, and a server whose client's last datagram arrived has ended.
    assert sum("35001" in line for line in client) == sum("35001" in line for line in server) == 1
    assert not any("/proc/net/tcp" in line for line in client + server)
    assert client[-5:] == ["g5_window_snap stream.w0", "sleep 0.0501", "kill -INT $g5_stop",
                           "g5_window_snap stream.w8", "wait"]
    assert server[2] == PIDS
    assert server[-5:] == ["g5_window_snap stream.w0", "sleep 0.0601", "kill -INT $g5_stop 2>/dev/null",
                           "wait", "g5_window_snap stream.w8"]
    # Under QEMU a client stops as soon as its server says its last window is
    # over: the server is stopped one window after that.
    q = specs.loads(windowed("qemu", **{"duration_s = 0.055": 'duration_s = 0.055\nprotocol = "udp"\nmsg_bytes = 1470'}))
    assert _region(render(q, q.host("server")))[-4:] == [
        "timeout 120 nc -l -p 35001 </dev/null >/dev/null &", "sleep 0.005",
        "kill -INT $g5_stop 2>/dev/null", "wait"]


def test_a_udp_stream_over_two_nics_waits_for_every_flow():
    """The multi-NIC study's shape: a process per NIC and instance, each
    pinned to its own CPU; each host waits for all four flows, in one loop
    (one grep a poll, not one loop a flow), before its clock starts."""
    s = specs.loads(windowed("qemu", **{
        "duration_s = 0.055": 'duration_s = 0.055\nprotocol = "udp"\nmsg_bytes = 1470\ninstances = 2\npin_each = true',
        '[hosts.server]': '[host.cpu]\ncores = 2\n[host.nic]\ncount = 2\n[hosts.server]'}))
    for host, pattern in (("client", " [0-9A-F]+:{port} 01 "), ("server", ":{port} [0-9A-F]+:[0-9A-F]{{4}} 01 ")):
        lines = _region(render(s, s.host(host)))
        starts = [line for line in lines if line.startswith("{ ") and line.endswith(" &")]
        assert [line.split(" g5_pin ")[1].split()[0] for line in starts] == ["0", "1", "0", "1"]
        waits = [line for line in lines if "/proc/net/udp " in line and line.startswith("i=0;")]
        flows = pattern.format(port="(1389|138A|138B|138C)")
        assert waits == [f"i=0; until [ \"$(cat /proc/net/udp /proc/net/udp6 2>/dev/null | grep -cE '{flows}')\" "
                         f"-ge 4 ] || [ $i -ge 120000 ]; do i=$((i + 1)); sleep 0.001; done"]
        assert lines.index(waits[-1]) < lines.index("g5_window_snap stream.w0")


def test_many_connections_wait_in_one_loop_and_shake_hands_once_a_pair_of_hosts():
    """The Niagara 2 study's shape, 4 instances of 2 connections each, and a
    second client host: the server waits for its 8 listening ports in one
    loop and answers one ready handshake per client host (on that host's
    first port), each client waits for one answer, and each host counts every
    connection of its flows in one loop."""
    s = specs.loads(windowed(**{
        "duration_s = 0.055": "duration_s = 0.055\ninstances = 4\nstreams = 2",
        "[hosts.client]\nrole = \"client\"": '[hosts.client]\nrole = "client"\nreplicas = 2'}))
    server = _region(render(s, s.host("server")))
    waits = [line for line in server if line.startswith("i=0;")]
    assert len(waits) == 2 and "0A ')\" -ge 8 ]" in waits[0] and "01 ')\" -ge 16 ]" in waits[1]
    answers = [line for line in server if " nc -l -p " in line]
    assert [a.split(" nc -l -p ")[1].split()[0] for a in answers] == ["35001", "35005"]
    for client, port in (("client-1", "35001"), ("client-2", "35005")):
        lines = _region(render(s, s.host(client)))
        assert [line for line in lines if " nc 10.0.0.1 " in line] == [
            f"i=0; until nc 10.0.0.1 {port} </dev/null >/dev/null 2>&1 || [ $i -ge 120000 ]; "
            f"do i=$((i + 1)); sleep 0.001; done"]
        [connected] = [line for line in lines if "/proc/net/tcp " in line]
        assert "01 ')\" -ge 8 ]" in connected


@pytest.mark.parametrize("engine", ["gem5", "qemu"])
def test_netpipe_after_a_windowed_stream_is_a_region_of_its_own_without_a_stats_dump(engine: str):
    """The stream's lines are those of the stream alone; NetPIPE then runs its
    whole life as its own region, with no gem5 stats call: gem5 goes on
    dumping the windows' statistics until the run ends."""
    alone, both = specs.loads(windowed(engine)), specs.loads(windowed(engine) + NETPIPE)
    for host in ("client", "server"):
        head, mark, tail = before_ending(render(both, both.host(host))).partition(
            "# workload latency: netpipe, its whole life after the windows, its figures the guest's\n")
        assert mark and head == before_ending(render(alone, alone.host(host)))
        lines = tail.splitlines()
        assert lines[:2] == ['cat /proc/uptime > "$G5_OUT/latency.uptime.before"', "g5_roi_begin latency"]
        assert "NPtcp" in lines[2] and "-P 5002" in lines[2]
        assert lines[3:] == ["g5_roi_end latency", 'cat /proc/uptime > "$G5_OUT/latency.uptime.after"']


def test_specs_the_studies_need_are_accepted():
    udp = windowed(**{"duration_s = 0.055": 'duration_s = 0.055\nprotocol = "udp"\nmsg_bytes = 1470\ninstances = 2\npin_each = true',
                      '[hosts.server]': '[host.cpu]\ncores = 2\n[host.nic]\ncount = 3\n[hosts.server]'})
    assert specs.loads(udp).workloads[0].protocol == "udp"
    mpi = NETPIPE.replace("latency", "mpi").replace('"netpipe"', '"mpi"')
    assert [w.kind for w in specs.loads(windowed("qemu") + NETPIPE + mpi).workloads] == ["iperf", "netpipe", "mpi"]
    # A profiled NetPIPE is a whole life, which the profiler reads.
    assert specs.loads(windowed() + NETPIPE + "profile = true\n").workloads[1].profile


def test_netpipe_after_windows_takes_no_gem5_counters_from_the_windows_dumps(tmp_path):
    """The steady-state fixture's run with a NetPIPE workload after its stream,
    and two more of gem5's periodic dumps in stats.txt, as the windows' dumps
    go on while NetPIPE runs: the stream's metrics are the fixture's, and
    NetPIPE's are its own and the guest's, none of gem5's."""
    fixture = RunDir(FIXTURES / "gem5-steady-state")
    d = json.loads(fixture.spec_json.read_text())
    d["workloads"]["latency"] = {"kind": "netpipe", "max_bytes": 1024}
    s = specs.from_dict(d)
    rd = RunDir(tmp_path)
    rd.m5out.mkdir()
    text = fixture.stats_txt.read_text()
    last = text[text.rindex("\n---------- Begin Simulation Statistics ----------") + 1:]
    rd.stats_txt.write_text(text + last + last)
    rd.config_ini.write_bytes(fixture.config_ini.read_bytes())  # the boards' cache line (dma_received_mbps)
    results = json.loads(fixture.results_json.read_text())
    for host, r in results.items():
        roi = r["workloads"]["stream"]["roi"]
        r["workloads"]["latency"] = {"kind": "netpipe", "rc": 0, "roi": roi,
                                     **({"latency_us": 31.5, "peak_mbps": 120.0} if host == "client" else {})}
    got = run_metrics.compute(s, results, rd, fixture.read_run()["boards"])
    made = json.loads(fixture.metrics_json.read_text())
    for host in ("client", "server"):
        assert got["hosts"][host]["stream"] == made["hosts"][host]["stream"]
        latency = got["hosts"][host]["latency"]
        assert not {"insts", "gem5_packets", "nic_rx_pkts", "cpu_busy_s", "n_windows"} & set(latency)
        assert latency["elapsed_s"] == results[host]["workloads"]["stream"]["roi"]["elapsed_s"]
    assert got["hosts"]["client"]["latency"]["latency_us"] == 31.5
