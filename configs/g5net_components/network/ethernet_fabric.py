"""The Ethernet between hosts: links back to back, or through switches."""

import os

from m5.objects import EtherDump, EtherLink, EtherSwitch, SubSystem


def _speed(gbps: float) -> str:
    return f"{gbps:g}Gbps"


def _delay(us: float) -> str:
    return f"{us:g}us"


class EthernetFabric(SubSystem):
    """One network per NIC index: every host's n-th NIC is on network n.

    Without `switch`, two hosts are linked back to back by one link of the
    first host's `links` entry (the spec makes both the same). With it, each
    host gets a link of its own (speed Gbit/s, one-way delay us) to one
    `EtherSwitch` per network; the switch forwards after `switch_delay_us`
    and its fabric runs at the fastest link's speed, so that it is never the
    narrowest point. With `pcap_dir`, each network's traffic is written there
    as a pcap file (link<n>.pcap or switch<n>.pcap).
    """

    def __init__(self, hosts_nics: list, links: list, switch: bool, switch_delay_us: float,
                 pcap_dir: str | None) -> None:
        super().__init__()
        networks = len(hosts_nics[0])
        if any(len(nics) != networks for nics in hosts_nics):
            raise ValueError("every host needs the same number of NICs")
        if not switch and len(hosts_nics) != 2:
            raise ValueError("only two hosts can be linked without a switch")
        links_made, switches = [], []
        if pcap_dir:
            kind = "switch" if switch else "link"
            # Children of the fabric before links or switches refer to them.
            self.dumps = [EtherDump(file=os.path.join(pcap_dir, f"{kind}{n}.pcap"), maxlen=1514)
                          for n in range(networks)]
        for n in range(networks):
            dump = self.dumps[n] if pcap_dir else None
            if not switch:
                speed_gbps, delay_us = links[0]
                link = EtherLink(speed=_speed(speed_gbps), delay=_delay(delay_us))
                link.int0 = hosts_nics[0][n].interface
                link.int1 = hosts_nics[1][n].interface
                if dump:
                    link.dump = dump
                links_made.append(link)
                continue
            sw = EtherSwitch(fabric_speed=_speed(max(g for g, _ in links)),
                             delay=_delay(switch_delay_us))
            if dump:
                sw.dump = dump
            switches.append(sw)
            for nics, (speed_gbps, delay_us) in zip(hosts_nics, links):
                link = EtherLink(speed=_speed(speed_gbps), delay=_delay(delay_us))
                link.int0 = nics[n].interface
                link.int1 = sw.interface
                links_made.append(link)
        self.links = links_made
        if switches:
            self.switches = switches
