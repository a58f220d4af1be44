"""gem5 config: one process of a per-host run (dist-gem5), a host or the switch.

Run by the gem5 engine (g5net/engines/gem5/dist.py), never by hand:

    gem5.opt --outdir=RUN/m5out/NAME configs/g5net_dist.py RUN/gem5-<phase>-NAME.json

The JSON and the phases are g5net_hosts.py's, each process's JSON also saying
which process it is (its `process`: the host it builds, or the switch; where
the switch listens, SERVER and PORT) and where its checkpoint is (DIR); each
process builds its part of the same system. A host process is one board whose NIC is a `DistEtherLink`
to the switch process; the switch process is an `EtherSwitch` with one
`DistEtherLink` per host, port i paired with the host of rank i (the spec's
host order). The switch listens (from PORT on, printing the port it got);
hosts connect to it. Every process stops at a barrier every
`sync_quantum_us` from simulated time 0, boot included.

- boot: every host runs `m5 checkpoint` once; dist-gem5 checkpoints all
  processes together once every host has (a collective checkpoint), each into
  its own DIR, and every process exits.
- measure: each process restores its DIR; all leave together once every host
  has run `m5 exit` (a collective exit), which returns to the guest meanwhile
  (the job then idles: g5net/guest/job.py).
- describe: as g5net_hosts.py, this process's part only.

Exit status and report as g5net_hosts.py's, per process.
"""

import sys
import time

import m5
from m5.objects import DistEtherLink, EtherDump, EtherSwitch, SubSystem

from g5net.contract import gem5 as contract

import g5net_hosts
from g5net_components import params
from g5net_components.simulation.multi_host_simulation import MultiHostSimulation

# Why m5.simulate() returns in a per-host run (src/dev/net/dist_iface.cc):
# every host asked for the checkpoint or the exit, at the same barrier.
COLLECTIVE_CHECKPOINT = "checkpoint"
COLLECTIVE_EXIT = "exit request from gem5 peers"
TICK_LIMIT = "simulate() limit reached"
# The fabric of a switch that only joins the processes of two hosts back to
# back, which the model has no switch between: a frame crosses it in a few
# ps (src/dev/net/etherswitch.cc charges its length at the fabric's speed),
# where at the link's speed it would add a frame time of its own.
INSTANT = "1Pbps"
# gem5 v24 restores a link's receive queue asserting on state that the link's
# receiver thread sets when it first runs (RecvScheduler::unserialize reads
# recvDone, null until then). init() starts the thread just before the
# checkpoint is loaded, and on a busy machine it had not run yet: gem5.opt
# died of SIGSEGV in every process (gem5.fast skips the assertion). So the
# first link waits this long, once, before it loads its state.
RECEIVER_START_S = 1.0


def _load_state_after_receivers(link, checkpoint) -> None:
    if not _load_state_after_receivers.waited:
        time.sleep(RECEIVER_START_S)
        _load_state_after_receivers.waited = True
    link.getCCObject().loadState(checkpoint)


_load_state_after_receivers.waited = False
DistEtherLink.loadState = _load_state_after_receivers


def _link(run: params.RunParams, host, rank: int, server: str, port: int, switch: bool):
    """The DistEtherLink of `host`'s hop, at the host's end or the switch's."""
    spec = run.spec
    link = spec.link_of(spec.host(host.name))
    return DistEtherLink(
        speed=f"{link.speed_gbps:g}Gbps", delay=f"{spec.hop_delays_us()[host.name]:g}us",
        dist_rank=rank, dist_size=len(run.hosts), num_nodes=len(run.hosts),
        server_name=server, server_port=port, is_switch=switch,
        # Synchronised from the start: the NICs are not silent before the
        # checkpoint (the guests bring their links up while booting).
        sync_start="0s", sync_repeat=f"{spec.sync_quantum_us:g}us")


class Network(SubSystem):
    """This process's Ethernet: its host's end of the hop, or the switch and
    every host's hop at the switch's end."""

    def __init__(self, run: params.RunParams, own, board, server: str, port: int) -> None:
        super().__init__()
        spec = run.spec
        if own is not None:
            self.link = _link(run, own, list(run.hosts).index(own), server, port, switch=False)
            [nic] = board.nics()  # check_spec: one NIC per host
            self.link.int0 = nic.interface
            return
        fastest = max(spec.link_of(h).speed_gbps for h in spec.hosts)
        self.switch = EtherSwitch(fabric_speed=f"{fastest:g}Gbps" if spec.switched else INSTANT,
                                  delay=f"{spec.link.switch_delay_us:g}us")
        if run.config.pcap_dir:
            self.dump = EtherDump(file=f"{run.config.pcap_dir}/switch0.pcap", maxlen=1514)
            self.switch.dump = self.dump
        self.links = [_link(run, h, 0, server, port, switch=True) for h in run.hosts]
        for i, link in enumerate(self.links):
            link.int0 = self.switch.interface[i]


class DistSimulation(MultiHostSimulation):
    """One process of a dist-gem5 run: its events are collective."""

    def run_until_collective(self, wanted: str) -> bool:
        """Simulate until every process is told `wanted` together; False, with
        the reason in the report, on anything else (a peer gone, a guest's
        own m5 exit or fail outside the protocol)."""
        interval = m5.ticks.fromSeconds(contract.PROGRESS_INTERVAL_S)
        while True:
            event = m5.simulate(interval)
            cause = event.getCause()
            if cause == TICK_LIMIT:
                self._write_progress()
                continue
            self.report.exits.append({"cause": cause, "code": event.getCode(), "tick": m5.curTick()})
            if cause == wanted:
                return True
            self.report.reason = f"waiting for '{wanted}', got '{cause}' (code {event.getCode()})"
            return False


def _own_host(run: params.RunParams):
    """The contract.HostConfig this process builds; None for the switch."""
    process = run.config.process
    if process is None:
        raise params.ConfigError("no process: a per-host run's JSON names one")
    own = next((h for h in run.hosts if h.name == process.host), None)
    if process.host is not None and own is None:
        raise params.ConfigError(f"process.host {process.host!r}: no such host")
    return own


def main(argv: list) -> int:
    try:
        run = params.from_argv(argv)
        own = _own_host(run)
    except params.ConfigError as e:
        print(f"g5net config: {e}", file=sys.stderr)
        return contract.ExitStatus.CONFIG_UNUSABLE
    process = run.config.process
    board = g5net_hosts.board(run, own) if own is not None else None
    boards = {own.board: board} if own is not None else {}
    restore = run.config.checkpoint if run.phase is contract.Phase.MEASURE else None
    sim = DistSimulation(run, boards, Network(run, own, board, process.server, process.port),
                         restore_from=restore)
    sim.instantiate()
    if run.phase is contract.Phase.DESCRIBE:
        done = True
    elif run.phase is contract.Phase.BOOT:
        done = sim.run_until_collective(COLLECTIVE_CHECKPOINT)
        if done:
            sim.checkpoint(run.config.checkpoint)
    else:
        done = sim.run_until_collective(COLLECTIVE_EXIT)
    sim.report.completed = done
    sim.write_report()
    return contract.ExitStatus.DONE if done else contract.ExitStatus.HOSTS_UNFINISHED


if __name__ == "__m5_main__":
    sys.exit(int(main(sys.argv)))
