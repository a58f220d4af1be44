"""The job script a guest runs: the spec's workloads as `/g5net/lib.sh` calls.

Each workload is one region of interest (ROI) with its own `/proc` snapshots
(and, under gem5, its own stats dump). Servers wait a bounded time for their
client; clients retry until their server listens. Ports are per workload so a
late server from one workload is never mistaken for the next. What depends on
the engine (which hosts dump gem5's stats, a profiler on from boot, a job that
ends the run itself) is the caller's to say.
"""

from __future__ import annotations

import shlex

from ..guest.protocol import BEGIN, END
from ..spec import E1000_WTHRESH, REPEAT_START_US, Host, Spec, Workload
from . import profiler, ready, registry, windows
from .flows import NIC_OFFLOADS, NIC_RPS, NIC_RXDCTL, Instance, instances, item
from .kind import WorkloadKind
from .shell import cpu_list, cpu_mask, quote


def _run(kind: WorkloadKind, w: Workload, insts: list[Instance]) -> list[str]:
    lines = [kind.command(w, inst) for inst in insts]
    if len(lines) == 1:
        return lines
    # Every instance at once, and the region ends when the last one does.
    return [f"{line} &" for line in lines] + ["wait"]


def _cpu_setup(host: Host) -> list[str]:
    """CPUs past online_cpus go offline before the first workload."""
    if not host.online_cpus or host.online_cpus == host.cpu.count:
        return []
    cpus = " ".join(str(c) for c in range(host.online_cpus, host.cpu.count))
    return [f"for c in {cpus}; do echo 0 >/sys/devices/system/cpu/cpu$c/online; done"]


# The e1000's receive descriptor control register and its WTHRESH field
# (drivers/net/ethernet/intel/e1000/e1000_hw.h: E1000_RXDCTL, E1000_RXDCTL_WTHRESH).
RXDCTL = 0x2828
WTHRESH_SHIFT = 16


def _nic_setup(host: Host) -> list[str]:
    feats = []
    for feat, on in sorted(host.nic.offloads.items()):
        feats += [feat, "on" if on else "off"]
    cpus = shlex.quote(cpu_list(host.nic.irq_cpus))
    lines = []
    for nic in range(host.nic.count):
        dev = f"eth{nic}"
        if feats:
            lines.append(f"g5_capture {item(NIC_OFFLOADS, nic)} ethtool -K {dev} {quote(feats)}")
        if host.nic.rx_wthresh != E1000_WTHRESH[0]:
            # What the register holds afterwards is the result item.
            lines.append(f"g5_capture {item(NIC_RXDCTL, nic)} nicreg {dev} {RXDCTL:#x} "
                         f"{host.nic.rx_wthresh << WTHRESH_SHIFT:#x} "
                         f"{E1000_WTHRESH[1] << WTHRESH_SHIFT:#x}")
        if host.nic.txqueuelen:
            lines.append(f"ip link set {dev} txqueuelen {host.nic.txqueuelen}")
        if host.nic.irq_cpus:
            # g5_irq_affinity's device defaults to eth0.
            lines.append(f"g5_irq_affinity {cpus}" + (f" {dev}" if nic else ""))
        if host.nic.rps_cpus:
            # The kernel's reading of the mask is the result item: what it took.
            rps = f"/sys/class/net/{dev}/queues/rx-0/rps_cpus"
            lines.append(f"g5_capture {item(NIC_RPS, nic)} sh -c "
                         + shlex.quote(f"echo {cpu_mask(host.nic.rps_cpus)} >{rps} && cat {rps}"))
    return lines


def first_profiled(spec: Spec) -> bool:
    """Whether the first workload is profiled: an engine that can switch the
    profiler on during the boot (gem5, on the boot's fast CPU, before its
    checkpoint: protocol.checkpoint_stub) does, and renders the jobs with
    `profiler_at_boot`."""
    return bool(spec.workloads) and spec.workloads[0].profile


def stats_host(spec: Spec) -> Host:
    """The host that brackets each region of interest with gem5's stats reset
    and dump where one host does: the first client, whose workload start and
    end frame the region. gem5 keeps one set of statistics for every host of
    one process; with per-host processes each process keeps its own, and every
    host dumps them (stats/merge.py joins them, this host's region framing the
    whole)."""
    return next((h for h in spec.hosts if h.role == "client"), spec.hosts[0])


def render(spec: Spec, host: Host, *, dumps_stats: bool, profiler_at_boot: bool = False,
           ends_run: bool = False, guest_windows: bool = False) -> str:
    """The job script for one host, as text. `dumps_stats`: the host resets
    and dumps gem5's stats around each region (or arms each window's dump);
    `profiler_at_boot`: the guest booted with the function profiler on;
    `ends_run`: the job prints the results and ends the run itself, as g5init
    would (_ending); `guest_windows`: with experiment.windows, the guest
    snapshots its counters at every window's edge (an engine without stats
    dumps), else around the windows only (windows.py)."""
    # A workload after a windowed stream takes no dump of its own: gem5 goes
    # on taking the windows' dumps (windows.py), and its own could not be
    # told from those.
    stats = " stats" if dumps_stats and not spec.experiment.windows else ""
    lines = [
        f"# g5net job for host {host.name} ({host.role}) of {spec.experiment.name};",
        "# generated from the experiment spec, run by /sbin/g5init with /g5net/lib.sh sourced.",
    ]
    lines += _cpu_setup(host) + _nic_setup(host)
    profiling = profiler_at_boot
    if any(w.profile for w in spec.workloads):
        lines.append(profiler.functions())
    if spec.experiment.windows:
        lines.append(windows.functions())
    lines += _perturbation(spec.experiment.repeat)
    for w in spec.workloads:
        kind = registry.kind(w.kind)
        insts = instances(spec, host, w)
        if windows.measured(spec, w):
            lines.append(f"# workload {w.name}: {w.kind}, {windows.described(spec.experiment)}")
            lines += [line for inst in insts for line in kind.setup(w, inst)]
            lines += windows.region(spec.experiment, w, insts, kind, arms=dumps_stats and not guest_windows,
                                    every_edge=guest_windows)
            continue
        if spec.experiment.windows:
            lines.append(f"# workload {w.name}: {w.kind}, its whole life after the windows, "
                         f"its figures the guest's")
        else:
            lines.append(f"# workload {w.name}: {w.kind}")
        lines += [line for inst in insts for line in kind.setup(w, inst)]
        if w.profile != profiling:
            lines.append(profiler.switch(w.profile))
            profiling = w.profile
        if w.profile:
            lines.append(f"g5_profile_snap {w.name}")
        lines.append(f'cat /proc/uptime > "$G5_OUT/{w.name}.uptime.before"')
        lines.append(f"g5_roi_begin {w.name}{stats}")
        if w.profile and not kind.own_handshake(w):
            lines += ready.handshake(insts, w)
        lines += _run(kind, w, insts)
        lines.append(f"g5_roi_end {w.name}{stats}")
        lines.append(f'cat /proc/uptime > "$G5_OUT/{w.name}.uptime.after"')
        if w.profile:
            lines.append(f"g5_profile_region {w.name}")
    if profiling:
        # Off before the results leave over the console: every byte the
        # profiled kernel writes there costs tens of thousands of instructions
        # (35 bytes per host second under gem5), the switch some minutes.
        lines.append(profiler.switch(False))
    if ends_run:
        lines += _ending()
    return "\n".join(lines) + "\n"


def _perturbation(k: int) -> list[str]:
    """Repeat k's own start (experiment.repeat): the guest's random numbers
    (TCP's sequence numbers and ports, hash seeds) mixed with k, and its
    workloads k x REPEAT_START_US later. Repeat 0 runs as a run without repeats."""
    if not k:
        return []
    return [f"# repeat {k}: its own random seed, and its start {k} x {REPEAT_START_US:g} us later",
            f"echo g5net-repeat-{k} >/dev/urandom",
            f"sleep {k * REPEAT_START_US / 1e6:.6f}"]


def _ending() -> list[str]:
    """A gem5 run ends when every host has run `m5 exit` (one process counts
    its hosts' exits; per-host processes exit collectively, as dist-gem5
    does): until then `m5 exit` returns to the guest, and g5init would take
    that for a failed exit and reboot, which gem5's keyboard controller does
    not model (it panics, ending the run while another host still works). So
    the job prints g5init's results block itself (workloads/README.md,
    section 2.6), exits, and idles."""
    return ["# under gem5 the run ends when every host has run m5 exit: the job ends it itself "
            "(g5net/workloads/job.py)",
            "job_rc=$?",
            'set -- "$G5_OUT"/*',
            '[ -e "$1" ] || set --',
            f'echo "{BEGIN}"',
            'awk -f /g5net/results.awk -v host="$G5_HOST" -v role="$G5_ROLE" '
            '-v engine="$G5_ENGINE" -v rc="$job_rc" "$@"',
            f'echo "{END}"',
            "m5 exit",
            "while :; do sleep 3600; done"]
