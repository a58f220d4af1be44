"""The job script a guest runs: the spec's workloads as `/g5net/lib.sh` calls.

Each workload is one region of interest (ROI) with its own `/proc` snapshots
(and, under gem5, its own stats dump). Servers wait a bounded time for their
client; clients retry until their server listens. Ports are per workload so a
late server from one workload is never mistaken for the next.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ..spec import FLOW_PORTS, Flow, Host, Spec, Workload
from .protocol import BEGIN, END

# $G5_OUT in the guest (workloads/README.md): every file there is a result item.
GUEST_OUT = "/tmp/g5out"
BASE_PORT = FLOW_PORTS[0]
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
# A web client tells its server it is done on the flow's port plus this, so the
# server's region ends with the client's rather than at a timeout.
WEB_DONE_PORT_OFFSET = 20000
# A server says it is ready on the flow's port plus this, and its client starts
# only then: a profiled workload's server once its profiler is on (without it
# a client could connect before its server listens and wait out iperf's 200 ms
# retry, dear under a profiled kernel), a UDP stream's once its socket is bound
# (iperf 2 has no connect retries for UDP, and datagrams sent before then are
# lost).
READY_PORT_OFFSET = 30000
# How often (guest seconds) a client asks whether its server is ready.
READY_POLL_S = 0.001
# Both ranks' bound (guest seconds): a hung launch must not stall the job.
MPI_LIMIT_S = SERVER_GRACE_S * 2
# Open MPI in the guest: every rank over TCP on NIC 0's network, one rank per
# host, no binding (the spec's CPU lists pin), and /g5net/g5rsh for ssh.
MPI_ARGS = ["--allow-run-as-root", "-np", 2, "--map-by", "node", "--bind-to", "none",
            "--mca", "plm_rsh_agent", "/g5net/g5rsh", "--mca", "plm_rsh_no_tree_spawn", 1,
            "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "eth0",
            "--mca", "oob_tcp_if_include", "eth0"]


def _q(args: list) -> str:
    return " ".join(shlex.quote(str(a)) for a in args)


def _cpus(cpus: list[int]) -> str:
    return ",".join(str(c) for c in cpus)


def _ports(spec: Spec) -> dict[tuple[str, int], int]:
    """(workload, flow index) -> port: every flow of every workload its own, so a
    late server from one workload or flow is never mistaken for another's."""
    out, port = {}, BASE_PORT
    for w in spec.workloads:
        for i in range(len(spec.flows(w))):
            out[(w.name, i)] = port
            port += 1
    return out


def _run_time_s(w: Workload) -> float:
    # A transfer by bytes has no known length; its server waits the grace only.
    return w.duration_s if w.bytes == 0 else 0.0


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
    ports = _ports(spec)
    flows = spec.flows(w)
    mine = [(i, f) for i, f in enumerate(flows) if host.name in (f.client.name, f.server.name)]
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
        out.append(Instance(f, host, ".".join(parts), ports[(w.name, i)], pinned))
    return out


def _pinned(inst: Instance, cmd: list) -> str:
    return f"g5_pin {shlex.quote(_cpus(inst.cpus))} {_q(cmd)}"


def _wait_ready(inst: Instance) -> str:
    """A client's loop until its server answers on the flow's ready port."""
    ip = shlex.quote(inst.peer.nic_ip(inst.flow.nic))
    tries = int(CLIENT_RETRY_S / READY_POLL_S)
    return (f"i=0; until nc {ip} {inst.port + READY_PORT_OFFSET} </dev/null >/dev/null 2>&1 || "
            f"[ $i -ge {tries} ]; do i=$((i + 1)); sleep {READY_POLL_S}; done")


def _answer_ready(w: Workload, inst: Instance) -> str:
    """A server's one answer on the flow's ready port, bounded like the server itself."""
    limit = int(_run_time_s(w) + SERVER_GRACE_S)
    return f"timeout {limit} nc -l -p {inst.port + READY_PORT_OFFSET} </dev/null >/dev/null"


def _udp_iperf(w: Workload, inst: Instance, line: str) -> str:
    """A UDP iperf's line, grouped with its readiness handshake: the server
    answers on the ready port once its socket is bound; the client waits for it."""
    if not inst.serves:
        return f"{{ {_wait_ready(inst)}; {line}; }}"
    bound = f":{inst.port:04X} "
    return (f"{{ {line} & p=$!; until grep -q '{bound}' /proc/net/udp /proc/net/udp6 2>/dev/null; "
            f"do sleep {READY_POLL_S}; done; {_answer_ready(w, inst)}; wait $p; }}")


def _iperf(w: Workload, inst: Instance) -> str:
    common = ["-p", inst.port, "-l", w.msg_bytes, "-y", "C"]
    if w.window_bytes:
        common += ["-w", w.window_bytes]
    if w.protocol == "udp":
        common.append("-u")
    if inst.serves:
        # iperf 2 serves -P connections, then reports their sum and exits.
        limit = int(_run_time_s(w) + SERVER_GRACE_S)
        cmd = ["timeout", limit, "iperf", "-s", "-P", w.streams] + common
    else:
        amount = ["-n", w.bytes] if w.bytes else ["-t", w.duration_s]
        # iperf 2 refuses --connect-retries with -u: a UDP client waits on the ready port.
        retries = [] if w.protocol == "udp" else ["--connect-retries", CLIENT_RETRY_S * IPERF_RETRIES_PER_S]
        cmd = ["iperf", "-c", inst.peer.nic_ip(inst.flow.nic), "-P", w.streams] + retries + amount + common
        if w.protocol == "udp":
            cmd += ["-b", f"{w.udp_mbps}M"]
        if inst.flow.direction == "receive":
            cmd.append("-R")
    line = f"g5_capture {inst.item} {_pinned(inst, cmd)}"
    return _udp_iperf(w, inst, line) if w.protocol == "udp" else line


def _iperf3(w: Workload, inst: Instance) -> str:
    if inst.serves:
        limit = int(_run_time_s(w) + SERVER_GRACE_S)
        cmd = ["timeout", limit, "iperf3", "-s", "-1", "-p", inst.port, "-J"]
        return f"g5_capture {inst.item} {_pinned(inst, cmd)}"
    amount = ["-n", w.bytes] if w.bytes else ["-t", w.duration_s]
    cmd = ["iperf3", "-c", inst.peer.nic_ip(inst.flow.nic), "-p", inst.port, "-J",
           "-l", w.msg_bytes, "-P", w.streams] + amount
    if w.window_bytes:
        cmd += ["-w", w.window_bytes]
    if w.protocol == "udp":
        cmd += ["-u", "-b", f"{w.udp_mbps}M"]
    if inst.flow.direction == "receive":
        cmd.append("-R")
    # With -J, iperf3 exits 0 even when its server is not listening yet.
    return f"g5_capture {inst.item} g5_retry {CLIENT_RETRY_S} g5_json_ok {_pinned(inst, cmd)}"


def _netpipe_sizes(w: Workload) -> list:
    sizes = ["-l", w.min_bytes, "-u", w.max_bytes, "-p", 0, "-n", w.repeats or NETPIPE_DEFAULT_REPEATS]
    if w.window_bytes:
        sizes += ["-b", w.window_bytes]
    return sizes


def _netpipe(w: Workload, inst: Instance) -> str:
    sizes = _netpipe_sizes(w) + ["-P", inst.port]
    if inst.serves:
        # One receiver per client: NPtcp serves a single peer.
        cmd = ["timeout", SERVER_GRACE_S * 2, "NPtcp"] + sizes
        return f"g5_capture {inst.item} {_pinned(inst, cmd)}"
    # The transmitter writes the table; results.py reads it from <item>.np.
    cmd = ["NPtcp", "-h", inst.peer.nic_ip(inst.flow.nic), "-o", f"{GUEST_OUT}/{inst.item}.np"] + sizes
    return f"g5_capture {inst.item} g5_retry {CLIENT_RETRY_S} {_pinned(inst, cmd)}"


def _mpi(w: Workload, inst: Instance) -> str:
    if inst.serves:
        # Rank 1: started by the client's mpirun through this one-command listener.
        return f"g5_capture {inst.item} g5_rsh_listen {_q([_cpus(inst.cpus), inst.port, MPI_LIMIT_S])}"
    # Rank 0 (mpirun's own host, listed first) transmits and writes the table.
    hosts = f"{inst.host.nic_ip(0)},{inst.peer.nic_ip(0)}"
    cmd = ["timeout", MPI_LIMIT_S, "env", f"G5_RSH_PORT={inst.port}", f"G5_RSH_WAIT_S={CLIENT_RETRY_S}", "orterun",
           "--host", hosts] + MPI_ARGS + ["NPopenmpi", "-o", f"{GUEST_OUT}/{inst.item}.np"] + _netpipe_sizes(w)
    return f"g5_capture {inst.item} {_pinned(inst, cmd)}"


def _web_files(w: Workload) -> list[str]:
    return [f"/f{k}" for k in range(1, len(w.file_bytes) + 1)]


def _web_dir(inst: Instance) -> str:
    return f"/tmp/www-{inst.item}"


def _wrk_script(w: Workload) -> str:
    """wrk's Lua: each request picks file k with probability 1/k^s (normalised),
    from a fixed seed; `done` prints the summary results.py reads."""
    weights = [1.0 / k ** w.zipf_exponent for k in range(1, len(w.file_bytes) + 1)]
    total, acc, cdf = sum(weights), 0.0, []
    for x in weights:
        acc += x / total
        cdf.append(f"{acc:.9f}")
    cdf[-1] = "1"
    paths = ", ".join(f'"{p}"' for p in _web_files(w))
    return f"""local paths = {{{paths}}}
local cdf = {{{", ".join(cdf)}}}
math.randomseed(1)
request = function()
  local r = math.random()
  for i = 1, #cdf do
    if r <= cdf[i] then return wrk.format("GET", paths[i]) end
  end
end
done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format("G5WRK requests=%d duration_us=%d bytes=%d errors=%d "
    .. "lat_mean_us=%.3f lat_p50_us=%d lat_p99_us=%d lat_max_us=%d\\n",
    s.requests, s.duration, s.bytes, e.connect + e.read + e.write + e.status + e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(99), latency.max))
end"""


def _web_setup(w: Workload, inst: Instance) -> list[str]:
    """Outside the region: the server's files, the client's wrk script."""
    if inst.serves:
        sizes = " ".join(str(b) for b in w.file_bytes)
        return [f"g5_web_files {_web_dir(inst)} {sizes}"]
    return [f"cat >/tmp/{inst.item}.lua <<'G5NET_LUA'", _wrk_script(w), "G5NET_LUA"]


def _web(w: Workload, inst: Instance) -> str:
    done = inst.port + WEB_DONE_PORT_OFFSET
    if inst.serves:
        limit = int(w.duration_s + SERVER_GRACE_S)
        args = [_cpus(inst.cpus), inst.port, done, limit, _web_dir(inst)]
        return f"g5_capture {inst.item} g5_web_serve {_q(args)}"
    ip = inst.peer.nic_ip(inst.flow.nic)
    cmd = ["wrk", "-t", 1, "-c", w.connections, "-d", f"{int(w.duration_s)}s", "--timeout", "10s",
           "-s", f"/tmp/{inst.item}.lua", f"http://{ip}:{inst.port}/"]
    return f"g5_capture {inst.item} g5_web_get {ip} {inst.port} {done} {CLIENT_RETRY_S} {_pinned(inst, cmd)}"


_KINDS = {"iperf": _iperf, "iperf3": _iperf3, "netpipe": _netpipe, "mpi": _mpi, "web": _web}
_SETUP = {"web": _web_setup}


def _instances(spec: Spec, host: Host, w: Workload) -> list[str]:
    lines = [_KINDS[w.kind](w, inst) for inst in instances(spec, host, w)]
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
        if host.nic.txqueuelen:
            lines.append(f"ip link set {dev} txqueuelen {host.nic.txqueuelen}")
        if host.nic.irq_cpus:
            # g5_irq_affinity's device defaults to eth0.
            lines.append(f"g5_irq_affinity {cpus}" + (f" {dev}" if nic else ""))
    return lines


def _ready_handshake(insts: list[Instance], w: Workload) -> list[str]:
    """A profiled workload's server answers one connection per client on the
    ready port; a client waits for that answer before it starts its own, so
    its first connection finds the server listening (workloads/README.md)."""
    lines = [_wait_ready(inst) for inst in insts if not inst.serves]
    return lines + [f"{_answer_ready(w, inst)} &" for inst in insts if inst.serves]


# The kernel's function profiler, read around a region, never switched inside
# one: switching it patches every traced call site (profile.py says how the
# tables are read).
PROFILER_FILE = '"$G5_TRACING/function_profile_enabled"'
# A profiled workload NAME leaves NAME.profstart<cpu> (each CPU's table before
# its region) and NAME.prof<cpu> (after it): the region's is their difference.
PROFILE_START, PROFILE_END = "profstart", "prof"
PROFILE_SNAPSHOT = f"""# g5_profile_snap NAME: each CPU's function profile as it stands, into NAME.{PROFILE_START}<cpu>.
g5_profile_snap() {{
	local f
	for f in "$G5_TRACING"/trace_stat/function*; do
		[ -e "$f" ] && cat "$f" >"$G5_OUT/$1.{PROFILE_START}${{f##*/function}}"
	done
}}
# g5_profile_region NAME: each CPU's rows that changed since g5_profile_snap NAME,
# into NAME.{PROFILE_END}<cpu>, keeping only those rows' earlier values: the functions
# the region called, not the thousands it did not, which the console would
# otherwise carry to the host (minutes of host time each under gem5).
g5_profile_region() {{
	local f before after
	for f in "$G5_TRACING"/trace_stat/function*; do
		[ -e "$f" ] || continue
		before=$G5_OUT/$1.{PROFILE_START}${{f##*/function}}
		after=$G5_OUT/$1.{PROFILE_END}${{f##*/function}}
		cat "$f" >/tmp/g5prof
		awk 'NR == FNR {{ seen[$0]; next }} !($0 in seen)' "$before" /tmp/g5prof >"$after"
		awk 'NR == FNR {{ called[$1]; next }} $1 in called' "$after" "$before" >/tmp/g5prof
		mv /tmp/g5prof "$before"
	done
}}"""


def profiler_on_at_boot(spec: Spec) -> bool:
    """Whether every host boots with the function profiler on: under gem5 when
    the first workload is profiled, so that the switch happens on the boot's
    fast CPU, before the checkpoint (protocol.checkpoint_stub)."""
    return spec.experiment.engine == "gem5" and bool(spec.workloads) and spec.workloads[0].profile


def _profiler_switch(on: bool) -> str:
    """Switching outside any region: under gem5 on a detailed CPU this costs
    host hours, which a profiled first workload avoids (profiler_on_at_boot)."""
    return "g5_profile_start" if on else f"echo 0 >{PROFILER_FILE}"


def stats_host(spec: Spec) -> Host:
    """The host that brackets each region of interest with gem5's stats reset
    and dump: the first client, whose workload start and end frame the region.
    gem5 keeps one set of statistics for every host, so one host does it; with
    per-host processes each process keeps its own, and every host does
    (stats/merge.py joins them, this host's region framing the whole)."""
    return next((h for h in spec.hosts if h.role == "client"), spec.hosts[0])


def _frames_stats(spec: Spec, host: Host) -> bool:
    return spec.experiment.processes == "per-host" or host.name == stats_host(spec).name


def render(spec: Spec, host: Host) -> str:
    """The job script for one host, as text."""
    stats = " stats" if _frames_stats(spec, host) else ""
    lines = [
        f"# g5net job for host {host.name} ({host.role}) of {spec.experiment.name};",
        "# generated from the experiment spec, run by /sbin/g5init with /g5net/lib.sh sourced.",
    ]
    lines += _cpu_setup(host) + _nic_setup(host)
    profiling = profiler_on_at_boot(spec)
    if any(w.profile for w in spec.workloads):
        lines.append(PROFILE_SNAPSHOT)
    for w in spec.workloads:
        lines.append(f"# workload {w.name}: {w.kind}")
        if w.kind in _SETUP:
            lines += [line for inst in instances(spec, host, w) for line in _SETUP[w.kind](w, inst)]
        if w.profile != profiling:
            lines.append(_profiler_switch(w.profile))
            profiling = w.profile
        if w.profile:
            lines.append(f"g5_profile_snap {w.name}")
        lines.append(f'cat /proc/uptime > "$G5_OUT/{w.name}.uptime.before"')
        lines.append(f"g5_roi_begin {w.name}{stats}")
        if w.profile and not (w.kind == "iperf" and w.protocol == "udp"):
            lines += _ready_handshake(instances(spec, host, w), w)  # UDP has its own
        lines += _instances(spec, host, w)
        lines.append(f"g5_roi_end {w.name}{stats}")
        lines.append(f'cat /proc/uptime > "$G5_OUT/{w.name}.uptime.after"')
        if w.profile:
            lines.append(f"g5_profile_region {w.name}")
    if profiling:
        # Off before the results leave over the console: every byte the
        # profiled kernel writes there costs tens of thousands of instructions
        # (35 bytes per host second under gem5), the switch some minutes.
        lines.append(_profiler_switch(False))
    if spec.experiment.processes == "per-host":
        lines += _ending_per_host()
    return "\n".join(lines) + "\n"


def _ending_per_host() -> list[str]:
    """Per-host processes end when every host has run `m5 exit` (dist-gem5's
    collective exit): until then `m5 exit` returns to the guest, and g5init
    would take that for a failed exit and reboot, which gem5's keyboard
    controller does not model. So the job prints g5init's results block
    itself (workloads/README.md, section 2.6), exits, and idles."""
    return ["# per-host processes: the job ends the run itself (g5net/guest/job.py)",
            "job_rc=$?",
            'set -- "$G5_OUT"/*',
            '[ -e "$1" ] || set --',
            f'echo "{BEGIN}"',
            'awk -f /g5net/results.awk -v host="$G5_HOST" -v role="$G5_ROLE" '
            '-v engine="$G5_ENGINE" -v rc="$job_rc" "$@"',
            f'echo "{END}"',
            "m5 exit",
            "while :; do sleep 3600; done"]
