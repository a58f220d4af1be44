"""What one point needs from the machine: CPUs, memory, wall-clock time.

The engine that runs a point says how many CPUs and how much memory its
processes take (`Engine.resources`); the time is the runner's: the spec's
limit and a margin.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..spec import Spec

# The engine enforces experiment.timeout_s and then tears the guests down; a
# worker still alive this much later is hung and is killed.
HARD_KILL_MARGIN_S = 60


@dataclass(frozen=True)
class Resources:
    cpus: int  # in all
    mem_mb: int  # in all
    time_s: int
    # Processes that may each run on a node of their own (an engine's
    # processes laid out per host); their CPUs and memory are shared out evenly.
    tasks: int = 1

    @classmethod
    def of(cls, spec: Spec, cpus: int, mem_mb: int, tasks: int = 1) -> "Resources":
        """What a run of `spec` whose processes take `cpus` and `mem_mb` in all needs."""
        return cls(cpus=cpus, mem_mb=mem_mb, time_s=spec.experiment.timeout_s + HARD_KILL_MARGIN_S,
                   tasks=tasks)

    @property
    def time_min(self) -> int:
        return math.ceil(self.time_s / 60)

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)
