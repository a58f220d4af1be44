"""Parsing the guest's /proc snapshots into region-of-interest counters."""
from __future__ import annotations

from g5net.guest.results import parse_snmp

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
