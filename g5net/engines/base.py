"""What every engine provides; the run layer (`g5net.runs.execute`) drives it.

An engine never reads TOML: it receives a validated `Spec`, the artifacts to
boot, and the `RunDir` to write into, and reports what happened as an
`Outcome`. Classifying that outcome into a run status is `g5net.runs.execute`'s job.
"""

from __future__ import annotations

import abc
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..artifacts import Image, Kernel, cache_dir
from ..artifacts.cache import sha256_file
from ..machine import atomic
from ..runs.rundir import RunDir
from ..spec import Spec

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Artifacts:
    """What a run boots: one kernel per variant its hosts use, and the image."""
    kernels: dict[str, Kernel]
    image: Image

    def digests(self) -> dict[str, str]:
        d = {f"kernel-{v}": k.digest for v, k in sorted(self.kernels.items())}
        d["image"] = self.image.digest
        return d


@dataclass
class Outcome:
    consoles: dict[str, str]
    wall_s: float
    timed_out: bool = False
    # Set when the engine itself failed (crash, panic of the simulator), with its log tail.
    engine_failure: str | None = None
    engine_log_tail: str = ""
    boot_s: dict[str, float] = field(default_factory=dict)
    # Host -> the prefix of its statistics in the engine's stats.txt (gem5's
    # board names); empty where the engine writes none.
    boards: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EngineInfo:
    name: str
    binary: Path
    version: str
    digest: str
    # Flags the user passes to the engine itself (recorded in run.json).
    args: tuple[str, ...] = ()
    # What else decides a run whose processes are laid out per host (gem5's
    # dist-gem5 configs); part of those runs' ids only.
    per_host_digest: str | None = None
    # Likewise for runs that sample program counters (experiment.pc_sample_us).
    pc_sampling_digest: str | None = None


class Engine(abc.ABC):
    name: str

    @abc.abstractmethod
    def info(self) -> EngineInfo:
        """The binary this engine would run; EngineError saying how to get one if absent."""

    def check_spec(self, spec: Spec) -> None:
        """EngineError naming the key, where `spec` asks for what this engine cannot
        build; run before a run directory exists, and by every dry run."""

    def checkpoint_key(self, spec: Spec, artifacts: Artifacts) -> str | None:
        """The key of the boot checkpoint `spec` restores, shared by every run with the
        same key; None where the engine boots every host in every run."""
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
