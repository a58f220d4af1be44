"""gem5 engine: the detailed model. Boot fast, measure in detail.

A run is two gem5 processes over one system of every host (configs/g5net_hosts.py):

1. boot: every host boots on `cpu.boot_model` (atomic) without caches. The job
   a guest fetches with `m5 readfile` in this phase is the guest protocol's
   checkpoint stub; once every host has reached its checkpoint, gem5 writes
   one checkpoint of the whole system and exits.
2. measure: the checkpoint is restored with `cpu.model` and the spec's caches;
   each host's `m5 readfile` now returns its real job, which the stub sources.
   gem5 exits once every host has run `m5 exit`.

Checkpoints are shared (checkpoints.py). `experiment.timeout_s` bounds both
phases together; `boot_timeout_s`, a wall-clock figure for QEMU's
seconds-long boots, is not applied: a gem5 boot takes minutes and happens
once per checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...artifacts import kernels
from ...artifacts.cache import locked, locked_if_free, locked_unless, staging
from ...errors import BootError, EngineError, Gem5Error
from ...guest.protocol import BOOTED, checkpoint_stub
from ...machine import atomic, stop_signals
from ...model.identity import spec_digest
from ...model.options import EngineOptions
from ...runs.resources import Resources
from ...runs.rundir import RunDir
from ...spec import Host, Spec, sampled
from ...stats import merge as stats_merge
from ...stats import pc_samples
from ...stats.system import TICKS_PER_S
from ...workloads import job
from ..base import (
    Artifacts,
    BootFailed,
    Engine,
    EngineInfo,
    Outcome,
    Progress,
    StoredCheckpoint,
)
from . import checkpoints, cmdline, dist, doctor, gem5_args
from .boards import board_names, console_file, console_socket
from .checkpoints import Checkpoint, boot_state, checkpoint_key
from .config_files import (
    HOSTS_CONFIG,
    SAMPLED_CONFIG,
    SUPERSEDED_CONFIGS,
    configs_digest,
    dist_config_digest,
    sampled_config_digest,
)
from ...contract.gem5 import REPORT_NAME, ExitStatus, Phase
from .probe import ENV_BINARY, FAST, Gem5Build, find_binary, probe
from .process import (
    BOOT_STALL,
    Gem5Result,
    Stall,
    classify_failure,
    read_text,
    run_gem5,
    teardown_crash,
)
from .run_config import host_cmdlines, run_config
from .sampled import (
    WarmCheckpoints,
    stored_warm,
    fast_forward_spec,
    run_windows,
    fast_forwarded,
    warm_state,
    window_stats,
)

# Memory gem5 takes beyond the guest RAM it models (the object graph, stats):
# in a one-process run, and in each process of a per-host one, which holds
# one board or none (the switch's): measured (gem5's hostMemory) at 0.47-0.56
# GiB beyond its 512 MiB guest for each host of the per-host fan-in, 0.16 GiB
# for its switch; twice that, for headroom.
OVERHEAD_MB = 2048
OVERHEAD_MB_PER_PROCESS = 1024
# gem5's X86Board maps RAM below its 3 GiB I/O hole only.
MAX_MEMORY_MB = 3072
# Building and instantiating even a 64-CPU system takes seconds.
DESCRIBE_TIMEOUT_S = 600


def check_spec(spec: Spec) -> None:
    """What the spec allows but this engine cannot build; errors name the key."""
    counts = {h.nic.count for h in spec.hosts}
    if len(counts) > 1:
        have = ", ".join(f"hosts.{h.name}.nic.count = {h.nic.count}" for h in spec.hosts)
        raise Gem5Error(f"nic.count: the gem5 engine puts every host's n-th NIC on network n, "
                        f"so all hosts need the same count ({have})")
    if spec.experiment.processes == "per-host":
        dist.check_spec(spec)
        if spec.experiment.pc_sample_us:
            raise Gem5Error("experiment.pc_sample_us: program counters are sampled in one-process "
                            "runs only; leave it out, or set experiment.processes = \"one\"")
    for h in spec.hosts:
        for key in ("model", "boot_model"):
            if getattr(h.cpu, key) == "minor":
                raise Gem5Error(f"hosts.{h.name}.cpu.{key}: \"minor\" does not boot x86 full "
                                f"system on gem5 v24 (\"Invalid microop!\", gem5 issue #1206); "
                                f"use timing or o3")
        if h.memory_mb > MAX_MEMORY_MB:
            raise Gem5Error(f"hosts.{h.name}.memory_mb: {h.memory_mb} exceeds the {MAX_MEMORY_MB} "
                            f"MiB that gem5's X86Board maps below its I/O hole")
    cmdline.check_cmdlines(spec)


def job_script(spec: Spec, host: Host) -> str:
    """`host`'s job under gem5: one host of one process frames each region with
    the stats reset and dump (gem5 keeps one set of statistics for them all),
    every host of per-host processes its own; every job ends the run itself,
    since gem5 ends only when every host has run `m5 exit` (job._ending); a
    profiled first workload finds the profiler on from the boot (checkpoint_stub)."""
    per_host = spec.experiment.processes == "per-host"
    if sampled(spec.experiment):
        # Run by the fast-forward, which points differing only after it share.
        spec = fast_forward_spec(spec)
    return job.render(spec, host, dumps_stats=per_host or host.name == job.stats_host(spec).name,
                      profiler_at_boot=job.first_profiled(spec), ends_run=True)


def boot_checkpoint(spec: Spec, artifacts: Artifacts, gem5_digest: str, configs: str) -> Checkpoint:
    """The boot checkpoint of `spec` with these artifacts, gem5 binary and boot configs."""
    cmdlines = host_cmdlines(spec, artifacts)
    # Only a profiler that is on shows in the key: keys of checkpoints booted
    # before it could be stay as they were.
    profiler = {"profiler": True} if job.first_profiled(spec) else {}
    hosts = [(h, {"kernel_digest": artifacts.kernel_of(h).digest, "cmdline": cmdlines[h.name],
                  **profiler})
             for h in spec.hosts]
    per_host = dist_config_digest() if spec.experiment.processes == "per-host" else None
    return Checkpoint.of(boot_state(hosts, artifacts.image.digest, gem5_digest, configs, spec.switched,
                                    per_host))


def _read_json(path: Path) -> dict[str, Any]:
    """A record the cache keeps beside a checkpoint or window; {} where it is
    missing or damaged (what it would say is then not said)."""
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _simulated_since(ckpt: Checkpoint, sim_seconds: Any) -> float | None:
    """Simulated seconds from the restore of `ckpt` to gem5's clock reading
    `sim_seconds`: gem5's clock goes on from the boot's, which boot.json recorded."""
    booted = _read_json(ckpt.meta).get("sim_seconds")
    if not isinstance(booted, (int, float)) or not isinstance(sim_seconds, (int, float)):
        return None
    return round(sim_seconds - booted, 6) if sim_seconds > booted else None


def _sampled_host_seconds(ckpt: Checkpoint, warm: WarmCheckpoints, rd: RunDir, windows: int,
                          made_here: bool) -> dict[str, Any]:
    """run.json's timings.sampled: the fast-forward's host and simulated
    seconds (from the restore of the boot checkpoint) and whether this run
    made it, and each window's host seconds (None where a window has no
    record: measured before they were kept, or not measured)."""
    ff = _read_json(warm.meta)
    return {"fast_forward": {"wall_s": ff.get("wall_s"),
                             "simulated_s": _simulated_since(ckpt, ff.get("sim_seconds")),
                             "this_run": made_here},
            "windows_wall_s": [_read_json(rd.window(k).host_seconds_json).get("wall_s")
                               for k in range(windows)]}


def _error(result: Gem5Result, failure: str) -> EngineError:
    """`failure` (classify_failure's line) as an error: a stalled boot is the
    hosts' (BootError), anything else gem5's."""
    return BootError(failure) if result.stalled else Gem5Error(failure)


class _Unfinished(Exception):
    """A phase of sampled windows that did not finish, as `outcome` says; raised
    inside its staging so that nothing half-made is kept."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(str(outcome.failure))
        self.outcome = outcome


class Gem5Engine(Engine):
    name = "gem5"

    def __init__(self, binary: Path | None = None, args: Sequence[str] = ()) -> None:
        self._binary = binary
        # The user's flags for gem5 (gem5_args.py), from the engine options.
        self._args = gem5_args.check(args)
        self._build: Gem5Build | None = None

    @classmethod
    def from_options(cls, options: EngineOptions) -> Gem5Engine:
        return cls(args=options.gem5_args)

    def check_spec(self, spec: Spec) -> None:
        """The spec's own checks, and those of the spec with this engine's
        --gem5-arg flags: made before a run has a directory."""
        check_spec(spec)
        traced = [a for a in self._args if a.startswith("--debug-")]
        if spec.experiment.pc_sample_us and traced:
            # The samples are the trace: another flag's lines would be lost in
            # it, and --debug-start/--debug-end switch all tracing.
            raise Gem5Error(f"experiment.pc_sample_us: the samples are gem5's debug trace; drop "
                            f"{' '.join(traced)} from the gem5 arguments, or trace in a run "
                            f"without sampling")

    def resources(self, spec: Spec) -> Resources:
        guest_mb = sum(h.memory_mb for h in spec.hosts)
        if spec.experiment.processes == "per-host":
            # A single-threaded gem5 per host, each a task (the first shares
            # its own with g5net and the switch, a gem5 without boards).
            tasks = dist.tasks(spec)
            return Resources.of(spec, cpus=tasks, tasks=tasks,
                                mem_mb=guest_mb + OVERHEAD_MB_PER_PROCESS * (tasks + 1))
        if sampled(spec.experiment):
            # Its windows at once, each a process of every host (sampled.py).
            n = spec.experiment.windows
            return Resources.of(spec, cpus=n, mem_mb=n * (guest_mb + OVERHEAD_MB))
        # Every host in one single-threaded process.
        return Resources.of(spec, cpus=1, mem_mb=guest_mb + OVERHEAD_MB)

    def layout(self, spec: Spec) -> dict[str, Any]:
        """Per host, also how the processes are synchronised: each host's delay
        to dist-gem5's switch, the quantum."""
        if spec.experiment.processes == "one":
            return {"layout": "one"}
        return {"layout": "per-host", "hop_delay_us": spec.hop_delays_us(),
                "sync_quantum_us": spec.sync_quantum_us}

    def probe(self) -> Gem5Build:
        """What this engine's gem5 binary is, asked once."""
        if self._build is None:
            self._build = probe(self._binary or find_binary())
        return self._build

    def info(self) -> EngineInfo:
        """The digest covers the binary, configs/ and the user's gem5 flags that
        may change what is simulated: all decide what a run does."""
        b = self.probe()
        key = f"{b.digest}:{configs_digest()}"
        if gem5_args.simulated(self._args):
            key += ":" + shlex.join(gem5_args.simulated(self._args))
        return EngineInfo(self.name, b.binary, b.version,
                          hashlib.sha256(key.encode()).hexdigest(), self._args)

    def identity(self, spec: Spec) -> dict[str, str]:
        """The configs a per-host or sampled run executes besides configs_digest()'s
        count in those runs' ids alone, so that the others keep theirs."""
        key = super().identity(spec)
        if spec.experiment.processes == "per-host":
            key["per_host"] = dist_config_digest()
        if spec.experiment.pc_sample_us:
            key["pc_sampling"] = sampled_config_digest()
        return key

    def usable(self, spec: Spec) -> None:
        self.usable_build(spec)

    def usable_build(self, spec: Spec) -> Gem5Build:
        """This gem5 build, once it and `spec` are known to go together."""
        build = self.probe()
        if build.problems():
            raise Gem5Error(f"{build.binary}: " + "; ".join(build.problems()))
        if spec.experiment.pc_sample_us and build.binary.name == FAST:
            raise Gem5Error(f"experiment.pc_sample_us: {build.binary} has no instruction trace to "
                            f"sample (gem5.fast compiles it out); point {ENV_BINARY} at gem5.opt")
        self.check_spec(spec)
        return build

    def checkpoint(self, spec: Spec, artifacts: Artifacts) -> Checkpoint:
        """The boot checkpoint `spec` restores (whether it exists yet or not)."""
        return boot_checkpoint(spec, artifacts, self.probe().digest, configs_digest(boot=True))

    def checkpoint_key(self, spec: Spec, artifacts: Artifacts) -> str:
        return self.checkpoint(spec, artifacts).key

    def fast_forward_key(self, spec: Spec) -> str | None:
        # The boot it restores follows from the same spec (self.checkpoint_key).
        return checkpoint_key(fast_forwarded(spec)) if sampled(spec.experiment) else None

    def checkpoint_built(self, key: str) -> bool:
        return checkpoints.built(key)

    def stored_checkpoints(self) -> list[StoredCheckpoint]:
        try:
            gem5 = self.probe().digest
        except EngineError:
            gem5 = None  # no gem5 here: none of them can be restored now
        now = {"gem5": gem5, "configs": configs_digest(boot=True), "per_host": dist_config_digest()}
        out = []
        for c, meta in checkpoints.stored():
            state = c.state
            created = c.meta.stat().st_mtime
            used = c.used.stat().st_mtime if c.used.exists() else created
            current = state.get("gem5") == now["gem5"] and state.get("configs") == now["configs"] \
                and state.get("per_host", now["per_host"]) == now["per_host"]
            hosts = tuple(f"{h.get('name')} ({h.get('cpu.cores', 1) * h.get('cpu.threads_per_core', 1)} "
                          f"CPU, {h.get('kernel')} kernel)" for h in state.get("hosts", []))
            out.append(StoredCheckpoint(
                c.key, c.path, c.size_bytes(), created, used, current,
                {k: state[k] for k in ("gem5", "configs", "image") if k in state}, hosts,
                float(meta.get("wall_s", 0.0))))
        booted = {c.key: c for c in out}
        for w, meta in stored_warm():
            created = w.meta.stat().st_mtime
            # A window measured from them is their last use.
            used = max((p.stat().st_mtime for p in w.path.glob("windows/*/*")), default=created)
            boot = w.state.get("boot", "")
            # Restorable while the boot it started from is, and made as that was.
            of = booted.get(boot)
            out.append(StoredCheckpoint(
                w.key, w.path, w.size_bytes(), created, used, bool(of and of.current),
                dict(of.made_by) if of else {}, (f"warm: {w.state.get('experiment', {}).get('windows')} checkpoints "
                                 f"of a stream from boot {boot[:12]}",),
                float(meta.get("wall_s", 0.0))))
        return sorted(out, key=lambda s: s.created)

    def remove_checkpoint(self, key: str) -> bool:
        warm = next((w for w, _ in stored_warm() if w.key == key), None)
        lock = warm.lock_name if warm else checkpoints.lock_name(key)
        with locked_if_free(lock) as free:
            if not free:
                return False
            shutil.rmtree(warm.path if warm else checkpoints.checkpoint_dir() / key[:32])
            return True

    def boards(self, spec: Spec) -> dict[str, str]:
        return board_names(spec)

    def console_sockets(self, spec: Spec, rd: RunDir, host: str) -> tuple[Path, ...]:
        """The boot's terminal, then the measurement's; a per-host run's
        processes each have their own output folder."""
        socket = console_socket(board_names(spec)[host])
        if spec.experiment.processes == "per-host":
            return (rd.m5out_boot / host / socket, rd.process_out(host) / socket)
        return (rd.m5out_boot / socket, rd.m5out / socket)

    def report_file(self, spec: Spec, rd: RunDir) -> Path:
        """The report gem5 writes as the measured phase of `rd` ends (contract.Report):
        the run's only process's, or its first host's."""
        if spec.experiment.processes == "per-host":
            return rd.process_out(spec.hosts[0].name) / REPORT_NAME
        return rd.m5out / REPORT_NAME

    def doctor(self) -> dict[str, Any]:
        return doctor.report()

    def provenance(self, specs: Sequence[Spec]) -> dict[str, str]:
        """The configs the runs executed (with the sampler's, where one sampled),
        and the patches their kernels were built with (with O3 hosts' own,
        where one ran on O3): the part of a kernel this repository decides
        (its Debian source and compiler are the machine's, as the image's
        packages are)."""
        sampled = any(s.experiment.pc_sample_us for s in specs)
        o3 = any(kernels.boots_o3(h) for s in specs for h in s.hosts)
        return {"configs_digest": configs_digest(),
                **({"sampled_config_digest": sampled_config_digest()} if sampled else {}),
                "kernel_patches": kernels.current_patches_digest(),
                **({"kernel_patches_o3": kernels.current_o3_patches_digest()} if o3 else {})}

    def changed_since(self, provenance: Mapping[str, Any]) -> str | None:
        now = configs_digest()
        if provenance["configs_digest"] not in (now, *SUPERSEDED_CONFIGS):
            return f"configs/ is now {now[:12]}"
        # Results saved before the field was recorded pass here, and their
        # reports say so (superseded); every committed scale records it
        # (tests/test_studies.py holds them to today's patches).
        if "kernel_patches" in provenance and provenance["kernel_patches"] != kernels.current_patches_digest():
            return "kernels/patches/ has changed"
        if provenance.get("kernel_patches_o3", kernels.current_o3_patches_digest()) != \
                kernels.current_o3_patches_digest():
            return "kernels/patches-o3/, which their O3 hosts' kernels had, has changed"
        if provenance.get("sampled_config_digest", sampled_config_digest()) != sampled_config_digest():
            return f"configs/{SAMPLED_CONFIG.name}, which sampled them, has changed"
        return None

    def superseded(self, provenance: Mapping[str, Any]) -> str | None:
        if said := SUPERSEDED_CONFIGS.get(provenance["configs_digest"]):
            return f"configs {said}"
        if provenance.get("kernel_patches") == kernels.current_patches_digest():
            return None
        return "a kernel built from other patches than kernels/patches/ holds now"

    def run(self, spec: Spec, artifacts: Artifacts, rd: RunDir, progress: Progress) -> Outcome:
        start = time.monotonic()
        deadline = start + spec.experiment.timeout_s
        try:
            ckpt, boot_s = self.booted(spec, artifacts, rd, deadline, progress)
        except BootFailed as e:
            e.outcome.wall_s = time.monotonic() - start
            return e.outcome
        # Shared while it restores: `g5net checkpoints prune` removes none in use.
        with locked(checkpoints.lock_name(ckpt.key), progress, shared=True):
            ckpt.used.touch()
            if sampled(spec.experiment):
                return self._sampled(spec, artifacts, ckpt, rd, start, deadline, boot_s, progress)
            return self._measure(spec, artifacts, ckpt, rd, start, deadline, boot_s, progress)

    def booted(self, spec: Spec, artifacts: Artifacts, rd: RunDir, deadline: float,
               progress: Progress) -> tuple[Checkpoint, dict[str, float]]:
        """The boot checkpoint of `spec`, booted into now unless it exists, and
        host -> seconds to its boot marker when it was booted now. A failed
        boot raises BootFailed with the run's Outcome."""
        self.usable(spec)
        ckpt = self.checkpoint(spec, artifacts)
        if ckpt.exists():
            progress(f"restoring checkpoint {ckpt.path} (booted earlier)")
            return ckpt, {}
        with locked_unless(checkpoints.lock_name(ckpt.key), ckpt.exists, progress) as mine:
            if not mine or ckpt.exists():
                progress(f"restoring checkpoint {ckpt.path} (booted by another run meanwhile)")
                return ckpt, {}
            return ckpt, self._boot(spec, artifacts, ckpt, rd, deadline, progress)

    def describe(self, spec: Spec, artifacts: Artifacts, outdir: Path) -> Path:
        """Build and instantiate the measured system of `spec` without simulating
        it; gem5 writes config.ini and config.json to `outdir`, laid out as a run
        directory. Returns config.ini."""
        build = self.usable_build(spec)
        outdir.mkdir(parents=True, exist_ok=True)
        rd = RunDir(outdir)
        # Never read: gem5 only checks that a board's readfile exists.
        jobs = {h.name: rd.job_script(h.name) for h in spec.hosts}
        for h in spec.hosts:
            jobs[h.name].write_text(job_script(spec, h))
        config = atomic.write_text(rd.gem5_config(Phase.DESCRIBE.value), run_config(
            Phase.DESCRIBE, spec, artifacts, jobs, outdir / "no-checkpoint").to_json())
        result = run_gem5(build.binary, config, rd.m5out, rd.engine_log,
                          time.monotonic() + DESCRIBE_TIMEOUT_S, {},
                          extra_args=self._args)
        failure = classify_failure(result) or ("timed out" if result.timed_out else None)
        if failure:
            raise Gem5Error(f"building the system of {spec.experiment.name} "
                            f"failed: {failure}\n{result.log_tail()}")
        return rd.config_ini

    def _boot(self, spec: Spec, artifacts: Artifacts, ckpt: Checkpoint, rd: RunDir,
              deadline: float, progress: Progress) -> dict[str, float]:
        """Boot every host into a new checkpoint; host -> seconds to its boot
        marker. Raises BootFailed, so that staging keeps no half-made checkpoint."""
        progress(f"booting {', '.join(h.name for h in spec.hosts)} on "
                 f"{spec.hosts[0].cpu.boot_model} CPUs for checkpoint {ckpt.key[:12]} "
                 f"(console: g5net console {rd.path} --host {spec.hosts[0].name})")
        try:
            return self._boot_into(spec, artifacts, ckpt, rd, deadline, progress)
        finally:
            # A stop that came once the boot was simulated unwinds now, its
            # checkpoint published (or its failure recorded) for the next run.
            stop_signals.release()

    def _boot_into(self, spec: Spec, artifacts: Artifacts, ckpt: Checkpoint, rd: RunDir,
                   deadline: float, progress: Progress) -> dict[str, float]:
        with staging(ckpt.path) as tmp:
            new = ckpt.staged(tmp)
            rd.m5out_boot.symlink_to(new.m5out, target_is_directory=True)
            new.stub.write_text(checkpoint_stub(job.first_profiled(spec)))
            config = atomic.write_text(new.config, run_config(
                Phase.BOOT, spec, artifacts, {h.name: new.stub for h in spec.hosts},
                new.cpt).to_json())
            try:
                result, files = self._run_phase(spec, config, new, new.m5out, new.cpt, new.boot_log,
                                                deadline, lambda line: progress(f"booting: {line}"),
                                                stall=BOOT_STALL)
                stop_signals.hold()  # minutes of boot simulated: published before a stop unwinds
            finally:
                rd.m5out_boot.unlink()
            consoles = {name: read_text(path) for name, path in files.items()}
            shutil.copy(new.boot_log, rd.engine_boot_log)
            if result.returncode != ExitStatus.DONE:
                for name, text in consoles.items():
                    rd.console(name).write_text(text)
                raise BootFailed(self._boot_failure(result, consoles))
            for h in spec.hosts:
                new.console(h.name).write_text(consoles[h.name])
            booted_s = {h: round(t, 3) for h, t in result.booted_s.items()}
            atomic.write_json(new.meta, {
                "key": ckpt.key, "wall_s": round(result.wall_s, 3), "booted_s": booted_s,
                "sim_seconds": result.sim_seconds,
                # Board -> instructions each CPU committed while booting (as of
                # the last progress report before the checkpoint).
                "insts": result.progress.insts if result.progress else {},
                "state": ckpt.state})
            # Sockets and the boot's statistics are of no use to a restore.
            shutil.rmtree(new.m5out)
        progress(f"booted and checkpointed in {result.wall_s:.0f} s "
                 f"({result.sim_seconds:.3f} simulated s)")
        return booted_s

    def _run_phase(self, spec: Spec, config: Path, out: dist.Outputs, m5out: Path, cpt: Path,
                   log: Path, deadline: float, report: Callable[[str], None],
                   stall: Stall | None = None, extra_args: Sequence[str] = (),
                   entry: Path = HOSTS_CONFIG) -> tuple[Gem5Result, dict[str, Path]]:
        """Run a phase in one gem5 process (`entry`: the config it runs), writing
        to `m5out` and `log`, or in per-host ones (dist.py), writing where `out`
        says; also host -> the console file its process writes."""
        names = board_names(spec)
        binary = self.probe().binary
        if spec.experiment.processes == "per-host":
            return (dist.run(binary, spec, config, out, cpt, log, deadline, names, report, stall,
                             extra_args), dist.host_consoles(spec, out, names))
        files = {h.name: console_file(m5out, names[h.name]) for h in spec.hosts}
        return (run_gem5(binary, config, m5out, log, deadline, files, report, stall, extra_args, entry),
                files)

    @staticmethod
    def _boot_failure(result: Gem5Result, consoles: dict[str, str]) -> Outcome:
        # A guest panic leaves failure None: its console says it.
        failure = classify_failure(result)
        error: EngineError | None = None
        if failure and result.returncode == ExitStatus.HOSTS_UNFINISHED:
            error = BootError(f"boot: {failure}")
        elif failure:
            error = _error(result, f"{failure} (while booting)")
        return Outcome(consoles=consoles, wall_s=result.wall_s, timed_out=result.timed_out,
                       failure=error, engine_log_tail=result.log_tail())

    def warm_checkpoints(self, spec: Spec, boot: Checkpoint) -> tuple[WarmCheckpoints, dict[str, str]]:
        """The warm checkpoints of sampled `spec` from its boot checkpoint
        (whether they exist yet or not), and the jobs its fast-forward runs."""
        jobs = {h.name: job_script(spec, h) for h in spec.hosts}
        return WarmCheckpoints.of(warm_state(spec, boot, jobs)), jobs

    def _sampled(self, spec: Spec, artifacts: Artifacts, ckpt: Checkpoint, rd: RunDir,
                 start: float, deadline: float, boot_s: dict[str, float],
                 progress: Progress) -> Outcome:
        """Sampled windows (sampled.py): the stream's warm checkpoints, made
        unless another point made them, then its windows, those not measured yet."""
        names = board_names(spec)
        warm, failed, made_here = self._warm(spec, artifacts, ckpt, rd, deadline, progress)
        if failed:
            return Outcome(consoles=failed.consoles, wall_s=time.monotonic() - start,
                           timed_out=failed.timed_out, failure=failed.failure,
                           engine_log_tail=failed.engine_log_tail, boot_s=boot_s, boards=names)
        run = self._windows_key(spec)
        n = spec.experiment.windows
        todo = [k for k in range(n) if not warm.window(run, k).is_dir()]
        if len(todo) < n:
            progress(f"{n - len(todo)} of {n} windows measured earlier" +
                     (": measuring the rest" if todo else ""))
        # The cores this process may use: on a SLURM node, its allocation's.
        parallel = min(len(todo), len(os.sched_getaffinity(0)))
        if todo:
            progress(f"measuring {len(todo)} windows from warm checkpoints {warm.key[:12]}, "
                     f"{parallel} at a time, on {spec.hosts[0].cpu.model} CPUs with caches")
        with locked(warm.lock_name, progress, shared=True):
            errors = [e for e in run_windows(todo, parallel, lambda k: self._window(
                spec, artifacts, warm, warm.window(run, k), k, rd, deadline, progress)) if e]
            stop_signals.hold()  # as at the end of _measure
            for k in range(n):
                if warm.window(run, k).is_dir():
                    shutil.copytree(warm.window(run, k), rd.window(k).path)
        timed_out = any(e.timed_out for e in errors)
        failure = next((e.failure for e in errors if e.failure), None)
        # Each host's console from its boot to the last warm checkpoint.
        consoles = {h.name: read_text(warm.console(h.name)) for h in spec.hosts}
        for name, text in consoles.items():
            rd.console(name).write_text(text)
        return Outcome(consoles=consoles, wall_s=time.monotonic() - start, timed_out=timed_out,
                       failure=failure,
                       engine_log_tail=errors[0].engine_log_tail if errors else "",
                       boot_s=boot_s, boards=names,
                       sampled=_sampled_host_seconds(ckpt, warm, rd, n, made_here))

    def measure_window(self, spec: Spec, artifacts: Artifacts, k: int, progress: Progress) -> str | None:
        """Window k of sampled `spec` into the cache, booting and fast-forwarding
        first where no point has: a SLURM array task's work (runners/window.py),
        whose point then finds it measured. What failed, or None."""
        deadline = time.monotonic() + spec.experiment.timeout_s
        with tempfile.TemporaryDirectory() as tmp:
            rd = RunDir(Path(tmp))
            try:
                ckpt, _ = self.booted(spec, artifacts, rd, deadline, progress)
            except BootFailed as e:
                return str(e)
            with locked(checkpoints.lock_name(ckpt.key), progress, shared=True):
                ckpt.used.touch()
                warm, failed, _ = self._warm(spec, artifacts, ckpt, rd, deadline, progress)
                if failed:
                    return str(failed.failure or "the fast-forward timed out")
                final = warm.window(self._windows_key(spec), k)
                if final.is_dir():
                    progress(f"window {k}: measured earlier")
                    return None
                with locked(warm.lock_name, progress, shared=True):
                    out = self._window(spec, artifacts, warm, final, k, rd, deadline, progress)
        return None if out is None else str(out.failure or "timed out")

    def _windows_key(self, spec: Spec) -> str:
        """Under what a point's measured windows are kept beside their warm
        checkpoints: what decides them besides those (the engine, the spec)."""
        return hashlib.sha256(f"{self.info().digest}:{spec_digest(spec)}".encode()).hexdigest()

    def _warm(self, spec: Spec, artifacts: Artifacts, ckpt: Checkpoint, rd: RunDir, deadline: float,
              progress: Progress) -> tuple[WarmCheckpoints, Outcome | None, bool]:
        """The warm checkpoints of `spec`, fast-forwarded into now unless they
        exist; the fast-forward's failure, or None; whether this run made
        them. The jobs go into `rd`."""
        warm, jobs = self.warm_checkpoints(spec, ckpt)
        for h in spec.hosts:
            rd.job_script(h.name).write_text(jobs[h.name])
        if not warm.exists():
            with locked_unless(warm.lock_name, warm.exists, progress) as mine:
                if mine and not warm.exists():
                    return warm, self._fast_forward(spec, artifacts, ckpt, warm, jobs, rd, deadline,
                                                    progress), True
        return warm, None, False

    def _fast_forward(self, spec: Spec, artifacts: Artifacts, ckpt: Checkpoint, warm: WarmCheckpoints,
                      jobs: dict[str, str], rd: RunDir, deadline: float,
                      progress: Progress) -> Outcome | None:
        """The stream from the boot checkpoint into its warm checkpoints; the
        failure's Outcome, or None once they are in place."""
        n = spec.experiment.windows
        progress(f"fast-forwarding the stream on {spec.hosts[0].cpu.boot_model} CPUs into {n} warm "
                 f"checkpoints {warm.key[:12]}, {spec.experiment.sample_every_ms:g} simulated ms apart")
        try:
            self._fast_forward_into(spec, artifacts, ckpt, warm, jobs, rd, deadline, progress)
        except _Unfinished as e:
            return e.outcome
        finally:
            stop_signals.release()  # as after a boot (_boot): the warm checkpoints published first
        return None

    def _fast_forward_into(self, spec: Spec, artifacts: Artifacts, ckpt: Checkpoint,
                           warm: WarmCheckpoints, jobs: dict[str, str], rd: RunDir, deadline: float,
                           progress: Progress) -> None:
        n = spec.experiment.windows
        with staging(warm.path) as tmp:
            new = warm.staged(tmp)
            for h in spec.hosts:
                new.job(h.name).write_text(jobs[h.name])
            config = atomic.write_text(new.config, run_config(
                Phase.FAST_FORWARD, spec, artifacts, {h.name: new.job(h.name) for h in spec.hosts},
                ckpt.cpt, checkpoints_out=[new.cpt(k) for k in range(n)]).to_json())
            result, files = self._run_phase(spec, config, rd, new.m5out, ckpt.cpt, new.log, deadline,
                                            lambda line: progress(f"fast-forward: {line}"))
            stop_signals.hold()
            consoles = {h.name: read_text(ckpt.console(h.name)) + read_text(files[h.name])
                        for h in spec.hosts}
            if result.returncode != ExitStatus.DONE:
                failure = classify_failure(result) or "the fast-forward ended early"
                shutil.copy(new.log, rd.engine_log)
                raise _Unfinished(Outcome(consoles=consoles, wall_s=result.wall_s,
                                          timed_out=result.timed_out,
                                          failure=_error(result, f"fast-forward: {failure}"),
                                          engine_log_tail=result.log_tail()))
            for h in spec.hosts:
                new.console(h.name).write_text(consoles[h.name])
            shutil.rmtree(new.m5out)
            atomic.write_json(new.meta, {"key": warm.key, "wall_s": round(result.wall_s, 3),
                                         "sim_seconds": result.sim_seconds, "state": warm.state})
        progress(f"fast-forwarded in {result.wall_s:.0f} s ({result.sim_seconds:.3f} simulated s)")

    def _window(self, spec: Spec, artifacts: Artifacts, warm: WarmCheckpoints, final: Path, k: int,
                rd: RunDir, deadline: float, progress: Progress) -> Outcome | None:
        """Window k from its warm checkpoint into `final`, laid out as a run
        directory; the failure's Outcome, or None."""
        try:
            self._window_into(spec, artifacts, warm, final, k, rd, deadline, progress)
        except _Unfinished as e:
            return e.outcome
        return None

    def _window_into(self, spec: Spec, artifacts: Artifacts, warm: WarmCheckpoints, final: Path,
                     k: int, rd: RunDir, deadline: float, progress: Progress) -> None:
        e = spec.experiment
        with staging(final) as tmp:
            out = RunDir(tmp)
            config = atomic.write_text(out.gem5_config(Phase.WINDOW.value), run_config(
                Phase.WINDOW, spec, artifacts, {h.name: warm.job(h.name) for h in spec.hosts},
                warm.cpt(k)).to_json())
            progress(f"window {k}: {e.functional_warming_ms:g} ms functional and "
                     f"{e.detailed_warming_ms:g} ms detailed warming, then {e.window_ms:g} ms")
            result, _ = self._run_phase(spec, config, rd, out.m5out, warm.cpt(k), out.engine_log,
                                        deadline, lambda line: progress(f"window {k}: {line}"))
            if result.returncode != ExitStatus.DONE:
                failure = classify_failure(result) or "ended early"
                rd.window(k).path.mkdir(parents=True, exist_ok=True)
                shutil.copy(out.engine_log, rd.window(k).engine_log)
                raise _Unfinished(Outcome(consoles={}, wall_s=result.wall_s,
                                          timed_out=result.timed_out,
                                          failure=_error(result, f"window {k}: {failure}"),
                                          engine_log_tail=result.log_tail()))
            gem5_stats = out.m5out / "stats-gem5.txt"
            out.stats_txt.rename(gem5_stats)
            window_stats(gem5_stats, out.stats_txt)
            gem5_stats.unlink()
            for sock in out.m5out.glob("*"):
                if sock.is_socket():
                    sock.unlink()
            atomic.write_json(out.host_seconds_json, {"wall_s": round(result.wall_s, 3)})
        progress(f"window {k}: measured in {result.wall_s:.0f} s")

    def _measure(self, spec: Spec, artifacts: Artifacts, ckpt: Checkpoint, rd: RunDir,
                 start: float, deadline: float, boot_s: dict[str, float],
                 progress: Progress) -> Outcome:
        names = board_names(spec)
        for h in spec.hosts:
            rd.job_script(h.name).write_text(job_script(spec, h))
        pcap = rd.pcap_dir if spec.link.pcap else None
        if pcap:
            pcap.mkdir(parents=True)
        config = atomic.write_text(rd.gem5_config(Phase.MEASURE.value), run_config(
            Phase.MEASURE, spec, artifacts, {h.name: rd.job_script(h.name) for h in spec.hosts},
            ckpt.cpt, pcap).to_json())
        models = ", ".join(sorted({h.cpu.model for h in spec.hosts}))
        progress(f"measuring on {models} CPUs with caches (console: g5net console {rd.path} "
                 f"--host {spec.hosts[0].name})")
        sampled = spec.experiment.pc_sample_us
        extra = (*self._args, *((f"--debug-file={rd.pc_trace.name}",) if sampled else ()))
        reducer = None
        if sampled:
            rd.m5out.mkdir(parents=True, exist_ok=True)
            reducer = pc_samples.TraceReducer(rd.pc_trace, round(sampled * 1e-6 * TICKS_PER_S),
                                              rd.pc_samples)
        try:
            result, files = self._run_phase(spec, config, rd, rd.m5out, ckpt.cpt, rd.engine_log,
                                            deadline, lambda line: progress(f"measuring: {line}"),
                                            extra_args=extra,
                                            entry=SAMPLED_CONFIG if sampled else HOSTS_CONFIG)
            # The simulation is over: a stop now waits for its results (runners/execute.py).
            stop_signals.hold()
        finally:
            if reducer is not None:
                progress(reducer.finish())
        if spec.experiment.processes == "per-host":
            stats_merge.merge({h.name: rd.host_stats(h.name) for h in spec.hosts},
                              names, job.stats_host(spec).name, rd.stats_txt)
        consoles = {}
        for h in spec.hosts:
            text = read_text(ckpt.console(h.name)) + read_text(files[h.name])
            rd.console(h.name).write_text(text)
            consoles[h.name] = text
            sock = files[h.name].with_name(console_socket(names[h.name]))
            if sock.is_socket():
                sock.unlink()
        if result.guest_panic:
            progress(f"gem5 stopped: {result.guest_panic}")
        elif result.timed_out:
            progress(f"wall-clock limit of {spec.experiment.timeout_s} s reached; gem5 stopped")
        else:
            progress(f"gem5 finished in {result.wall_s:.0f} s ({result.sim_seconds:.3f} simulated s)")
        missing = [h.name for h in spec.hosts if BOOTED not in consoles[h.name]]
        failure = classify_failure(result)
        error = _error(result, failure) if failure else None
        if failure is None and missing and not result.timed_out:
            error = BootError(f"boot: {', '.join(missing)} never printed {BOOTED}")
        crash = teardown_crash(result)
        if crash:
            progress(crash)
        return Outcome(consoles=consoles, wall_s=time.monotonic() - start,
                       timed_out=result.timed_out, failure=error,
                       engine_log_tail=result.log_tail(), boot_s=boot_s, boards=names,
                       notes=[crash] if crash else [],
                       simulated_s=_simulated_since(ckpt, result.sim_seconds))
