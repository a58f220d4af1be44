"""NetPIPE 3.7.2 over MPI (NPopenmpi, Open MPI 4.1.4): the client's mpirun
starts rank 1 on the server through g5_rsh_listen (the guests have no ssh)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import SpecError
from ...spec import Spec, Workload
from ..shell import CLIENT_RETRY_S, SERVER_GRACE_S, cpu_list, pinned, quote
from .netpipe import Netpipe, sizes_args, table_path

if TYPE_CHECKING:
    from ..flows import Instance

# Both ranks' bound (guest seconds): a hung launch must not stall the job.
LIMIT_S = SERVER_GRACE_S * 2
# Open MPI in the guest: every rank over TCP on NIC 0's network, one rank per
# host, no binding (the spec's CPU lists pin), and /g5net/g5rsh for ssh.
MPI_ARGS = ["--allow-run-as-root", "-np", 2, "--map-by", "node", "--bind-to", "none",
            "--mca", "plm_rsh_agent", "/g5net/g5rsh", "--mca", "plm_rsh_no_tree_spawn", 1,
            "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "eth0",
            "--mca", "oob_tcp_if_include", "eth0"]


class Mpi(Netpipe):
    name = "mpi"

    def check(self, spec: Spec, w: Workload, key: str) -> None:
        super().check(spec, w, key)
        # NetPIPE's MPI build ping-pongs between exactly two ranks: one server, one client.
        for server in spec.servers:
            clients = spec.clients_of(server)
            if len(clients) != 1:
                raise SpecError(f"{key}.kind: mpi runs two ranks, one client and its server, but "
                                f"hosts.{server.name} serves {len(clients)} clients "
                                f"({', '.join(c.name for c in clients) or 'none'}); give each server "
                                f"one client, or use netpipe for a hot-spot")

    def command(self, w: Workload, inst: Instance) -> str:
        if inst.serves:
            # Rank 1: started by the client's mpirun through this one-command listener.
            return f"g5_capture {inst.item} g5_rsh_listen {quote([cpu_list(inst.cpus), inst.port, LIMIT_S])}"
        # Rank 0 (mpirun's own host, listed first) transmits and writes the table.
        hosts = f"{inst.host.nic_ip(0)},{inst.peer.nic_ip(0)}"
        cmd = (["timeout", LIMIT_S, "env", f"G5_RSH_PORT={inst.port}", f"G5_RSH_WAIT_S={CLIENT_RETRY_S}",
                "orterun", "--host", hosts] + MPI_ARGS + ["NPopenmpi", "-o", table_path(inst)]
               + sizes_args(w))
        return f"g5_capture {inst.item} {pinned(inst, cmd)}"


KIND = Mpi()
