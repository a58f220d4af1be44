"""What every engine provides; the run layer (`g5net.runners.execute`) drives it.

An engine never reads TOML: it receives a validated `Spec`, the artifacts to
boot, and the `RunDir` to write into, and reports what happened as an
`Outcome`. Classifying that outcome into a run status is `g5net.runners.execute`'s job.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..artifacts import Image, Kernel, cache_dir, kernels
from ..artifacts.cache import sha256_file
from ..errors import EngineError
from ..machine import atomic
from ..model.options import EngineOptions
from ..runs.resources import Resources
from ..runs.rundir import RunDir
from ..spec import Host, Spec

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Artifacts:
    """What a run boots: one kernel per build its hosts use (by its name in
    kernels.BUILDS), and the image."""
    kernels: dict[str, Kernel]
    image: Image

    def kernel_of(self, host: Host) -> Kernel:
        return self.kernels[kernels.for_host(host)]

    def digests(self) -> dict[str, str]:
        d = {f"kernel-{v}": k.digest for v, k in sorted(self.kernels.items())}
        d["image"] = self.image.digest
        return d


@dataclass
class Outcome:
    consoles: dict[str, str]
    wall_s: float
    timed_out: bool = False
    # Set when the engine itself failed (crash, panic of the simulator; a
    # BootError where the hosts did not boot), with its log tail.
    failure: EngineError | None = None
    engine_log_tail: str = ""
    boot_s: dict[str, float] = field(default_factory=dict)
    # Simulated seconds the measured phase covered, from its restore to its
    # end (run.json's timings.simulated_s: what the dry run's host-hour
    # estimate divides by); None where the engine cannot say.
    simulated_s: float | None = None
    # Of sampled windows: the fast-forward's host and simulated seconds (and
    # whether this run made it, or took it from another point), and each
    # window's host seconds (run.json's timings.sampled).
    sampled: dict[str, Any] = field(default_factory=dict)
    # Host -> the prefix of its statistics in the engine's stats.txt (gem5's
    # board names); empty where the engine writes none.
    boards: dict[str, str] = field(default_factory=dict)
    # What the engine did that a reader of the results should know, though
    # it spoiled nothing (run.json's `engine_notes`).
    notes: list[str] = field(default_factory=list)


class BootFailed(EngineError):
    """A boot into a checkpoint failed, as `outcome` says (its `failure`, or a
    guest panic on its consoles, or the time limit)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(str(outcome.failure) if outcome.failure else
                         "timed out" if outcome.timed_out else "a guest panicked (its console says how)")
        self.outcome = outcome


@dataclass(frozen=True)
class StoredCheckpoint:
    """A boot checkpoint an engine keeps in g5net's cache (`g5net checkpoints`)."""
    key: str
    path: Path
    size_bytes: int
    created: float  # seconds since the epoch: when its boot finished
    last_used: float  # when a run last restored it (`created` where none has)
    # Whether this engine, as it is now, can restore it: a checkpoint booted by
    # another gem5 binary or other configs is never used again.
    current: bool
    made_by: Mapping[str, str]  # what made it: the digests of the binary, configs, image
    hosts: tuple[str, ...]  # each host as booted: name, CPUs, kernel
    boot_wall_s: float


@dataclass(frozen=True)
class EngineInfo:
    name: str
    binary: Path
    version: str
    digest: str
    # Flags the user passes to the engine itself (recorded in run.json).
    args: tuple[str, ...] = ()


class Engine(abc.ABC):
    name: str

    @classmethod
    @abc.abstractmethod
    def from_options(cls, options: EngineOptions) -> Engine:
        """The engine as `g5net.engines.get` makes it, with the user's options."""

    @abc.abstractmethod
    def info(self) -> EngineInfo:
        """The binary this engine would run; EngineError saying how to get one if absent."""

    def identity(self, spec: Spec) -> dict[str, str]:
        """The engine's part of a run id of `spec` (g5net.model.identity): what of
        the engine decides the run. Its name and digest; an engine adds what
        else `spec` makes it execute."""
        info = self.info()
        return {"name": info.name, "digest": info.digest}

    @abc.abstractmethod
    def resources(self, spec: Spec) -> Resources:
        """The CPUs, memory and tasks a run of `spec` takes on this engine."""

    @abc.abstractmethod
    def layout(self, spec: Spec) -> dict[str, Any]:
        """How this engine lays out the processes of a run of `spec`: `layout`
        (`one` process for every host, or `per-host`) and what goes with it."""

    def check_spec(self, spec: Spec) -> None:
        """EngineError naming the key, where `spec` asks for what this engine cannot
        build; run before a run directory exists, and by every dry run."""

    def checkpoint_key(self, spec: Spec, artifacts: Artifacts) -> str | None:
        """The key of the boot checkpoint `spec` restores, shared by every run with the
        same key; None where the engine boots every host in every run."""
        return None

    def fast_forward_key(self, spec: Spec) -> str | None:
        """Of a spec whose windows are sampled from warm checkpoints: what its
        fast-forward is shared by (points of one sweep with the same key make
        one), None where the engine fast-forwards nothing."""
        return None

    def checkpoint_built(self, key: str) -> bool:
        """Whether the boot checkpoint of `key` (checkpoint_key) is built."""
        return False

    def stored_checkpoints(self) -> list[StoredCheckpoint]:
        """Every boot checkpoint this engine keeps, oldest first."""
        return []

    def remove_checkpoint(self, key: str) -> bool:
        """Remove the boot checkpoint of `key`, unless a run is booting or
        restoring it now; whether it was removed."""
        raise EngineError(f"the {self.name} engine keeps no checkpoints")

    def boards(self, spec: Spec) -> dict[str, str]:
        """Host -> the prefix of its statistics in the engine's stats.txt; empty
        where the engine writes none."""
        return {}

    def console_sockets(self, spec: Spec, rd: RunDir, host: str) -> tuple[Path, ...]:
        """The sockets of `host`'s interactive serial terminal while `rd` runs, in
        the order the run opens them; none where the engine only writes the console."""
        return ()

    def usable(self, spec: Spec) -> None:
        """EngineError where this engine cannot run `spec` here: no binary, or one
        that lacks what `spec` asks for."""
        self.info()
        self.check_spec(spec)

    def describe(self, spec: Spec, artifacts: Artifacts, outdir: Path) -> Path:
        """Build the system of `spec` without simulating it, into `outdir`; the
        engine's description of it (gem5's config.ini)."""
        raise EngineError(f"experiment.engine: the {self.name} engine builds no system to describe")

    def measure_window(self, spec: Spec, artifacts: Artifacts, k: int, progress: Progress) -> str | None:
        """Window k of `spec`'s sampled windows, measured by itself and kept
        where the point's run finds it (a SLURM array task's work); what
        failed, or None."""
        raise EngineError(f"experiment.window_method: the {self.name} engine measures no window "
                          f"by itself")

    @abc.abstractmethod
    def doctor(self) -> dict[str, Any]:
        """This engine's entries of `g5net doctor`: what it finds here, each with
        `ok`, and where something is missing what it is needed for."""

    def provenance(self, specs: Sequence[Spec]) -> dict[str, str]:
        """What a study's committed results made from runs of `specs` record of
        this engine beyond its version, to tell later whether they are current."""
        return {}

    def changed_since(self, provenance: Mapping[str, Any]) -> str | None:
        """What of this engine changed since `provenance` (provenance()) was
        recorded, in words; None where nothing did."""
        return None

    def superseded(self, provenance: Mapping[str, Any]) -> str | None:
        """What results with `provenance` ran that today's runs would not, in
        words, where changed_since lets them pass (a kernel's patches before
        provenance recorded them, configs a named mend superseded while its
        results are run again); None where they ran what today's run."""
        return None

    @abc.abstractmethod
    def run(self, spec: Spec, artifacts: Artifacts, rd: RunDir, progress: Progress) -> Outcome:
        """Boot every host, run the workloads, leave consoles and engine output in `rd`."""


def file_digest(path: Path) -> str:
    """sha256 of a binary, remembered by (path, size, mtime) so a 700 MB gem5 is hashed once."""
    st = path.stat()
    key = f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}"
    cache_file = cache_dir() / "binary-digests.json"
    try:
        cache = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        cache = {}
    if key not in cache:
        cache[key] = sha256_file(path).hexdigest()
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_json(cache_file, cache)
    return cache[key]
