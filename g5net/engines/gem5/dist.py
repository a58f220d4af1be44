"""Per-host processes: each host in a gem5 process of its own, joined by
dist-gem5's switch process (configs/g5net_dist.py).

The switch starts first, beside g5net, and listens on a port it picks from a
free one up, and says which on its log; then one process per host connects
to it, rank i being the spec's i-th host. They are watched as one run and
stopped together (process.supervise). Each process has its own --outdir
and log, which the run directory names (RunDir.process_out, process_log;
the checkpoint's while booting), checkpoint (`cpt/NAME`), and config JSON
(the phase's, beside it as `<phase JSON>-NAME.json`, saying which process
it is and where the switch listens: contract.DistProcess).

Inside a SLURM job (the SLURM runner asks for one task per host), the first
host's process runs beside g5net and the switch, in the job's own task (both
are idle most of the time), and each other host's is a job step of one task
(`srun`) on whichever node of the allocation has room; hosts reach the
switch at the name of the node g5net runs on, on the port it printed.
"""

from __future__ import annotations

import dataclasses
import os
import re
import socket
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from ...contract.gem5 import DistProcess, RunConfig
from ...errors import Gem5Error
from ...machine import atomic, wakeups
from ...machine.local_ports import free_ports
from ...spec import Spec
from .boards import console_file
from .config_files import DIST_CONFIG
from .process import Gem5Process, Gem5Result, Stall, read_text, start, supervise

# The switch process's name: its --outdir, log and checkpoint directory. No
# host can be called so (a spec's names begin with a letter or a digit).
SWITCH = "_switch"
# What gem5's TCPIface prints once the switch listens (src/dev/net/tcp_iface.cc).
_LISTENING = re.compile(r"tcp_iface listening on port (\d+)")
# Starting a gem5 and building its switch takes seconds.
LISTEN_TIMEOUT_S = 120
# Where hosts reach a switch on this machine.
LOCAL = "127.0.0.1"


def tasks(spec: Spec) -> int:
    """SLURM tasks a per-host run needs: one per host (the first shared with
    g5net and the switch)."""
    return len(spec.hosts)


def _slurm_tasks() -> int | None:
    """The tasks of the SLURM job g5net runs in, or None outside one."""
    if "SLURM_JOB_ID" not in os.environ:
        return None
    try:
        return int(os.environ.get("SLURM_NTASKS", "1"))
    except ValueError:
        return 1


def check_spec(spec: Spec) -> None:
    """What per-host processes cannot build, or cannot place; errors name the key."""
    have = _slurm_tasks()
    if have is not None and have < tasks(spec):
        raise Gem5Error(f"experiment.processes: per-host processes of {len(spec.hosts)} hosts need "
                        f"{tasks(spec)} tasks of this SLURM job (one per host), and it has {have} "
                        f"(SLURM_NTASKS): submit with --ntasks={tasks(spec)}, as `g5net sweep "
                        f"--runner slurm` does")
    for h in spec.hosts:
        if h.nic.count != 1:
            raise Gem5Error(f"hosts.{h.name}.nic.count: per-host processes join the hosts through "
                            f"one dist-gem5 switch, one network; {h.nic.count} NICs would need a "
                            f"switch process per network, which g5net does not build yet (use "
                            f"experiment.processes = \"one\")")


class Outputs(Protocol):
    """Where the processes of a phase write: a RunDir, or a Checkpoint being booted."""

    def process_out(self, name: str) -> Path: ...

    def process_log(self, name: str) -> Path: ...


def host_consoles(spec: Spec, out: Outputs, boards: dict[str, str]) -> dict[str, Path]:
    """Host -> the console file its process writes."""
    return {h.name: console_file(out.process_out(h.name), boards[h.name]) for h in spec.hosts}


def _srun(name: str) -> tuple[str, ...]:
    """A job step of one task for a host's gem5, on any node of the job that
    has a CPU free; all of it ends if gem5 fails."""
    return ("srun", "--ntasks=1", "--nodes=1", "--cpus-per-task=1", "--exact",
            "--kill-on-bad-exit=1", "--quiet", f"--job-name=gem5-{name}")


def _listening_port(log: Path, proc, deadline: float) -> int | None:
    """The port the switch process said it listens on; None if it ended or
    the deadline passed first."""
    while time.monotonic() < deadline:
        m = _LISTENING.search(read_text(log))
        if m:
            return int(m.group(1))
        if proc.poll() is not None:
            return None
        time.sleep(0.1)
    return None


def run(binary: Path, spec: Spec, config: Path, out: Outputs, cpt: Path, log: Path, deadline: float,
        boards: dict[str, str], report: Callable[[str], None] = lambda line: None,
        stall: Stall | None = None, extra_args: Sequence[str] = ()) -> Gem5Result:
    """Run one phase of `spec` as per-host processes, each writing where `out`
    says; `log` ends up holding every process's log, one after another. The
    result's log is the first failing process's."""
    in_slurm = _slurm_tasks() is not None
    server = socket.gethostname() if in_slurm else LOCAL
    phase_config = RunConfig.from_json(config.read_text(), str(config))

    def process(name: str, host: str | None, port: int, launcher: tuple[str, ...] = ()) -> Gem5Process:
        own = dataclasses.replace(phase_config, checkpoint=str(cpt / name),
                                  process=DistProcess(host=host, server=server, port=port))
        path = atomic.write_text(config.with_name(f"{config.stem}-{name}.json"), own.to_json())
        return Gem5Process(name, (str(DIST_CONFIG), str(path)), out.process_out(name),
                           out.process_log(name), launcher)

    with wakeups.polling_idle() as idle:
        report(idle)
        # A port free now at every address (hosts on other nodes connect to it);
        # gem5 moves up from it if it is taken by the time it listens.
        switch = process(SWITCH, None, port=free_ports(1)[0])
        running = [(switch, start(binary, switch, extra_args))]
        try:
            port = _listening_port(switch.log, running[0][1], min(deadline, time.monotonic() + LISTEN_TIMEOUT_S))
            if port is None:
                # Supervise what there is: it says why the switch ended, or stops it.
                result = supervise(running, time.monotonic(), {})
            else:
                for rank, h in enumerate(spec.hosts):
                    p = process(h.name, h.name, port=port,
                                launcher=_srun(h.name) if in_slurm and rank else ())
                    running.append((p, start(binary, p, extra_args)))
                result = supervise(running, deadline, host_consoles(spec, out, boards), report, stall)
        except BaseException:
            supervise(running, time.monotonic(), {})  # stops every process started
            raise
    with open(log, "w") as f:
        f.write(f"g5net: {idle}\n")
        for p, _ in running:
            f.write(f"==> {p.log.name} <==\n{read_text(p.log)}\n")
    return result
