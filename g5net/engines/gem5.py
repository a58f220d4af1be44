"""gem5 engine: the detailed model. Boot fast, measure in detail.

A run is two gem5 processes over one system of every host (configs/g5net_hosts.py):

1. boot: every host boots on `cpu.boot_model` (atomic) without caches. The job
   a guest fetches with `m5 readfile` in this phase is a stub that runs
   `m5 checkpoint` and then polls `m5 readfile` until it returns something
   else; once every host has reached its checkpoint, gem5 writes one
   checkpoint of the whole system and exits.
2. measure: the checkpoint is restored with `cpu.model` and the spec's caches;
   each host's `m5 readfile` now returns its real job, which the stub sources.
   gem5 exits once every host has run `m5 exit`.

Checkpoints are shared: the key hashes what decides the state at the
checkpoint (hosts' shapes and kernel command lines, kernels, image, gem5, the
configs), and points that differ only after it (CPU model, caches, NIC
placement and queues, link, workloads) restore the same one from
`cache_dir()/checkpoints/<key>`, built once under a file lock.

`experiment.timeout_s` bounds both phases together; `boot_timeout_s`, a
wall-clock figure for QEMU's seconds-long boots, is not applied: a gem5 boot
takes minutes and happens once per checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import keyword
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..artifacts import Kernel, cache_dir
from ..artifacts.cache import locked, staging
from ..errors import EngineError
from ..guest import job
from ..guest.results import BOOTED, panic_line
from ..rundir import RunDir
from ..spec import Host, Spec
from .base import Artifacts, Engine, EngineInfo, Outcome, Progress, file_digest
from .qemu import kernel_cmdline

ENV_BINARY = "G5NET_GEM5"
BINARIES = ("gem5.opt", "gem5.fast")
REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"
HOSTS_CONFIG = CONFIGS / "g5net_hosts.py"
PROBE_CONFIG = CONFIGS / "g5net_probe.py"
HOW_TO_POINT = (f"point g5net at a gem5 X86 build: export {ENV_BINARY}=/path/to/gem5/build/X86/gem5.opt "
                f"or put gem5.opt (or gem5.fast) on PATH")
# configs/g5net_components/params.py reads this version of the JSON.
CONFIG_SCHEMA = 1
# Bumped when the checkpoint protocol changes in a way the key cannot see.
CHECKPOINT_FORMAT = 1
PROBE_TIMEOUT_S = 120
# Building and instantiating even a 64-CPU system takes seconds.
DESCRIBE_TIMEOUT_S = 600
# The config's exit statuses (configs/g5net_hosts.py).
CONFIG_UNUSABLE, HOSTS_UNFINISHED = 2, 3
REPORT = "g5net-gem5.json"
# gem5's X86Board maps RAM below its 3 GiB I/O hole only.
MAX_MEMORY_MB = 3072
LOG_TAIL_CHARS = 3000
KILL_GRACE_S = 10
# How often the engine reads the consoles of a running gem5, and how long it
# lets a panicked guest's console fill before it stops gem5.
WATCH_S = 1.0
PANIC_GRACE_S = 5.0

# The boot phase's job (workloads/README.md: g5init sources it with lib.sh in
# the same shell). Its first line marks it: a guest polls until readfile
# returns anything else, which only a restored system's readfile does.
STUB_MARK = "# g5net-checkpoint-stub"
CHECKPOINT_STUB = f"""{STUB_MARK}: the gem5 engine's boot phase (g5net/engines/gem5.py).
m5 checkpoint
while m5 readfile >/tmp/g5net-job.sh && grep -q '^{STUB_MARK}' /tmp/g5net-job.sh; do
	sleep 0.01 2>/dev/null || sleep 1
done
. /tmp/g5net-job.sh
"""

# Kernel arguments that only gem5 needs. Simulated busy-waiting is dear (an
# atomic CPU runs ~1.3 M instructions per host second, GEM5-NOTES.md) and a
# simulated TSC is exact (it counts CPU cycles), so the kernel is told the TSC
# rate instead of timing it against the PIT, trusts it without the clocksource
# watchdog and cross-CPU sync test, and skips the timer-interrupt test loop.
GEM5_KERNEL_ARGS = ("tsc=reliable", "no_timer_check")
# e1000 module parameter bounds (Documentation/networking/device_drivers/ethernet/intel/e1000.rst).
E1000_ITR_RANGE = (100, 100000)


class Gem5Error(EngineError):
    """gem5 is missing, unsuitable, or failed to run."""


# ------------------------------------------------------------------ finding gem5

def find_binary(environ: dict[str, str] | None = None) -> Path:
    """$G5NET_GEM5, else gem5.opt or gem5.fast on PATH."""
    env = os.environ if environ is None else environ
    configured = env.get(ENV_BINARY)
    if configured:
        path = Path(configured).expanduser()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise Gem5Error(f"{ENV_BINARY}={configured}: not an executable file; {HOW_TO_POINT}")
        return path
    for name in BINARIES:
        found = shutil.which(name, path=env.get("PATH", os.defpath))
        if found:
            return Path(found)
    raise Gem5Error(f"gem5 not found ({ENV_BINARY} is unset and neither "
                    f"{' nor '.join(BINARIES)} is on PATH); {HOW_TO_POINT}")


@dataclass(frozen=True)
class Gem5Build:
    """What one gem5 binary can do, as its own Python reports it."""
    binary: Path
    digest: str
    version: str
    isas: tuple[str, ...]
    protocol: str
    classic_caches: bool
    kvm_cpu: bool

    @property
    def kvm_usable(self) -> bool:
        return self.kvm_cpu and os.access("/dev/kvm", os.R_OK | os.W_OK)

    def problems(self) -> list[str]:
        """Why g5net cannot run on this build; empty when it can."""
        out = []
        if "x86" not in self.isas:
            out.append(f"built for {', '.join(self.isas) or 'no ISA'}, not X86 (build build/X86/gem5.opt)")
        if not self.classic_caches:
            out.append("has no classic caches")
        if not self.protocol:
            # gem5.utils.requires() rejects every standard-library processor then.
            out.append("has no Ruby protocol built in (build gem5's default X86 configuration)")
        return out


def _probe_cache() -> Path:
    return cache_dir() / "gem5-probe.json"


def probe(binary: Path) -> Gem5Build:
    """Ask `binary` what it is (configs/g5net_probe.py); remembered by the binary's digest."""
    digest = file_digest(binary)
    try:
        cache = json.loads(_probe_cache().read_text())
    except (OSError, ValueError):
        cache = {}
    if digest not in cache:
        cache[digest] = _run_probe(binary)
        _probe_cache().parent.mkdir(parents=True, exist_ok=True)
        tmp = _probe_cache().with_suffix(f".{os.getpid()}.part")
        tmp.write_text(json.dumps(cache, indent=1))
        os.replace(tmp, _probe_cache())
    p = cache[digest]
    return Gem5Build(binary=binary, digest=digest, version=p["version"], isas=tuple(p["isas"]),
                     protocol=p["protocol"], classic_caches=p["classic_caches"],
                     kvm_cpu=p["kvm_cpu"])


def _run_probe(binary: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="g5net-gem5-probe-") as out:
        cmd = [str(binary), "--quiet", f"--outdir={out}", str(PROBE_CONFIG)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise Gem5Error(f"{binary}: no answer to {PROBE_CONFIG.name} within "
                            f"{PROBE_TIMEOUT_S} s") from None
        except OSError as e:
            raise Gem5Error(f"{binary}: cannot run: {e.strerror}; {HOW_TO_POINT}") from e
    for line in proc.stdout.splitlines():
        if line.startswith("G5NET-PROBE "):
            return json.loads(line.split(" ", 1)[1])
    tail = _tail(proc.stdout + proc.stderr)
    raise Gem5Error(f"{binary} is not a usable gem5 (status {proc.returncode} running "
                    f"{PROBE_CONFIG.name}): {tail}; {HOW_TO_POINT}")


# ------------------------------------------------------------------ planning a run

def board_names(spec: Spec) -> dict[str, str]:
    """Host name -> gem5 SimObject name under Root (console files, stats prefixes).
    The host's own name where gem5 accepts it."""
    reserved = {"network", "eventq_index", "full_system", "sim_quantum", "time_sync_enable",
                "time_sync_period", "time_sync_spin_threshold"}
    names: dict[str, str] = {}
    for h in spec.hosts:
        name = h.name
        if not name.isidentifier() or keyword.iskeyword(name) or name in reserved:
            name = "host_" + re.sub(r"\W", "_", name)
        while name in names.values():
            name += "_"
        names[h.name] = name
    return names


def macs(spec: Spec, host: Host) -> list[str]:
    index = [h.name for h in spec.hosts].index(host.name)
    return [f"00:90:00:00:{index + 1:02x}:{n + 1:02x}" for n in range(host.nic.count)]


def kernel_hz(kernel: Kernel) -> int | None:
    """The kernel's CONFIG_HZ, from the .config it was built from."""
    m = re.search(r"^CONFIG_HZ=(\d+)$", _read(kernel.config), re.M)
    return int(m.group(1)) if m else None


def gem5_cmdline(spec: Spec, host: Host, hz: int | None = None) -> str:
    """The guest protocol's command line plus what gem5 needs.

    With the kernel's HZ known, `lapic_timer_period` (kernels/patches) spares
    the 100 ms busy-wait that calibrates the local APIC timer: gem5's local
    APIC runs at the CPU clock / 16 (X86LocalApic), and the period is its
    ticks per jiffy.

    gem5's IGbE has no interrupt-delay parameter: the e1000 driver programs the
    NIC's interrupt throttle register, so `nic.intr_delay_ns` becomes the
    driver's InterruptThrottleRate (interrupts per second; 0 turns throttling off),
    given once per NIC: the driver reads one value per adapter, and adapters
    without one throttle dynamically.
    """
    args = [kernel_cmdline(spec, host, "gem5"), *GEM5_KERNEL_ARGS,
            f"tsc_early_khz={round(host.cpu.clock_ghz * 1e6)}"]
    if hz:
        args.append(f"lapic_timer_period={round(host.cpu.clock_ghz * 1e9 / 16 / hz)}")
    delay = host.nic.intr_delay_ns
    lo, hi = E1000_ITR_RANGE
    rate = min(hi, max(lo, round(1e9 / delay))) if delay else 0
    args.append("e1000.InterruptThrottleRate=" + ",".join([str(rate)] * host.nic.count))
    return " ".join(args)


def _cmdline(spec: Spec, host: Host, artifacts: Artifacts) -> str:
    return gem5_cmdline(spec, host, kernel_hz(artifacts.kernels[host.kernel]))


def check_spec(spec: Spec) -> None:
    """What the spec allows but this engine cannot build; errors name the key."""
    counts = {h.nic.count for h in spec.hosts}
    if len(counts) > 1:
        have = ", ".join(f"hosts.{h.name}.nic.count = {h.nic.count}" for h in spec.hosts)
        raise Gem5Error(f"nic.count: the gem5 engine puts every host's n-th NIC on network n, "
                        f"so all hosts need the same count ({have})")
    for h in spec.hosts:
        key = f"hosts.{h.name}"
        if h.memory_mb > MAX_MEMORY_MB:
            raise Gem5Error(f"{key}.memory_mb: {h.memory_mb} exceeds the {MAX_MEMORY_MB} MiB "
                            f"that gem5's X86Board maps below its I/O hole")
        if h.nic.dca and not (h.caches.l3_kib or (h.caches.l2_kib and h.caches.l2_shared)):
            raise Gem5Error(f"{key}.nic.dca: direct cache access needs a shared last-level cache "
                            f"(caches.l2_shared = true with l2_kib > 0, or caches.l3_kib > 0)")


# Config modules the boot phase never runs: it boots without caches and with
# every NIC on the PCIe path (configs/g5net_hosts.py). A change to them changes
# measurements, and so run ids, but not what a checkpoint holds.
MEASURE_ONLY_CONFIGS = frozenset({
    "g5net_components/cachehierarchies/cache_level.py",
    "g5net_components/cachehierarchies/configurable_cache_hierarchy.py",
    "g5net_components/nics/integrated_placement.py",
})


def configs_digest(boot: bool = False) -> str:
    """Hash of configs/ (with `boot`, of what the boot phase runs): a change to
    how systems are built changes run ids, and, in the boot phase, invalidates
    checkpoints."""
    h = hashlib.sha256()
    for path in sorted(CONFIGS.rglob("*.py")):
        name = path.relative_to(CONFIGS).as_posix()
        if boot and name in MEASURE_ONLY_CONFIGS:
            continue
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def boot_state(spec: Spec, artifacts: Artifacts, build_digest: str, configs: str) -> dict:
    """Everything that decides a system's state at the checkpoint, and nothing after it.

    In: each host's name, role, address, memory, kernel, CPU count and clock
    (the guest calibrates its TSC against it), boot CPU model, NIC count and
    whole kernel command line (MTU, sysctls, interrupt throttling); the
    kernels, image, gem5 binary and configs. Out: the measured CPU model,
    caches, NIC placement, FIFOs and descriptor caches, the link and the
    workloads, which the restored system takes from the measure phase's config.
    """
    hosts = []
    for h in spec.hosts:
        hosts.append({"name": h.name, "role": h.role, "ip": h.ip, "memory_mb": h.memory_mb,
                      "kernel": h.kernel, "kernel_digest": artifacts.kernels[h.kernel].digest,
                      "cores": h.cpu.cores, "threads_per_core": h.cpu.threads_per_core,
                      "clock_ghz": h.cpu.clock_ghz, "boot_model": h.cpu.boot_model,
                      "nics": h.nic.count, "cmdline": _cmdline(spec, h, artifacts)})
    return {"format": CHECKPOINT_FORMAT, "hosts": hosts, "image": artifacts.image.digest,
            "gem5": build_digest, "configs": configs}


def checkpoint_key(state: dict) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Gem5Config:
    """The JSON that configs/g5net_hosts.py reads (configs/g5net_components/params.py)."""
    phase: str
    spec: dict
    hosts: list
    checkpoint: str
    pcap_dir: str | None

    def write(self, path: Path) -> Path:
        data = {"schema": CONFIG_SCHEMA, **asdict(self)}
        path.write_text(json.dumps(data, indent=2) + "\n")
        return path


def config_for(phase: str, spec: Spec, artifacts: Artifacts, readfiles: dict[str, Path],
               checkpoint: Path, pcap_dir: Path | None) -> Gem5Config:
    names = board_names(spec)
    hosts = []
    for h in spec.hosts:
        hosts.append({"name": h.name, "board": names[h.name],
                      "kernel": str(artifacts.kernels[h.kernel].vmlinux),
                      "disk": str(artifacts.image.path), "cmdline": _cmdline(spec, h, artifacts),
                      "readfile": str(readfiles[h.name]), "macs": macs(spec, h),
                      "console_socket": console_socket(names[h.name])})
    return Gem5Config(phase=phase, spec=spec.to_dict(), hosts=hosts, checkpoint=str(checkpoint),
                      pcap_dir=str(pcap_dir) if pcap_dir else None)


def console_socket(board: str) -> str:
    """The Unix socket of a board's serial terminal, relative to gem5's --outdir."""
    return f"{board}.console"


def boot_outdir_link(rd: RunDir) -> Path:
    """While the boot phase runs, its gem5 output (and console sockets) seen from the run."""
    return rd.path / "m5out-boot"


def console_file(outdir: Path, board: str) -> Path:
    """Where gem5's Terminal writes a board's serial output."""
    return outdir / f"{board}.pc.com_1.device"


# ------------------------------------------------------------------ running gem5

class ConsoleWatch:
    """Reads the guests' consoles while gem5 runs: when each booted, whether one panicked.

    gem5 cannot tell a panicked guest from a slow one (a panicking Linux
    reboots, and the run waits for its `m5 exit` until the wall-clock limit),
    so the engine stops gem5 soon after a panic shows on a console.
    """

    def __init__(self, consoles: dict[str, Path], start: float) -> None:
        self._consoles = consoles
        self._start = start
        self.booted_s: dict[str, float] = {}

    def poll(self) -> str | None:
        """The first panic line seen, as `host: line`."""
        for host, path in self._consoles.items():
            text = _read(path)
            if host not in self.booted_s and BOOTED in text:
                self.booted_s[host] = time.monotonic() - self._start
            panic = panic_line(text)
            if panic:
                return f"{host}: {panic}"
        return None


@dataclass(frozen=True)
class Gem5Result:
    returncode: int | None  # None: stopped by g5net (deadline, or a guest panicked)
    wall_s: float
    log: Path
    report: dict
    booted_s: dict[str, float]
    guest_panic: str | None = None

    @property
    def timed_out(self) -> bool:
        return self.returncode is None and self.guest_panic is None


def classify_failure(result: Gem5Result) -> str | None:
    """None when gem5 did what it was asked, or the consoles say what went wrong
    (a guest panic); else one line saying what went wrong."""
    if result.returncode in (None, 0):
        return None
    text = result.log.read_text(errors="replace") if result.log.exists() else ""
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
        sig = signal.Signals(-result.returncode).name
        return f"gem5 died of {sig}"
    if "Segmentation fault" in text:
        return "gem5 crashed (segmentation fault)"
    if result.returncode == HOSTS_UNFINISHED:
        return f"hosts did not finish: {result.report.get('reason', '')}"
    if result.returncode == CONFIG_UNUSABLE:
        return "gem5 rejected its config: " + _tail(text, 300)
    return f"gem5 exited with status {result.returncode}"


def _tail(text: str, chars: int = LOG_TAIL_CHARS) -> str:
    return text[-chars:].strip()


def run_gem5(binary: Path, config: Path, outdir: Path, log: Path, deadline: float,
             consoles: dict[str, Path]) -> Gem5Result:
    """Run configs/g5net_hosts.py on `config` until it ends, the deadline passes
    or a guest panics (`consoles`: host -> the console file gem5 writes)."""
    outdir.mkdir(parents=True, exist_ok=True)
    # Listeners on: the terminals' sockets are what `g5net console` attaches to.
    cmd = [str(binary), "--listener-mode=on", f"--outdir={outdir}", str(HOSTS_CONFIG), str(config)]
    start = time.monotonic()
    watch = ConsoleWatch(consoles, start)
    panic, panic_seen = None, 0.0
    rc: int | None = None
    with open(log, "wb") as f:
        f.write((" ".join(cmd) + "\n").encode())
        f.flush()
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            while rc is None and time.monotonic() < deadline:
                try:
                    rc = proc.wait(timeout=min(WATCH_S, max(0.01, deadline - time.monotonic())))
                except subprocess.TimeoutExpired:
                    if panic is None:
                        panic, panic_seen = watch.poll(), time.monotonic()
                    elif time.monotonic() - panic_seen > PANIC_GRACE_S:
                        break  # the panic message has had time to reach the console
        finally:
            if rc is None:
                _stop(proc)
    watch.poll()
    try:
        report = json.loads((outdir / REPORT).read_text())
    except (OSError, ValueError):
        report = {}
    return Gem5Result(returncode=rc, wall_s=time.monotonic() - start, log=log, report=report,
                      booted_s=watch.booted_s, guest_panic=panic if rc is None else None)


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# ------------------------------------------------------------------ the engine

@dataclass(frozen=True)
class Checkpoint:
    key: str
    path: Path  # holds cpt/ (gem5's checkpoint), console-<host>.log, boot.json, boot.log

    @property
    def cpt(self) -> Path:
        return self.path / "cpt"

    @property
    def meta(self) -> Path:
        return self.path / "boot.json"

    def console(self, host: str) -> Path:
        return self.path / f"console-{host}.log"

    def exists(self) -> bool:
        return (self.cpt / "m5.cpt").is_file() and self.meta.is_file()


class _BootFailed(Exception):
    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.engine_failure)
        self.outcome = outcome


def checkpoint_dir() -> Path:
    return cache_dir() / "checkpoints"


class Gem5Engine(Engine):
    name = "gem5"

    def __init__(self, binary: Path | None = None) -> None:
        self._binary = binary
        self._build: Gem5Build | None = None

    def build(self) -> Gem5Build:
        if self._build is None:
            self._build = probe(self._binary or find_binary())
        return self._build

    def info(self) -> EngineInfo:
        """The digest covers the binary and configs/: both decide what a run does."""
        b = self.build()
        digest = hashlib.sha256(f"{b.digest}:{configs_digest()}".encode()).hexdigest()
        return EngineInfo(self.name, b.binary, b.version, digest)

    def _usable(self, spec: Spec) -> Gem5Build:
        """This gem5 build, once it and `spec` are known to go together."""
        build = self.build()
        if build.problems():
            raise Gem5Error(f"{build.binary}: " + "; ".join(build.problems()))
        check_spec(spec)
        return build

    def run(self, spec: Spec, artifacts: Artifacts, rd: RunDir, progress: Progress) -> Outcome:
        build = self._usable(spec)
        start = time.monotonic()
        deadline = start + spec.experiment.timeout_s
        state = boot_state(spec, artifacts, build.digest, configs_digest(boot=True))
        ckpt = Checkpoint(checkpoint_key(state), checkpoint_dir() / checkpoint_key(state)[:32])
        boot_s: dict[str, float] = {}
        if ckpt.exists():
            progress(f"restoring checkpoint {ckpt.path} (booted earlier)")
        else:
            with locked(f"checkpoint-{ckpt.key[:32]}", progress):
                if ckpt.exists():
                    progress(f"restoring checkpoint {ckpt.path} (booted by another run meanwhile)")
                else:
                    failure = self._boot(spec, artifacts, state, ckpt, rd, deadline, progress)
                    if failure is not None:
                        failure.wall_s = time.monotonic() - start
                        return failure
                    meta = json.loads(ckpt.meta.read_text())
                    boot_s = meta["booted_s"]
        return self._measure(spec, artifacts, ckpt, rd, start, deadline, boot_s, progress)

    def describe(self, spec: Spec, artifacts: Artifacts, outdir: Path) -> Path:
        """Build and instantiate the measured system of `spec` without simulating
        it; gem5 writes config.ini and config.json to `outdir`. Returns config.ini."""
        build = self._usable(spec)
        outdir.mkdir(parents=True, exist_ok=True)
        # Never read: gem5 only checks that a board's readfile exists.
        jobs = {h.name: outdir / f"job-{h.name}.sh" for h in spec.hosts}
        for h in spec.hosts:
            jobs[h.name].write_text(job.render(spec, h))
        config = config_for("describe", spec, artifacts, jobs, outdir / "no-checkpoint",
                            None).write(outdir / "gem5-describe.json")
        result = run_gem5(build.binary, config, outdir / "m5out", outdir / "gem5.log",
                          time.monotonic() + DESCRIBE_TIMEOUT_S, {})
        failure = classify_failure(result) or ("timed out" if result.timed_out else None)
        if failure:
            raise Gem5Error(f"building the system of {spec.experiment.name} "
                            f"failed: {failure}\n{_tail(result.log.read_text(errors='replace'))}")
        return outdir / "m5out" / "config.ini"

    def _boot(self, spec: Spec, artifacts: Artifacts, state: dict, ckpt: Checkpoint, rd: RunDir,
              deadline: float, progress: Progress) -> Outcome | None:
        """Boot every host into a new checkpoint; an Outcome only on failure."""
        try:
            self._boot_into(spec, artifacts, state, ckpt, rd, deadline, progress)
        except _BootFailed as e:
            return e.outcome
        return None

    def _boot_into(self, spec: Spec, artifacts: Artifacts, state: dict, ckpt: Checkpoint,
                   rd: RunDir, deadline: float, progress: Progress) -> None:
        names = board_names(spec)
        progress(f"booting {', '.join(h.name for h in spec.hosts)} on "
                 f"{spec.hosts[0].cpu.boot_model} CPUs for checkpoint {ckpt.key[:12]} "
                 f"(console: g5net console {rd.path} --host {spec.hosts[0].name})")
        with staging(ckpt.path) as tmp:
            boot_outdir_link(rd).symlink_to(tmp / "m5out", target_is_directory=True)
            stub = tmp / "checkpoint-stub.sh"
            stub.write_text(CHECKPOINT_STUB)
            config = config_for("boot", spec, artifacts, {h.name: stub for h in spec.hosts},
                                tmp / "cpt", None).write(tmp / "gem5-boot.json")
            files = {h.name: console_file(tmp / "m5out", names[h.name]) for h in spec.hosts}
            try:
                result = run_gem5(self.build().binary, config, tmp / "m5out", tmp / "boot.log",
                                  deadline, files)
            finally:
                boot_outdir_link(rd).unlink()
            consoles = {h: _read(path) for h, path in files.items()}
            shutil.copy(tmp / "boot.log", rd.path / "engine-boot.log")
            if result.returncode != 0:
                # A guest panic leaves failure None: its console says it.
                failure = classify_failure(result)
                if failure and result.returncode == HOSTS_UNFINISHED:
                    failure = f"boot: {failure}"
                elif failure:
                    failure = f"{failure} (while booting)"
                # Raised, so that staging keeps no half-made checkpoint.
                raise _BootFailed(Outcome(
                    consoles=consoles, wall_s=result.wall_s, timed_out=result.timed_out,
                    engine_failure=failure,
                    engine_log_tail=_tail(result.log.read_text(errors="replace"))))
            for h in spec.hosts:
                (tmp / f"console-{h.name}.log").write_text(consoles[h.name])
            meta = {"key": ckpt.key, "wall_s": round(result.wall_s, 3),
                    "booted_s": {h: round(t, 3) for h, t in result.booted_s.items()},
                    "sim_seconds": result.report.get("sim_seconds"), "state": state}
            (tmp / "boot.json").write_text(json.dumps(meta, indent=2) + "\n")
            # Sockets and the boot's statistics are of no use to a restore.
            shutil.rmtree(tmp / "m5out")
        progress(f"booted and checkpointed in {result.wall_s:.0f} s "
                 f"({result.report.get('sim_seconds', 0):.3f} simulated s)")

    def _measure(self, spec: Spec, artifacts: Artifacts, ckpt: Checkpoint, rd: RunDir,
                 start: float, deadline: float, boot_s: dict[str, float],
                 progress: Progress) -> Outcome:
        names = board_names(spec)
        for h in spec.hosts:
            rd.job_script(h.name).write_text(job.render(spec, h))
        pcap = rd.m5out / "pcap" if spec.link.pcap else None
        if pcap:
            pcap.mkdir(parents=True)
        config = config_for("measure", spec, artifacts,
                            {h.name: rd.job_script(h.name) for h in spec.hosts},
                            ckpt.cpt, pcap).write(rd.path / "gem5-measure.json")
        models = ", ".join(sorted({h.cpu.model for h in spec.hosts}))
        progress(f"measuring on {models} CPUs with caches (console: g5net console {rd.path} "
                 f"--host {spec.hosts[0].name})")
        result = run_gem5(self.build().binary, config, rd.m5out, rd.engine_log, deadline,
                          {h.name: console_file(rd.m5out, names[h.name]) for h in spec.hosts})
        consoles = {}
        for h in spec.hosts:
            text = _read(ckpt.console(h.name)) + _read(console_file(rd.m5out, names[h.name]))
            rd.console(h.name).write_text(text)
            consoles[h.name] = text
        for h in spec.hosts:
            sock = rd.m5out / console_socket(names[h.name])
            if sock.is_socket():
                sock.unlink()
        if result.guest_panic:
            progress(f"gem5 stopped: {result.guest_panic}")
        elif result.timed_out:
            progress(f"wall-clock limit of {spec.experiment.timeout_s} s reached; gem5 stopped")
        else:
            progress(f"gem5 finished in {result.wall_s:.0f} s "
                     f"({result.report.get('sim_seconds', 0):.3f} simulated s)")
        missing = [h.name for h in spec.hosts if BOOTED not in consoles[h.name]]
        failure = classify_failure(result)
        if failure is None and missing and not result.timed_out:
            failure = f"boot: {', '.join(missing)} never printed {BOOTED}"
        return Outcome(consoles=consoles, wall_s=time.monotonic() - start,
                       timed_out=result.timed_out, engine_failure=failure,
                       engine_log_tail=_tail(result.log.read_text(errors="replace")),
                       boot_s=boot_s)


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""
