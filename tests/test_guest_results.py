"""Parsing the guest's /proc snapshots into region-of-interest counters, and
workloads run on several NICs into one result."""
from __future__ import annotations

import json
from pathlib import Path

from g5net.guest.protocol import BEGIN, END
from g5net.metrics import guest
from g5net.workloads.proc import parse_snmp, parse_softnet, roi_deltas
from g5net.workloads.results import extract_block, host_results, workload_errors
from g5net.runs.rundir import RunDir
from g5net.model.specs import from_dict

# /proc/net/snmp as Linux 6.1 prints it, before and after an ICMP port-unreachable arrived:
# the IcmpMsg rows appear only once some ICMP type has been counted.
BEFORE = """\
Ip: Forwarding DefaultTTL InReceives InDelivers OutRequests
Ip: 2 64 10 10 12
Icmp: InMsgs InErrors InDestUnreachs OutMsgs
Icmp: 0 0 0 0
Tcp: RtoAlgorithm ActiveOpens PassiveOpens InSegs OutSegs
Tcp: 1 0 1 8 9
"""
AFTER = """\
Ip: Forwarding DefaultTTL InReceives InDelivers OutRequests
Ip: 2 64 20 19 25
Icmp: InMsgs InErrors InDestUnreachs OutMsgs
Icmp: 1 0 1 0
IcmpMsg: InType3
IcmpMsg: 1
Tcp: RtoAlgorithm ActiveOpens PassiveOpens InSegs OutSegs
Tcp: 1 1 1 16 20
"""


def test_snmp_fields_do_not_depend_on_which_icmp_types_were_seen():
    before, after = parse_snmp(BEFORE), parse_snmp(AFTER)
    assert before.keys() == after.keys()
    assert after["Icmp.InDestUnreachs"] == 1
    assert after["Tcp.OutSegs"] - before["Tcp.OutSegs"] == 11
    assert after["Ip.InDelivers"] == 19


# /proc/net/softnet_stat of a 2-CPU Linux 6.1 guest (net/core/net-procfs.c):
# processed, dropped, time_squeeze, six zeros, cpu_collision, received_rps,
# flow_limit_count, backlog length, CPU index; in hexadecimal.
SOFTNET = ("0000a5f0 00000000 00000011 00000000 00000000 00000000 00000000 00000000 "
           "00000000 00000000 00000000 00000000 00000000 00000000\n"
           "00001000 0000002a 00000003 00000000 00000000 00000000 00000000 00000000 "
           "00000000 00000000 00000777 00000000 00000000 00000001\n")


def test_softnet_counts_are_hexadecimal_and_summed_over_cpus():
    assert parse_softnet(SOFTNET) == {"processed": 0xa5f0 + 0x1000, "dropped": 0x2a,
                                      "time_squeeze": 0x11 + 3}


# The server of a real gem5 stream (g5_snapshot's seven files before and after it).
WHOLE_LIFE = RunDir(Path(__file__).parent / "fixtures" / "gem5-whole-life")


def _server_items() -> dict[str, str]:
    return extract_block(WHOLE_LIFE.console("server").read_text())["items"]


def _with(netstat: str, field: str, value: int) -> str:
    """`netstat` with TcpExt's `field` set to `value`."""
    lines = netstat.splitlines()
    names = lines[0].split()
    values = lines[1].split()
    values[names.index(field)] = str(value)
    return "\n".join([lines[0], " ".join(values), *lines[2:]]) + "\n"


def test_a_real_streams_snapshots_give_the_stacks_counters_and_no_drops():
    roi = roi_deltas(_server_items(), "stream")
    assert roi["netstat"]["TcpExt.TCPRcvCoalesce"] == 4 and roi["netstat"]["TcpExt.TCPBacklogCoalesce"] == 1
    # IP saw every packet but one (the ARP); NET_RX handed the stack 473
    # of them, GRO having merged the rest.
    assert roi["netstat"]["IpExt.InNoECTPkts"] == roi["rx_packets"] - 1 == 11799
    assert roi["softnet_stat"] == {"processed": 473, "dropped": 0, "time_squeeze": 0}
    assert guest.region(roi)["stack_drops"] == 0


def test_drops_below_the_nic_are_the_backlogs_and_tcps_receive_drops():
    items = _server_items()
    after = items["stream.after.netstat"]
    for field, n in [("TCPBacklogDrop", 2), ("TCPOFODrop", 1), ("TCPRcvQDrop", 2), ("PruneCalled", 4)]:
        after = _with(after, field, n)
    items["stream.after.netstat"] = after
    processed, dropped, rest = items["stream.after.softnet_stat"].split(" ", 2)
    assert dropped == "00000000"
    items["stream.after.softnet_stat"] = f"{processed} 00000003 {rest}"
    # PruneCalled is a pruning, not a drop.
    assert guest.region(roi_deltas(items, "stream"))["stack_drops"] == 3 + 2 + 1 + 2


def test_snapshots_without_netstat_have_no_stack_drop_figure():
    """Windows recorded before g5_window_snap read /proc/net/netstat keep their figures."""
    items = {k: v for k, v in _server_items().items() if not k.endswith(("netstat", "softnet_stat"))}
    roi = roi_deltas(items, "stream")
    assert "netstat" not in roi and guest.region(roi)["stack_drops"] is None


# ------------------------------------------------------------ several NICs

FIXTURE = RunDir(Path(__file__).parent / "fixtures" / "gem5-quickstart")
# iperf 2's CSV line for a 4 MB transfer at 1 Gbit/s.
NIC1_STREAM = "19700101000000,10.0.1.2,40000,10.0.1.1,5001,1,0.0-0.0,4000000,1000000000\n"


def two_nic_client(nic1_items: dict[str, str]) -> dict:
    """The gem5 fixture's client workloads as if its hosts had two NICs and the
    stream's second instance had left `nic1_items`."""
    return two_nic_client_results(nic1_items)["workloads"]


def two_nic_client_results(nic1_items: dict[str, str]) -> dict:
    """The whole of the client's results, as two_nic_client's."""
    d = json.loads(FIXTURE.spec_json.read_text())
    for h in d["hosts"].values():
        h["nic"]["count"] = 2
    s = from_dict(d)
    block = extract_block(FIXTURE.console("client").read_text())
    block["items"].update(nic1_items)
    console = f"{BEGIN}\n{json.dumps(block)}\n{END}\n"
    return host_results(console, s, s.host("client"))


def test_a_stream_on_two_nics_sums_them_and_keeps_each():
    w = two_nic_client({"stream.nic1.out": NIC1_STREAM, "stream.nic1.err": "",
                           "stream.nic1.rc": "0\n"})
    stream = w["stream"]
    assert "error" not in stream
    assert [p["nic"] for p in stream["instances"]] == [0, 1]
    nic0, nic1 = (p["throughput_mbps"] for p in stream["instances"])
    # NIC 0's figure is the fixture's own single-NIC result.
    single = json.loads(FIXTURE.results_json.read_text())["client"]["workloads"]["stream"]
    assert nic0 == single["throughput_mbps"] and nic1 == 1000.0
    assert stream["throughput_mbps"] == nic0 + nic1
    assert stream["bytes"] == 8_000_000 and stream["streams"] == 2 and stream["rc"] == 0
    assert stream["sent_mbps"] == stream["throughput_mbps"] and stream["received_mbps"] == 0
    # NetPIPE ran over NIC 0 alone.
    assert "instances" not in w["latency"] and w["latency"]["latency_us"] > 0


def test_a_failed_nic_fails_the_workload_and_says_which():
    w = two_nic_client({"stream.nic1.out": "", "stream.nic1.err": "connect failed\n",
                           "stream.nic1.rc": "1\n"})
    stream = w["stream"]
    assert stream["rc"] == 1 and "throughput_mbps" not in stream
    assert stream["error"] == "stream.nic1: exit status 1: connect failed"
    assert stream["instances"][0]["throughput_mbps"] > 0
    assert workload_errors({"client": {"workloads": w}}) == [
        "client/stream: stream.nic1: exit status 1: connect failed"]


def test_setup_steps_are_kept_and_a_failed_one_fails_the_run():
    ok = {"stream.nic1.out": NIC1_STREAM, "stream.nic1.err": "", "stream.nic1.rc": "0\n"}
    r = two_nic_client_results({**ok, "nic-rxdctl.out": "0x013f0000\n", "nic-rxdctl.err": "",
                                "nic-rxdctl.rc": "0\n", "nic-rxdctl.nic1.out": "",
                                "nic-rxdctl.nic1.err": "/sys/class/net/eth1/device/resource0: "
                                                       "No such file or directory\n",
                                "nic-rxdctl.nic1.rc": "1\n"})
    assert r["setup"] == {
        "nic-rxdctl": {"rc": 0, "out": "0x013f0000"},
        "nic-rxdctl.nic1": {"rc": 1, "out": "",
                            "err": "/sys/class/net/eth1/device/resource0: No such file or directory"}}
    assert "error" not in r["workloads"]["stream"]
    assert workload_errors({"client": r}) == [
        "client/setup nic-rxdctl.nic1: exit status 1: /sys/class/net/eth1/device/resource0: "
        "No such file or directory"]
    # A job without setup steps has no setup entry (the committed results read as before).
    assert "setup" not in two_nic_client_results(ok)
