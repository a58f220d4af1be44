"""A workload's flows (client-server process pairs), their ports, and what
one host runs for each (an instance, with its result item's name)."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec import FLOW_PORTS, Host, Spec, Workload
from . import registry

BASE_PORT = FLOW_PORTS[0]


@dataclass(frozen=True)
class Flow:
    """One client-server pair of processes of a workload: the unit that has a
    port of its own, a CPU list of its own and a result of its own."""
    client: Host
    server: Host
    nic: int
    index: int  # of the workload's `instances`
    direction: str  # "send" or "receive", seen from the client


def flows(spec: Spec, w: Workload) -> tuple[Flow, ...]:
    """Every client-server process pair of `w`, in a fixed order (server,
    client, NIC, instance, direction) that ports and CPU lists follow. A
    stream kind loads every NIC; the others (a ping-pong measures one link's
    latency) run over NIC 0."""
    directions = ("send", "receive") if w.direction == "both" else (w.direction,)
    every_nic = registry.kind(w.kind).streams
    out = []
    for server in spec.servers:
        for client in spec.clients_of(server):
            nics = min(client.nic.count, server.nic.count) if every_nic else 1
            out += [Flow(client, server, nic, k, d) for nic in range(nics)
                    for k in range(w.instances) for d in directions]
    return tuple(out)


def flows_of(spec: Spec, host: Host, w: Workload) -> tuple[Flow, ...]:
    """The flows whose client or server `host` is, in `flows` order."""
    return tuple(f for f in flows(spec, w) if host.name in (f.client.name, f.server.name))


def ports(spec: Spec) -> dict[tuple[str, int], int]:
    """(workload, flow index) -> port: every flow of every workload its own, so a
    late server from one workload or flow is never mistaken for another's."""
    out, port = {}, BASE_PORT
    for w in spec.workloads:
        for i in range(len(flows(spec, w))):
            out[(w.name, i)] = port
            port += 1
    return out


# The per-NIC setup steps a job runs before its first workload (job.py), each
# a result item (`g5_capture`) whose outcome results.json keeps under `setup`.
NIC_OFFLOADS = "nic-offloads"
NIC_RPS = "nic-rps"
NIC_RXDCTL = "nic-rxdctl"
SETUP_STEPS = (NIC_OFFLOADS, NIC_RPS, NIC_RXDCTL)


def item(name: str, nic: int) -> str:
    """The result item name of NIC `nic`'s instance of a setup step. NIC 0's is
    the plain name, so single-NIC jobs and results read as they always have."""
    return name if nic == 0 else f"{name}.nic{nic}"


@dataclass(frozen=True)
class Instance:
    """What one host runs for one flow of a workload."""
    flow: Flow
    host: Host
    item: str  # result item name
    port: int
    cpus: list  # taskset list, [] for any CPU

    @property
    def serves(self) -> bool:
        return self.host.name == self.flow.server.name

    @property
    def direction(self) -> str:
        """Which way this host's data goes: the flow's, turned round on the server."""
        if not self.serves:
            return self.flow.direction
        return "receive" if self.flow.direction == "send" else "send"

    @property
    def peer(self) -> Host:
        return self.flow.client if self.serves else self.flow.server


def instances(spec: Spec, host: Host, w: Workload) -> list[Instance]:
    """The processes `host` runs for `w`, one per flow it is part of; the item
    name grows a part for each way its flows differ (client, NIC, instance,
    direction), so a lone flow's result item is the workload's own name."""
    port_of = ports(spec)
    mine = [(i, f) for i, f in enumerate(flows(spec, w)) if host.name in (f.client.name, f.server.name)]
    cpus = w.server_cpus if host.role == "server" else w.client_cpus
    per_flow = any(isinstance(c, list) for c in cpus)
    out = []
    for n, (i, f) in enumerate(mine):
        parts = [w.name]
        if host.name == f.server.name and len(spec.clients_of(f.server)) > 1:
            parts.append(f.client.name)
        if f.nic:
            parts.append(f"nic{f.nic}")
        if w.instances > 1:
            parts.append(f"i{f.index}")
        if w.direction == "both":
            parts.append(f.direction)
        pinned = [n % host.cpu.count] if w.pin_each else cpus[n] if per_flow else cpus
        out.append(Instance(f, host, ".".join(parts), port_of[(w.name, i)], pinned))
    return out
