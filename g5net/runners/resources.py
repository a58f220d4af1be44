"""What one point needs from the machine: CPUs, memory, wall-clock time."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..engines.gem5 import dist
from ..spec import Spec

# Memory a simulator needs beyond the guest RAM it models: a QEMU process per
# host (code cache, devices), a gem5 process per run (the object graph, stats).
QEMU_OVERHEAD_MB_PER_HOST = 256
GEM5_OVERHEAD_MB = 2048
# A per-host gem5 process holds one board, or none (the switch's): measured
# (gem5's hostMemory) at 0.47-0.56 GiB beyond its 512 MiB guest for each host
# of the per-host fan-in, 0.16 GiB for its switch; twice that, for headroom.
GEM5_OVERHEAD_MB_PER_PROCESS = 1024
# The engine enforces experiment.timeout_s and then tears the guests down; a
# worker still alive this much later is hung and is killed.
HARD_KILL_MARGIN_S = 60


@dataclass(frozen=True)
class Resources:
    cpus: int  # in all
    mem_mb: int  # in all
    time_s: int
    # Processes that may each run on a node of their own (gem5's per-host
    # processes, dist.tasks); their CPUs and memory are shared out evenly.
    tasks: int = 1

    @classmethod
    def of(cls, spec: Spec) -> "Resources":
        guest_mb = sum(h.memory_mb for h in spec.hosts)
        if spec.experiment.engine == "qemu":
            # One QEMU per host, one TCG thread per virtual CPU.
            cpus = sum(h.cpu.count for h in spec.hosts)
            mem_mb = guest_mb + QEMU_OVERHEAD_MB_PER_HOST * len(spec.hosts)
        elif spec.experiment.processes == "per-host":
            # A single-threaded gem5 per host, each a task (the first shares
            # its own with g5net and the switch, a gem5 without boards).
            tasks = dist.tasks(spec)
            return cls(cpus=tasks, mem_mb=guest_mb + GEM5_OVERHEAD_MB_PER_PROCESS * (tasks + 1),
                       time_s=spec.experiment.timeout_s + HARD_KILL_MARGIN_S, tasks=tasks)
        else:
            cpus = 1  # gem5 simulates every host in one single-threaded process
            mem_mb = guest_mb + GEM5_OVERHEAD_MB
        return cls(cpus=cpus, mem_mb=mem_mb, time_s=spec.experiment.timeout_s + HARD_KILL_MARGIN_S)

    @property
    def time_min(self) -> int:
        return math.ceil(self.time_s / 60)

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)
