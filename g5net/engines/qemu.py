"""QEMU engine: the fast functional check, one TCG guest per host.

Each guest has `nic.count` e1000 NICs (the same driver as gem5's IGbE). Two
guests are joined back to back by QEMU's `socket` netdev over loopback TCP
(one listens, the other connects), NIC i of both by a socket pair of its own;
more guests, or `link.switch`, meet in a switch of our own (qemu_switch), one
per NIC index. QEMU models no link speed or delay, nor a switch's latency; it shows that the kernel, image and
workloads work and gives functional counts (packets, interrupts, context
switches), not timing a study should quote.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from ..errors import BootError, EngineError
from ..guest import kernel_cmdline
from ..guest.protocol import BEGIN, BOOTED, END
from ..machine.local_ports import free_ports, listening_ports
from ..machine.parent_death import die_with_parent
from ..runs.resources import Resources
from ..model.options import EngineOptions
from ..runs.rundir import RunDir
from ..spec import Host, Spec
from ..workloads import job
from . import qemu_switch
from .base import Artifacts, Engine, EngineInfo, Outcome, Progress, file_digest

BINARY = "qemu-system-x86_64"
NEEDED_FOR = ('engine = "qemu" runs (the default, and make demo without gem5): '
              'apt-get install qemu-system-x86')
# Memory a QEMU process takes beyond the guest RAM it models (code cache, devices).
OVERHEAD_MB_PER_HOST = 256
POLL_S = 0.2
# A guest that has printed its results gets this long to power off by itself.
EXIT_GRACE_S = 20
# Once one guest died without results, its peer is waiting for nobody.
PEER_GRACE_S = 5
SECTOR = 512
# TCG on a busy host delivers the PIT's first ticks late, and the kernel's
# check of the IO-APIC timer route then panics ("IO-APIC + timer doesn't
# work!", seen in CI with two guests booting on two loaded cores); the check
# guards against broken chipsets, which QEMU's emulated one is not.
_KERNEL_ARGS = ("no_timer_check",)
# The protocol's root is sda and the job disk sdb (workloads/README.md), two
# IDE disks that Linux names in the order its disk probes, asynchronous since
# 5.x, take a name; on a guest with several CPUs under load they can swap
# (seen in CI: 1 run of 2 of the 4-CPU pair on two loaded cores). The kernel
# then mounts the one-sector job disk as root and panics at boot, before the
# job ran; the run is booted again, every guest, up to this many times.
DISK_SWAP_ATTEMPTS = 3
_ROOT_ON_JOB_DISK = "VFS: Unable to mount root fs on unknown-block(8,0)"


def mac(index: int, nic: int = 0) -> str:
    """Host `index`'s NIC `nic`: unique per host and NIC, NIC 0's as it always was."""
    return f"52:54:00:00:{nic:02x}:{index + 1:02x}"


def _netdevs(ports: list[int], mode: str) -> list[str]:
    """One `socket` netdev per NIC, `mode` listen or connect; NIC i's is n<i>."""
    return [f"socket,id=n{nic},{mode}=127.0.0.1:{port}" for nic, port in enumerate(ports)]


def job_script(spec: Spec, host: Host) -> str:
    """`host`'s job under QEMU: the stats calls of the host that frames the
    regions under gem5 stay, doing nothing here (m5 has no statistics to
    reset or dump), so that both engines run the same job."""
    return job.render(spec, host, dumps_stats=host.name == job.stats_host(spec).name,
                      guest_windows=True)


def _job_disk(script: str, path: Path) -> None:
    """The job script as a raw disk: the text padded with NUL to whole sectors."""
    data = script.encode()
    data += b"\0" * (-len(data) % SECTOR or SECTOR)
    path.write_bytes(data)


def disks_swapped(console: str) -> bool:
    """Whether a guest stopped at boot because its kernel took the job disk
    for the root disk (DISK_SWAP_ATTEMPTS)."""
    return _ROOT_ON_JOB_DISK in console and BOOTED not in console


def _option_value(path: Path) -> str:
    """A path as one value of a QEMU option list, where a comma ends the value
    unless doubled (names are validated, but a store path may hold one)."""
    return str(path).replace(",", ",,")


# Guests one run starts: each is a TCG process, and MACs number hosts in a byte.
MAX_HOSTS = 32


def check_spec(spec: Spec) -> None:
    """What the spec allows but this engine cannot build; errors name the key."""
    if spec.experiment.processes != "one":
        raise EngineError(f"experiment.processes = {spec.experiment.processes!r} lays out gem5's "
                          f"processes; QEMU runs each guest in a process of its own whatever it "
                          f"says, so leave it out (or run this spec on gem5)")
    if spec.experiment.pc_sample_us:
        raise EngineError("experiment.pc_sample_us samples gem5's instruction trace, which QEMU "
                          "has not; leave it out (or run this spec on gem5), or profile in the "
                          "guest with workloads.NAME.profile = true")
    if len(spec.hosts) > MAX_HOSTS:
        raise EngineError(f"hosts: the qemu engine runs at most {MAX_HOSTS} guests "
                          f"(spec has {len(spec.hosts)})")
    kernel_cmdline.check(spec, "qemu", lambda h: _KERNEL_ARGS, kernel_cmdline.LINUX_MAX_CHARS,
                         "Linux's command-line buffer")
    first = spec.hosts[0]
    for other in spec.hosts[1:]:
        if other.nic.count != first.nic.count:
            raise EngineError(f"hosts.{other.name}.nic.count: the qemu engine joins NIC i of every "
                              f"host on network i, so all hosts need the same count "
                              f"(hosts.{first.name}.nic.count = {first.nic.count}, "
                              f"hosts.{other.name}.nic.count = {other.nic.count})")


class QemuEngine(Engine):
    name = "qemu"

    @classmethod
    def from_options(cls, options: EngineOptions) -> QemuEngine:
        return cls()  # it takes no options of its own

    def check_spec(self, spec: Spec) -> None:
        check_spec(spec)

    def resources(self, spec: Spec) -> Resources:
        # One QEMU per host, one TCG thread per virtual CPU.
        return Resources.of(spec, cpus=sum(h.cpu.count for h in spec.hosts),
                            mem_mb=sum(h.memory_mb + OVERHEAD_MB_PER_HOST for h in spec.hosts))

    def doctor(self) -> dict[str, Any]:
        try:
            info = self.info()
        except EngineError as e:
            return {"qemu": {"ok": False, "error": str(e), "needed_for": NEEDED_FOR}}
        return {"qemu": {"ok": True, "binary": str(info.binary), "version": info.version}}

    def layout(self, spec: Spec) -> dict[str, Any]:
        """A QEMU process per host, joined by a switch process (qemu_switch.py)."""
        return {"layout": "per-host"}

    def info(self) -> EngineInfo:
        found = shutil.which(BINARY)
        if not found:
            raise EngineError(f"{BINARY} not found on PATH: install Debian's qemu-system-x86 "
                              "(`make deps` does)")
        out = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
        m = re.search(r"version (\S+)", out.stdout)
        version = m.group(1) if m else out.stdout.strip()
        return EngineInfo(self.name, Path(found), version, file_digest(Path(found)))

    def _command(self, spec: Spec, art: Artifacts, host: Host, index: int,
                 job_disk: Path, netdevs: list[str]) -> list[str]:
        kern = art.kernel_of(host)
        image, job = _option_value(art.image.path), _option_value(job_disk)
        cmd = [str(self.info().binary), "-machine", "pc,accel=tcg", "-smp", str(host.cpu.count),
               "-m", str(host.memory_mb), "-display", "none", "-monitor", "none",
               "-serial", "stdio", "-no-reboot", "-nodefaults",
               "-kernel", str(kern.bzimage), "-append", kernel_cmdline.build(host, self.name, _KERNEL_ARGS),
               "-drive", f"file={image},format=raw,if=ide,index=0,snapshot=on",
               "-drive", f"file={job},format=raw,if=ide,index=1"]
        # Devices take PCI slots in command-line order and the guest names
        # NICs in slot order, so NIC i is the guest's eth<i>.
        for nic, netdev in enumerate(netdevs):
            cmd += ["-netdev", netdev, "-device", f"e1000,netdev=n{nic},mac={mac(index, nic)}"]
        if spec.experiment.icount:
            # Virtual time advances with instructions, not with the host's clock.
            cmd += ["-icount", "shift=0,sleep=off"]
        return cmd

    def run(self, spec: Spec, artifacts: Artifacts, rd: RunDir, progress: Progress) -> Outcome:
        check_spec(spec)
        attempt = 1
        while True:
            outcome = self._boot_and_run(spec, artifacts, rd, progress)
            swapped = sorted(h for h, text in outcome.consoles.items() if disks_swapped(text))
            if not swapped or attempt == DISK_SWAP_ATTEMPTS:
                return outcome
            attempt += 1
            progress(f"{', '.join(swapped)}: Linux named the job disk sda and could not mount it as "
                     f"root (its disk probes swapped the names); booting every guest again "
                     f"({attempt}/{DISK_SWAP_ATTEMPTS})")

    def _boot_and_run(self, spec: Spec, artifacts: Artifacts, rd: RunDir, progress: Progress) -> Outcome:
        networks = spec.hosts[0].nic.count
        if not spec.switched:
            ports = free_ports(networks, "127.0.0.1")
            return self._run(spec, artifacts, rd, progress,
                             [_netdevs(ports, "listen"), _netdevs(ports, "connect")], ports)
        with qemu_switch.Switch(len(spec.hosts), networks) as switch:
            progress(f"switch: {len(spec.hosts)} hosts x {networks} network(s) on loopback UDP")
            netdevs = [[switch.attachments[n][i].netdev(f"n{n}") for n in range(networks)]
                       for i in range(len(spec.hosts))]
            return self._run(spec, artifacts, rd, progress, netdevs, [])

    def _run(self, spec: Spec, artifacts: Artifacts, rd: RunDir, progress: Progress,
             netdevs: list[list[str]], listen_ports: list[int]) -> Outcome:
        """Boot every host with its netdevs; the first host's `listen_ports`
        must listen before the next host connects."""
        with tempfile.TemporaryDirectory(prefix="g5net-qemu-") as scratch:
            procs: dict[str, subprocess.Popen] = {}
            logs = []
            start = time.monotonic()
            try:
                for i, host in enumerate(spec.hosts):
                    script = job_script(spec, host)
                    rd.job_script(host.name).write_text(script)
                    disk = Path(scratch) / f"job-{host.name}.img"
                    _job_disk(script, disk)
                    cmd = self._command(spec, artifacts, host, i, disk, netdevs[i])
                    console = open(rd.console(host.name), "wb")
                    log = open(rd.qemu_log(host.name), "wb")
                    logs += [console, log]
                    progress(f"booting {host.name}: {host.cpu.count} cpu, {host.memory_mb} MiB")
                    # No guest outlives g5net, even one killed with `kill -9`.
                    procs[host.name] = subprocess.Popen(cmd, stdout=console, stderr=log,
                                                        stdin=subprocess.DEVNULL,
                                                        preexec_fn=die_with_parent(signal.SIGKILL))
                    if i == 0:
                        for port in listen_ports:
                            self._await_listener(procs[host.name], port, rd, host.name)
                return self._watch(spec, procs, rd, start, progress)
            finally:
                for p in procs.values():
                    if p.poll() is None:
                        p.kill()
                        p.wait()
                for f in logs:
                    f.close()

    def _await_listener(self, proc: subprocess.Popen, port: int, rd: RunDir, host: str) -> None:
        deadline = time.monotonic() + 30
        while port not in listening_ports():
            if proc.poll() is not None:
                tail = rd.qemu_log(host).read_text(errors="replace")[-2000:]
                raise EngineError(f"qemu for host {host} exited at start (status {proc.returncode}): {tail}")
            if time.monotonic() > deadline:
                raise EngineError(f"qemu for host {host} never listened on 127.0.0.1:{port}")
            time.sleep(0.05)

    def _watch(self, spec: Spec, procs: dict[str, subprocess.Popen], rd: RunDir,
               start: float, progress: Progress) -> Outcome:
        deadline = start + spec.experiment.timeout_s
        boot_deadline = start + spec.experiment.boot_timeout_s
        boot_s: dict[str, float] = {}
        reported: dict[str, float] = {}
        died_at: float | None = None
        timed_out = False
        failure: EngineError | None = None
        while any(p.poll() is None for p in procs.values()):
            now = time.monotonic()
            for name, p in procs.items():
                text = rd.console(name).read_text(errors="replace")
                if name not in boot_s and BOOTED in text:
                    boot_s[name] = now - start
                    progress(f"{name} booted in {boot_s[name]:.1f} s")
                if name not in reported and END in text and BEGIN in text:
                    reported[name] = now
                    progress(f"{name} reported results after {now - start:.1f} s")
                if p.poll() is not None and name not in reported and died_at is None:
                    died_at = now
                    progress(f"{name} stopped without results (status {p.returncode})")
            if now > deadline:
                timed_out = True
                progress(f"wall-clock limit of {spec.experiment.timeout_s} s reached; stopping guests")
                break
            if now > boot_deadline and len(boot_s) < len(procs):
                slow = sorted(set(procs) - set(boot_s))
                failure = BootError(f"boot: {', '.join(slow)} did not boot within "
                                    f"{spec.experiment.boot_timeout_s} s")
                break
            if died_at is not None and now - died_at > PEER_GRACE_S:
                break
            if reported and len(reported) == len(procs) and now - max(reported.values()) > EXIT_GRACE_S:
                break
            time.sleep(POLL_S)
        consoles = {name: rd.console(name).read_text(errors="replace") for name in procs}
        log_tail = "\n".join(
            f"[{name}] " + rd.qemu_log(name).read_text(errors="replace")[-1000:]
            for name in procs if rd.qemu_log(name).stat().st_size)
        for name, p in procs.items():
            if p.poll() not in (None, 0) and failure is None and name not in reported and log_tail:
                failure = EngineError(f"qemu for {name} exited with status {p.returncode}")
        return Outcome(consoles=consoles, wall_s=time.monotonic() - start, timed_out=timed_out,
                       failure=failure, engine_log_tail=log_tail, boot_s=boot_s)


ENGINE = QemuEngine
