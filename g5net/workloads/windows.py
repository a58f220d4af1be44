"""A workload measured as windows inside its running stream (experiment.windows).

Outside any region, the job first runs the benchmark's binary once, so that
it and its libraries are in the page cache (the disk is not read inside a
window); a client host waits until its server host listens on every port of
their flows, one ready handshake for the pair of hosts (ready.py; a UDP
stream's server says so once its socket is bound, kinds/iperf.py), then
starts; each host waits, in one loop, until all its flows have their
connections up, state 01
(/proc/net/tcp: iperf 2's -P streams; /proc/net/udp for a UDP stream,
whose sockets iperf 2 connect()s, the server's on the first datagram). From
that moment it counts the warm-up, and the region is `windows` consecutive
windows of `window_ms` after it, by simulated time under gem5 (the guest's
clock):

- gem5: the host that frames regions (job.stats_host), once its flows are
  connected, resets gem5's statistics and asks gem5, with one `m5` call, to
  dump them when the warm-up ends and every window_ms after that
  (workloads/windows.sh): every window is then exact, and nothing the job
  does falls inside one. The
  guest's own counters (context switches, interrupts) are snapshot as the
  warm-up begins and after the last window (a client by its own clock, a
  server once its flows end), in one process each (g5_window_snap): the
  guest's figures are of the warm-up and the windows together. (Snapshot at a window's edge, the process would
  run inside the window: a one-CPU sender measured 3 times the instructions
  per packet in its first window when the snapshot was taken one window
  before it.)
- gem5, sampled windows (experiment.window_method): the host that frames
  regions says with `m5 checkpoint` that its flows are connected; gem5 then
  fast-forwards into the warm checkpoints the windows restore, and measures
  each window by itself (engines/gem5/sampled.py). No host snapshots its
  counters: the windows are gem5's alone.
- QEMU, which keeps no statistics: each host snapshots its counters at every
  window's edge, by its own clock, and each window's figures are the guest's;
  a server says when its last snapshot is taken (on the ready port), and
  only then does its client stop the flows.

Then the job ends its flows where the benchmark reports when interrupted
(iperf 2: its duration_s is then the longest the stream may run, and the
time a host takes to see its flows connected costs no window; a UDP client
so stopped still ends its flow, and its server reports what it received and
lost; that server is stopped too, after its clients, since a last datagram
the receiver drops would leave it waiting: kinds/iperf.py), and waits for
them. Item NAME.w<k>.proc is the snapshot
at the end of window k (w0: at the first's start, or the warm-up's).

One stream per spec is measured so (measured()). NetPIPE workloads may
follow it (checks.py), each the whole life of its own region, as without
windows, and under either engine their figures are the guest's alone:
under gem5 the windows' dumps go on every window_ms until the simulation
ends, so a dump of their own could not be told from those, and their job
takes none (g5_roi_begin without `stats`).

Like workloads/profile.sh, windows.sh travels at the top of each job that
uses it, rather than in the disk image, whose digest is every run id's.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ..home import REPO
from ..spec import Experiment, Spec, Workload, sampled
from . import registry
from .ready import answer_ready, poll, wait_ready

if TYPE_CHECKING:
    from .flows import Instance
    from .kind import WorkloadKind

FUNCTIONS_FILE = REPO / "workloads" / "windows.sh"
# Under gem5 a host wakes this long after the last window's end, to snapshot
# its counters: after the window, and long before its flows end (the spec
# makes them stream one window more, spec.window_span_ms).
_LAST_SNAPSHOT_MS = 0.1


@functools.cache
def functions() -> str:
    """The shell functions a windowed job defines, as job lines."""
    return FUNCTIONS_FILE.read_text().rstrip("\n")


def measured(spec: Spec, w: Workload) -> bool:
    """Whether `w` is measured as windows: with experiment.windows, the
    spec's one stream is; a workload after it (NetPIPE, checks.py) is a
    whole-life region of its own."""
    return bool(spec.experiment.windows) and registry.kind(w.kind).streams


def described(e: Experiment) -> str:
    return f"{e.windows} windows of {e.window_ms:g} ms after {e.warmup_ms:g} ms of warm-up"


def _tag(name: str, k: int | str) -> str:
    """g5_window_snap's tag of the snapshot at the end of window `k` (0: at
    the warm-up's start, or the first window's); `k` may be a shell word."""
    return f"{name}.w{k}"


def snapshot(name: str, k: int) -> str:
    """The result item that snapshot becomes (windows.sh adds `.proc`)."""
    return f"{_tag(name, k)}.proc"


def _seconds(ms: float) -> str:
    """`ms` as an argument of busybox sleep: seconds, to the microsecond."""
    return f"{ms / 1000:.6f}".rstrip("0").rstrip(".") or "0"


def _until(pattern: str, lines: int = 1, protocol: str = "tcp") -> str:
    """A loop until `lines` lines of /proc/net/<protocol> and its IPv6 twin
    match `pattern` (grep -E), for as long as a client waits for its server."""
    files = f"/proc/net/{protocol} /proc/net/{protocol}6"
    return poll(f"grep -qE '{pattern}' {files} 2>/dev/null" if lines == 1 else
                 f"[ \"$(cat {files} 2>/dev/null | grep -cE '{pattern}')\" -ge {lines} ]")


def _ports(insts: list[Instance]) -> str:
    """The instances' ports as /proc/net's hex, one alternative each."""
    ports = "|".join(f"{i.port:04X}" for i in insts)
    return ports if len(insts) == 1 else f"({ports})"


def _listening(served: list[Instance]) -> str:
    """Until the server's ports all listen (state 0A, any local address:
    iperf binds one NIC's where there are several): one loop for them all,
    which under gem5 is one grep a poll where a loop each cost 32 in turn."""
    return _until(f":{_ports(served)} [0-9A-F]+:0000 0A ", len(served))


def _connected(insts: list[Instance], connections: int, protocol: str) -> str:
    """Until the instances' flows have their `connections` each connected
    (state 01): the server's ports as the local ones on a server, as the
    remote ones on a client. A UDP flow's sockets show so too: iperf 2's
    client connect()s its socket as it starts, and its server connect()s its
    own to the client on the first datagram (until then bound, state 07), so
    a server sees its flow connected once the stream reaches it (checked on
    a QEMU guest). `insts` all serve, or none does."""
    n = connections * len(insts)
    if insts[0].serves:
        return _until(f":{_ports(insts)} [0-9A-F]+:[0-9A-F]{{4}} 01 ", n, protocol)
    return _until(f" [0-9A-F]+:{_ports(insts)} 01 ", n, protocol)


def _first_of_each_peer(insts: list[Instance]) -> list[Instance]:
    """One instance for each host `insts` go to, its first: the ready
    handshake is one per pair of hosts, on that instance's port."""
    firsts: dict[str, Instance] = {}
    for i in insts:
        firsts.setdefault(i.peer.name, i)
    return list(firsts.values())


def region(e: Experiment, w: Workload, insts: list[Instance], kind: WorkloadKind, *, arms: bool,
           every_edge: bool) -> list[str]:
    """The job lines of workload `w` measured as windows: `kind`'s command
    of each instance of `insts` in the background, after its prewarm, and its
    stop after the last window; `arms`: this host schedules gem5's window
    dumps; `every_edge`: the guest snapshots every window's edge."""
    commands, stop = [kind.command(w, i) for i in insts], kind.stop(w, insts)
    name = w.name
    signal = [f"kill -{stop.signal} $g5_stop"] if stop else []
    # A kind's own handshake (a UDP iperf's: its server answers once bound)
    # is in its command.
    handshake = not kind.own_handshake(w)
    served, clients = [i for i in insts if i.serves], [i for i in insts if not i.serves]
    lines = kind.prewarm(w)
    if handshake:
        lines += [wait_ready(i) for i in _first_of_each_peer(clients)]
    lines += [f"{c} &" for c in commands]
    if stop and not sampled(e):
        lines.append(_pids(stop.program, len(insts)))
    if served and handshake:
        lines += [_listening(served)] + [answer_ready(w, i) for i in _first_of_each_peer(served)]
    lines += [_connected(group, kind.connections(w), w.protocol) for group in (served, clients) if group]
    if sampled(e):
        # gem5 fast-forwards into warm checkpoints from this moment on
        # (contract.Phase.FAST_FORWARD); each window is restored from one, in
        # the middle of the stream, which no host's job sees end.
        return lines + (["m5 checkpoint"] if arms else []) + ["wait"]
    if arms:
        lines.append(f"g5_windows_arm {round(e.warmup_ms * 1e6)} {round(e.window_ms * 1e6)}")
    if every_edge:
        lines += [f"sleep {_seconds(e.warmup_ms)}",
                  f"g5_window_snap {_tag(name, 0)}",
                  "k=1",
                  f"while [ $k -le {e.windows} ]; do",
                  f"\tsleep {_seconds(e.window_ms)}",
                  f"\tg5_window_snap {_tag(name, '$k')}",
                  "\tk=$((k + 1))",
                  "done"]
        # Each host's windows follow its own clock, and two emulated guests
        # wake late from their sleeps by different amounts: a server's 4
        # windows of 250 ms and its client's summed to 1.50 and 1.55 s here
        # beside one gem5 run, to 1.88 and 2.08 s beside three. A client that
        # stopped its flows at its own last window's end would leave its
        # server's last window partly after the stream whenever the server's
        # clock ran behind. So a server says on the ready port when its last
        # snapshot is taken, and a client stops its flows only then.
        lines += [f"{answer_ready(w, i)} &" for i in _first_of_each_peer(served)]
        lines += [wait_ready(i) for i in _first_of_each_peer(clients)]
        if not clients and stop:
            # Its clients stop their flows as soon as they hear it.
            return lines + _server_stopped(signal, e.window_ms) + ["wait"]
    elif all(i.serves for i in insts):
        # A server's clock started when it saw its flows connect, before its
        # clients saw it: a snapshot after its own span could fall into their
        # windows. It snapshots once its flows have ended instead.
        ending = ["wait"]
        if stop:
            # Its clients' clocks may have started up to a window before or
            # after its own (a UDP server's on their first datagram), and
            # those that arm no windows stream one window more: two windows
            # after its own span, every client has stopped.
            ending = _server_stopped(signal, e.warmup_ms + (e.windows + 2) * e.window_ms
                                     + _LAST_SNAPSHOT_MS) + ending
        return lines + [f"g5_window_snap {_tag(name, 0)}", *ending, f"g5_window_snap {_tag(name, e.windows)}"]
    else:
        # Other clients than the one that armed the windows wait one window
        # more before they snapshot and stop: their clocks started about when
        # its did (spec.window_span_ms leaves their streams that window).
        # They signal their flows' end before their last snapshot: under
        # load each process the job starts takes milliseconds in which the
        # stream runs on (below).
        windows = e.windows + (0 if arms else 1)
        return lines + [f"g5_window_snap {_tag(name, 0)}",
                        f"sleep {_seconds(e.warmup_ms + windows * e.window_ms + _LAST_SNAPSHOT_MS)}",
                        *signal, f"g5_window_snap {_tag(name, e.windows)}", "wait"]
    return lines + signal + ["wait"]


def _server_stopped(signal: list[str], after_ms: float) -> list[str]:
    """A server host's own stop (a UDP iperf's, kinds/iperf.py), `after_ms`
    by its clock once its clients have stopped theirs: until then it ends on
    its own once its flows have, and the signal finds it gone."""
    return [f"sleep {_seconds(after_ms)}", *(f"{line} 2>/dev/null" for line in signal)]


def _pids(program: str, count: int) -> str:
    """A loop until `count` processes of `program` run, their PIDs then in
    $g5_stop, for the stop's signal from the shell's own `kill`: found while
    the flows connect, not after the last window. Under gem5 a loaded guest
    takes milliseconds for each process its job starts, and a stream runs on
    meanwhile: at the Niagara 2 medium scale's load (32 connections on 16
    CPUs, PCIe 1 KiB), after the last window the job's sleep woke 15 ms late,
    its snapshot took 21 ms and `killall -INT iperf` 64 ms (guest clock
    stamps), and the stream ran some 125 ms past 3 windows of 5 ms (gem5's
    dumps); signalled so, before the snapshot, 37 ms."""
    return poll(f"set -- $(pidof {program}); [ $# -ge {count} ]") + '; g5_stop="$*"'
