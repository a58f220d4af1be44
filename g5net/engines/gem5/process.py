"""Running one gem5 process: start it, watch the guests' consoles, stop it,
and say in one line what went wrong."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...guest.protocol import BOOTED, panic_line
from ...machine.parent_death import die_with_parent
from .config_files import HOSTS_CONFIG, gem5_environment
from ...contract.gem5 import (
    PROGRESS_NAME,
    REPORT_NAME,
    ContractError,
    ExitStatus,
    Progress,
    Report,
)

LOG_TAIL_CHARS = 3000
KILL_GRACE_S = 10
# How often the engine reads the consoles of a running gem5, and how long it
# lets a panicked guest's console fill before it stops gem5.
WATCH_S = 1.0
PANIC_GRACE_S = 5.0


def tail(text: str, chars: int = LOG_TAIL_CHARS) -> str:
    return text[-chars:].strip()


def read_text(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


@dataclass(frozen=True)
class Stall:
    """When a boot counts as stalled: its guests' consoles stand still while
    simulated time goes on for `sim_s` simulated seconds, or simulated time
    itself stands still for `wall_s` host seconds."""
    sim_s: float
    wall_s: float


# A healthy boot of our kernel is silent (`quiet`) from its first console line
# to g5init's BOOTED, about 0.45 simulated seconds for a 1-CPU host, and the
# guest checkpoints right after BOOTED; 2 s of silence is a boot that went
# wrong. One progress interval (10 simulated ms) takes an atomic CPU seconds
# of host time; ten minutes without one is a simulator that went wrong.
BOOT_STALL = Stall(sim_s=2.0, wall_s=600.0)
# How often, in host seconds, a running phase reports where it is (a heartbeat:
# a detailed CPU can take minutes for one simulated millisecond's output).
REPORT_EVERY_S = 30.0
# Console lines of every healthy boot on gem5 that read like failures, with
# what the heartbeat says beside them. gem5 v24's X86Board writes ACPI tables
# whose declared length Linux finds wrong: Linux logs it, ignores the tables
# and boots on (the MP table describes the CPUs and interrupts), so the line
# stands as the last one for the minutes the boot stays quiet after it.
HARMLESS_BOOT_LINES = {
    "ACPI BIOS Error (bug): Invalid table length": "gem5's ACPI tables, harmless: Linux boots on",
}


def shown(line: str) -> str:
    """A console line as the heartbeat shows it: cut to 60 characters, with a
    note where it only looks like a failure."""
    note = next((n for text, n in HARMLESS_BOOT_LINES.items() if text in line), None)
    return repr(line[:60]) + (f" ({note})" if note else "")


class Watch:
    """Reads a running gem5's consoles and progress file: when each guest
    booted, whether one panicked, whether the boot stalled, and where it is.

    gem5 cannot tell a panicked guest from a slow one (a panicking Linux
    reboots, and the run waits for its `m5 exit` until the wall-clock limit),
    so the engine stops gem5 soon after a panic shows on a console.
    """

    def __init__(self, consoles: dict[str, Path], progress_files: Sequence[Path], start: float,
                 stall: Stall | None) -> None:
        self._consoles = consoles
        self._progress_files = progress_files
        self._start = start
        self._stall = stall
        self.booted_s: dict[str, float] = {}
        self.progress: Progress | None = None
        self._sizes: dict[str, int] = {}
        # Simulated seconds of the last console growth, the host clock of
        # the last progress report, and the report before it.
        self._quiet_since_sim = 0.0
        self._progress_at = start
        self._previous: Progress | None = None
        self._last_lines: dict[str, str] = {}
        # (host clock, simulated seconds) of the first progress report: the rate's origin.
        self._first: tuple[float, float] | None = None

    def poll(self) -> str | None:
        """The first panic line seen, as `host: line`."""
        for host, path in self._consoles.items():
            text = read_text(path)
            if len(text) != self._sizes.get(host, 0):
                self._sizes[host] = len(text)
                self._quiet_since_sim = self.progress.sim_seconds if self.progress else 0.0
                lines = [line for line in text.splitlines() if line.strip()]
                self._last_lines[host] = lines[-1].strip() if lines else ""
            if host not in self.booted_s and BOOTED in text:
                self.booted_s[host] = time.monotonic() - self._start
            panic = panic_line(text)
            if panic:
                return f"{host}: {panic}"
        progress = _merged_progress(self._progress_files)
        if progress and (self.progress is None or progress.sim_seconds > self.progress.sim_seconds):
            self._previous, self.progress = self.progress, progress
            self._progress_at = time.monotonic()
        return None

    def halted(self) -> dict[str, list[int]]:
        """Board -> the CPUs that committed no instruction between the last two
        progress reports."""
        if not self.progress or not self._previous:
            return {}
        out = {}
        for board, insts in self.progress.insts.items():
            before = self._previous.insts.get(board, [])
            out[board] = [cpu for cpu, (a, b) in enumerate(zip(before, insts)) if a == b]
        return out

    def stalled(self) -> str | None:
        """Why the boot counts as stalled, or None."""
        if self._stall is None or len(self.booted_s) == len(self._consoles):
            return None
        idle_wall = time.monotonic() - self._progress_at
        if idle_wall > self._stall.wall_s:
            at = f"{self.progress.sim_seconds:.3f}" if self.progress else "0"
            return (f"simulated time stood still at {at} s for {idle_wall:.0f} host seconds")
        if self.progress is None:
            return None
        quiet = self.progress.sim_seconds - self._quiet_since_sim
        if quiet <= self._stall.sim_s:
            return None
        halted = "; ".join(f"{board} {', '.join(map(str, cpus))}"
                           for board, cpus in self.halted().items() if cpus) or "none"
        last = "; ".join(f"{h}: {line!r}" for h, line in self._last_lines.items()) or "nothing"
        return (f"no console output for {quiet:.2f} simulated s (at {self.progress.sim_seconds:.3f} "
                f"simulated s; CPUs halted: {halted}; last console lines: {last})")

    def summary(self) -> str:
        """One line: where the run is."""
        if not self.progress:
            return "starting"
        running = sum(len(i) for i in self.progress.insts.values())
        halted = sum(len(c) for c in self.halted().values())
        last = "; ".join(f"{h}: {shown(line)}" for h, line in self._last_lines.items() if line)
        # Guests boot only where there is a boot to stall (the boot phase).
        booted = f", booted {len(self.booted_s)}/{len(self._consoles)}" if self._stall else ""
        if self._first is None:
            self._first = (time.monotonic(), self.progress.sim_seconds)
        host_s = time.monotonic() - self._first[0]
        rate = (f", {(self.progress.sim_seconds - self._first[1]) * 1e3 / host_s:.2f} simulated ms "
                f"per host s" if host_s > 1 else "")
        return (f"{self.progress.sim_seconds:.3f} simulated s{rate}, {running - halted}/{running} "
                f"CPUs active{booted}" + (f"; {last}" if last else ""))


def _merged_progress(files: Sequence[Path]) -> Progress | None:
    """Where every process is: the boards of all, at the simulated time of
    the one furthest behind (the processes of a per-host run advance together
    within a quantum); None until each has reported."""
    reports = []
    for path in files:
        try:
            reports.append(Progress.from_json(path.read_text()))
        except (OSError, ContractError):
            return None
    if not reports:
        return None
    insts = {board: counts for r in reports for board, counts in r.insts.items()}
    return Progress(sim_seconds=min(r.sim_seconds for r in reports), insts=insts)


@dataclass(frozen=True)
class Gem5Result:
    returncode: int | None  # None: stopped by g5net (deadline, or a guest panicked)
    wall_s: float
    log: Path
    report: Report | None  # None: the config ended before writing one
    booted_s: dict[str, float]
    guest_panic: str | None = None
    stalled: str | None = None
    # The last progress report: simulated time and instructions per CPU.
    progress: Progress | None = None
    # The process that failed first, by name, where a run has several.
    failing: str = ""

    @property
    def timed_out(self) -> bool:
        return self.returncode is None and self.guest_panic is None and self.stalled is None

    @property
    def sim_seconds(self) -> float:
        return self.report.sim_seconds if self.report else 0.0

    def log_tail(self) -> str:
        return tail(read_text(self.log))


def teardown_crash(result: Gem5Result) -> str | None:
    """A line saying so where gem5 died of a signal after its config had
    written a completed report, every process's: the simulation had ended and
    its statistics and consoles were written, so what it measured stands. A
    per-host run's processes once died so in CI (SIGABRT, nothing in the log),
    while dist-gem5 tore down its peers' connections."""
    if result.returncode is None or result.returncode >= 0:
        return None
    if result.report is None or not result.report.completed:
        return None
    who = f"gem5 process {result.failing}" if result.failing else "gem5"
    return (f"{who} died of {signal.Signals(-result.returncode).name} after the simulation "
            f"ended (its report written, completed): its results stand")


def classify_failure(result: Gem5Result) -> str | None:
    """None when gem5 did what it was asked, or the consoles say what went wrong
    (a guest panic); else one line saying what went wrong."""
    if result.stalled:
        return f"boot stalled: {result.stalled}"
    if result.returncode in (None, ExitStatus.DONE) or teardown_crash(result):
        return None
    text = read_text(result.log)
    for kind in ("panic", "fatal"):
        m = re.search(rf"^(?:\S+: )?{kind}: .*$", text, re.M)
        if m:
            return f"gem5 {kind}: {m.group(0).strip()}"
    # The config raised: gem5 prints the exception line (then pybind11's "At:"
    # list of frames, or after Python's traceback).
    raised = re.findall(r"^[\w.]*(?:Error|Exception): .*$", text, re.M)
    if raised:
        return f"gem5 config failed: {raised[-1].strip()}"
    if result.returncode < 0:
        who = f"gem5 process {result.failing}" if result.failing else "gem5"
        # An assert() of gem5's own (gem5.opt keeps them): where, and what failed.
        asserted = re.search(r"^\S+: (src/\S+:) .*(Assertion `.*' failed\.)$", text, re.M)
        if asserted:
            return f"{who} failed an assertion: {asserted.group(1)} {asserted.group(2)}"
        return f"{who} died of {signal.Signals(-result.returncode).name}"
    if "Segmentation fault" in text:
        return "gem5 crashed (segmentation fault)"
    if result.returncode == ExitStatus.HOSTS_UNFINISHED:
        return f"hosts did not finish: {result.report.reason if result.report else ''}"
    if result.returncode == ExitStatus.CONFIG_UNUSABLE:
        return "gem5 rejected its config: " + tail(text, 300)
    return f"gem5 exited with status {result.returncode}"


@dataclass(frozen=True)
class Gem5Process:
    """One gem5 process of a run: its config and arguments, where it writes."""
    name: str  # in messages: a host's, the switch's, or "" for a run's only process
    args: tuple[str, ...]  # the config file and its arguments
    outdir: Path
    log: Path
    # What starts gem5 elsewhere (srun, for a task of a SLURM allocation).
    launcher: tuple[str, ...] = ()


def start(binary: Path, p: Gem5Process, extra_args: Sequence[str] = ()) -> subprocess.Popen:
    """Start `p`, its output to its log. It dies with the process that started
    it, even one killed with `kill -9`: no gem5 is left running, or holding a
    port, behind a runner that is gone."""
    p.outdir.mkdir(parents=True, exist_ok=True)
    # Listeners on: the terminals' sockets are what `g5net console` attaches to.
    cmd = [*p.launcher, str(binary), *extra_args, "--listener-mode=on", f"--outdir={p.outdir}", *p.args]
    with open(p.log, "wb") as f:
        f.write((" ".join(cmd) + "\n").encode())
        f.flush()
        # Its own session: a stop signal for gem5 is not one for g5net.
        return subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=gem5_environment(), start_new_session=True, preexec_fn=die_with_parent(signal.SIGKILL))


def run_gem5(binary: Path, config: Path, outdir: Path, log: Path, deadline: float,
             consoles: dict[str, Path], report: Callable[[str], None] = lambda line: None,
             stall: Stall | None = None, extra_args: Sequence[str] = (),
             entry: Path = HOSTS_CONFIG) -> Gem5Result:
    """Run `entry` (configs/g5net_hosts.py or a config that runs it) on `config`
    until it ends, the deadline passes, a guest panics, or (with `stall`) the
    boot stalls (`consoles`: host -> the console file gem5 writes). `report`
    hears where it is every REPORT_EVERY_S; `extra_args` go to gem5 before
    g5net's own."""
    p = Gem5Process("", (str(entry), str(config)), outdir, log)
    return supervise([(p, start(binary, p, extra_args))], deadline, consoles, report, stall)


def supervise(procs: Sequence[tuple[Gem5Process, subprocess.Popen]], deadline: float,
              consoles: dict[str, Path], report: Callable[[str], None] = lambda line: None,
              stall: Stall | None = None) -> Gem5Result:
    """Watch the started processes of one run until every one has ended, the
    deadline passes, a guest panics or the boot stalls; then stop what still
    runs, all of them together. One that fails takes the others down after
    KILL_GRACE_S (the peers of a dist-gem5 process usually leave at once)."""
    start_t = time.monotonic()
    watch = Watch(consoles, [p.outdir / PROGRESS_NAME for p, _ in procs], start_t, stall)
    panic, panic_seen, stalled = None, 0.0, None
    reported = start_t
    codes: dict[str, int] = {}  # process name -> exit status, in the order they ended
    failed_at: float | None = None
    stopped = False
    try:
        while len(codes) < len(procs) and time.monotonic() < deadline:
            # Woken by the first running process's end, or every WATCH_S.
            running = next(proc for p, proc in procs if p.name not in codes)
            try:
                running.wait(timeout=min(WATCH_S, max(0.01, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                pass
            for p, proc in procs:
                if p.name not in codes and proc.poll() is not None:
                    codes[p.name] = proc.returncode
                    if proc.returncode != ExitStatus.DONE and failed_at is None:
                        failed_at = time.monotonic()
            if len(codes) == len(procs):
                break
            if failed_at is not None and time.monotonic() - failed_at > KILL_GRACE_S:
                break
            if panic is None:
                panic, panic_seen = watch.poll(), time.monotonic()
            elif time.monotonic() - panic_seen > PANIC_GRACE_S:
                break  # the panic message has had time to reach the console
            stalled = watch.stalled()
            if stalled:
                break
            if time.monotonic() - reported > REPORT_EVERY_S:
                reported = time.monotonic()
                report(f"{reported - start_t:.0f} s: {watch.summary()}")
    finally:
        left = [proc for p, proc in procs if p.name not in codes]
        stopped = bool(left)
        _stop(left)
    watch.poll()
    failing = next((name for name, rc in codes.items() if rc != ExitStatus.DONE), None)
    rc = None if stopped and failing is None else codes.get(failing or procs[0][0].name)
    log = next(p.log for p, _ in procs if p.name == (failing or procs[0][0].name))
    return Gem5Result(returncode=rc, wall_s=time.monotonic() - start_t, log=log,
                      report=_merged_report([p for p, _ in procs]),
                      booted_s=watch.booted_s, guest_panic=panic if rc is None else None,
                      stalled=stalled if rc is None else None, progress=watch.progress,
                      failing=failing if failing and len(procs) > 1 else "")


def _merged_report(procs: Sequence[Gem5Process]) -> Report | None:
    """One report for the run: completed when every process completed; the
    first reason, named by its process where there are several."""
    reports = []
    for p in procs:
        try:
            reports.append((p.name, Report.from_json((p.outdir / REPORT_NAME).read_text())))
        except (OSError, ContractError):
            return None
    if len(reports) == 1:
        return reports[0][1]
    reason = next((f"{name}: {r.reason}" for name, r in reports if r.reason), "")
    return Report(phase=reports[0][1].phase, completed=all(r.completed for _, r in reports),
                  reason=reason, exits=[{**e, "process": name} for name, r in reports for e in r.exits],
                  sim_seconds=max(r.sim_seconds for _, r in reports))


def _stop(procs: Sequence[subprocess.Popen]) -> None:
    """Stop them all together: SIGTERM to each (gem5 ends at once; srun passes
    it to its task), then SIGKILL to what still runs KILL_GRACE_S later."""
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + KILL_GRACE_S
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
