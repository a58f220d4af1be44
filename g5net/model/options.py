"""What a user asks of the engines beyond the spec.

Given on the command line (`--gem5-arg`), kept in a sweep's plan (sweep.json)
for its point workers and SLURM jobs, recorded in run.json, and handed to the
engine by `g5net.engines.get`: never read from the environment, so that
nothing outside the spec and the plan changes a run id. `g5net.engines.options`
makes them from what the user typed, each checked by its engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class EngineOptions:
    # Flags for gem5 itself (g5net/engines/gem5/gem5_args.py says which it takes).
    gem5_args: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"gem5_args": list(self.gem5_args)}

    @classmethod
    def from_dict(cls, d: Any) -> EngineOptions:
        """The options as to_dict wrote them; TypeError where they are not. What
        each engine makes of its own is its check (`g5net.engines.options`)."""
        args = d.get("gem5_args", []) if isinstance(d, Mapping) else None
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise TypeError(f"engine options {d!r}: not {{\"gem5_args\": [words]}}")
        return cls(gem5_args=tuple(args))
