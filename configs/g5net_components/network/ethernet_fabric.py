"""The Ethernet between hosts: links back to back, or through switches."""

import os

from m5.objects import EtherDump, EtherLink, EtherSwitch, SubSystem


class EthernetFabric(SubSystem):
    """One network per NIC index: every host's n-th NIC is on network n.

    Two hosts are linked back to back; more hosts each get a link to one
    `EtherSwitch` per network. Links have the spec's speed and one-way
    delay; the switch fabric runs at link speed and adds no delay of its own.
    With `pcap_dir`, each network's traffic is written there as a pcap file
    (link<n>.pcap or switch<n>.pcap).
    """

    def __init__(self, hosts_nics: list, speed_gbps: float, delay_us: float,
                 pcap_dir: str | None) -> None:
        super().__init__()
        networks = len(hosts_nics[0])
        if any(len(nics) != networks for nics in hosts_nics):
            raise ValueError("every host needs the same number of NICs")
        speed, delay = f"{speed_gbps:g}Gbps", f"{delay_us:g}us"
        links, switches = [], []
        if pcap_dir:
            kind = "link" if len(hosts_nics) == 2 else "switch"
            # Children of the fabric before links or switches refer to them.
            self.dumps = [EtherDump(file=os.path.join(pcap_dir, f"{kind}{n}.pcap"), maxlen=1514)
                          for n in range(networks)]
        for n in range(networks):
            dump = self.dumps[n] if pcap_dir else None
            if len(hosts_nics) == 2:
                link = EtherLink(speed=speed, delay=delay)
                link.int0 = hosts_nics[0][n].interface
                link.int1 = hosts_nics[1][n].interface
                if dump:
                    link.dump = dump
                links.append(link)
                continue
            switch = EtherSwitch(fabric_speed=speed)
            if dump:
                switch.dump = dump
            switches.append(switch)
            for nics in hosts_nics:
                link = EtherLink(speed=speed, delay=delay)
                link.int0 = nics[n].interface
                link.int1 = switch.interface
                links.append(link)
        self.links = links
        if switches:
            self.switches = switches
