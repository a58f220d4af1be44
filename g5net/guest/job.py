"""The job script a guest runs: the spec's workloads as `/g5net/lib.sh` calls.

Each workload is one region of interest (ROI) with its own `/proc` snapshots
(and, under gem5, its own stats dump). Servers wait a bounded time for their
client; clients retry until their server listens. Ports are per workload so a
late server from one workload is never mistaken for the next.
"""

from __future__ import annotations

import shlex

from ..spec import Host, Spec, Workload

# $G5_OUT in the guest (workloads/README.md): every file there is a result item.
GUEST_OUT = "/tmp/g5out"
BASE_PORT = 5001
# Simulated seconds a server waits for its client beyond the workload itself;
# covers the other guest booting later than this one.
SERVER_GRACE_S = 120
CLIENT_RETRY_S = 120
# iperf 2 reports success even when it never connected, so its own retry loop
# is used instead of g5_retry; it waits about 200 ms between attempts.
IPERF_RETRIES_PER_S = 5
# NetPIPE's default repeat count tunes each point to ~1 s; far too slow for
# emulation, so fewer fixed repeats unless the spec says otherwise.
NETPIPE_DEFAULT_REPEATS = 50


def _q(args: list) -> str:
    return " ".join(shlex.quote(str(a)) for a in args)


def _cpus(cpus: list[int]) -> str:
    return ",".join(str(c) for c in cpus)


def port(spec: Spec, workload: Workload) -> int:
    return BASE_PORT + [w.name for w in spec.workloads].index(workload.name)


def _run_time_s(w: Workload) -> float:
    # A transfer by bytes has no known length; its server waits the grace only.
    return w.duration_s if w.bytes == 0 else 0.0


def item(name: str, nic: int) -> str:
    """The result item name of NIC `nic`'s instance of a workload or setup step.
    NIC 0's is the plain name, so single-NIC jobs and results read as they always have."""
    return name if nic == 0 else f"{name}.nic{nic}"


def nics(host: Host, w: Workload) -> int:
    """Instances of `w` a host runs at once: the streams load every NIC, one
    instance per NIC; NetPIPE measures one link's latency, over NIC 0."""
    return 1 if w.kind == "netpipe" else host.nic.count


def _bind(host: Host, nic: int) -> list:
    # Servers of one workload share its port, so with several NICs each binds
    # its own NIC's address; a lone server listens on every address, as it always has.
    return ["-B", host.nic_ip(nic)] if host.nic.count > 1 else []


def _iperf(spec: Spec, host: Host, w: Workload, nic: int) -> str:
    p = port(spec, w)
    common = ["-p", p, "-l", w.msg_bytes, "-y", "C"]
    if w.window_bytes:
        common += ["-w", w.window_bytes]
    if w.protocol == "udp":
        common.append("-u")
    if host.role == "server":
        limit = int(_run_time_s(w) + SERVER_GRACE_S)
        # iperf 2 serves -P connections, then reports their sum and exits: every
        # stream of every client of this server (fan-in through a switch).
        total = w.streams * len(spec.clients_of(host))
        cmd = ["timeout", limit, "iperf", "-s", "-P", total] + _bind(host, nic) + common
        pin = _cpus(w.server_cpus)
    else:
        amount = ["-n", w.bytes] if w.bytes else ["-t", w.duration_s]
        cmd = ["iperf", "-c", spec.host(host.peer).nic_ip(nic), "-P", w.streams,
               "--connect-retries", CLIENT_RETRY_S * IPERF_RETRIES_PER_S] + amount + common
        if w.protocol == "udp":
            cmd += ["-b", f"{w.udp_mbps}M"]
        pin = _cpus(w.client_cpus)
    return f"g5_capture {item(w.name, nic)} g5_pin {shlex.quote(pin)} {_q(cmd)}"


def _iperf3(spec: Spec, host: Host, w: Workload, nic: int) -> str:
    p = port(spec, w)
    name = item(w.name, nic)
    if host.role == "server":
        limit = int(_run_time_s(w) + SERVER_GRACE_S)
        cmd = ["timeout", limit, "iperf3", "-s", "-1", "-p", p, "-J"] + _bind(host, nic)
        return f"g5_capture {name} g5_pin {shlex.quote(_cpus(w.server_cpus))} {_q(cmd)}"
    amount = ["-n", w.bytes] if w.bytes else ["-t", w.duration_s]
    cmd = ["iperf3", "-c", spec.host(host.peer).nic_ip(nic), "-p", p, "-J", "-l", w.msg_bytes,
           "-P", w.streams] + amount
    if w.window_bytes:
        cmd += ["-w", w.window_bytes]
    if w.protocol == "udp":
        cmd += ["-u", "-b", f"{w.udp_mbps}M"]
    pinned = f"g5_pin {shlex.quote(_cpus(w.client_cpus))} {_q(cmd)}"
    # With -J, iperf3 exits 0 even when its server is not listening yet.
    return f"g5_capture {name} g5_retry {CLIENT_RETRY_S} g5_json_ok {pinned}"


def _netpipe(spec: Spec, host: Host, w: Workload, nic: int) -> str:
    p = port(spec, w)
    name = item(w.name, nic)
    repeats = w.repeats or NETPIPE_DEFAULT_REPEATS
    sizes = ["-l", w.min_bytes, "-u", w.max_bytes, "-p", 0, "-n", repeats, "-P", p]
    if w.window_bytes:
        sizes += ["-b", w.window_bytes]
    if host.role == "server":
        cmd = ["timeout", SERVER_GRACE_S * 2, "NPtcp"] + sizes
        return f"g5_capture {name} g5_pin {shlex.quote(_cpus(w.server_cpus))} {_q(cmd)}"
    # The transmitter writes the table; results.py reads it from <name>.np.
    cmd = ["NPtcp", "-h", spec.host(host.peer).nic_ip(nic), "-o", f"{GUEST_OUT}/{name}.np"] + sizes
    pinned = f"g5_pin {shlex.quote(_cpus(w.client_cpus))} {_q(cmd)}"
    return f"g5_capture {name} g5_retry {CLIENT_RETRY_S} {pinned}"


_KINDS = {"iperf": _iperf, "iperf3": _iperf3, "netpipe": _netpipe}


def _instances(spec: Spec, host: Host, w: Workload) -> list[str]:
    lines = [_KINDS[w.kind](spec, host, w, nic) for nic in range(nics(host, w))]
    if len(lines) == 1:
        return lines
    # Every NIC's instance at once, and the region ends when the last one does.
    return [f"{line} &" for line in lines] + ["wait"]


def _nic_setup(host: Host) -> list[str]:
    feats = []
    for feat, on in sorted(host.nic.offloads.items()):
        feats += [feat, "on" if on else "off"]
    cpus = shlex.quote(_cpus(host.nic.irq_cpus))
    lines = []
    for nic in range(host.nic.count):
        dev = f"eth{nic}"
        if feats:
            lines.append(f"g5_capture {item('nic-offloads', nic)} ethtool -K {dev} {_q(feats)}")
        if host.nic.irq_cpus:
            # g5_irq_affinity's device defaults to eth0.
            lines.append(f"g5_irq_affinity {cpus}" + (f" {dev}" if nic else ""))
    return lines


def stats_host(spec: Spec) -> Host:
    """The host that brackets each region of interest with gem5's stats reset
    and dump: the first client, whose workload start and end frame the region.
    gem5 keeps one set of statistics for every host, so one host does it."""
    return next((h for h in spec.hosts if h.role == "client"), spec.hosts[0])


def render(spec: Spec, host: Host) -> str:
    """The job script for one host, as text."""
    stats = " stats" if host.name == stats_host(spec).name else ""
    lines = [
        f"# g5net job for host {host.name} ({host.role}) of {spec.experiment.name};",
        "# generated from the experiment spec, run by /sbin/g5init with /g5net/lib.sh sourced.",
    ]
    lines += _nic_setup(host)
    for w in spec.workloads:
        lines.append(f"# workload {w.name}: {w.kind}")
        lines.append(f'cat /proc/uptime > "$G5_OUT/{w.name}.uptime.before"')
        lines.append(f"g5_roi_begin {w.name}{stats}")
        if w.profile:
            lines.append("g5_profile_start")
        lines += _instances(spec, host, w)
        if w.profile:
            lines.append(f"g5_profile_stop {w.name}")
        lines.append(f"g5_roi_end {w.name}{stats}")
        lines.append(f'cat /proc/uptime > "$G5_OUT/{w.name}.uptime.after"')
    return "\n".join(lines) + "\n"
