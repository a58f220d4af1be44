"""Engines: which simulator models the hosts. Chosen by name from the spec.

`get` is the one door to an engine: nothing outside an engine's package
imports it; callers ask the `Engine` (base.py) what they need.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import EngineError
from ..model.options import EngineOptions
from .base import Engine

NAMES = ("qemu", "gem5")


def options(gem5_args: Sequence[str] = ()) -> EngineOptions:
    """The user's engine options, each checked by the engine it is for and
    written as it reads them (UsageError naming the flag)."""
    from .gem5 import gem5_args as gem5
    return EngineOptions(gem5_args=gem5.check(gem5_args))


def get(name: str, options: EngineOptions = EngineOptions()) -> Engine:
    if name == "qemu":
        from .qemu import QemuEngine
        return QemuEngine()
    if name == "gem5":
        from .gem5 import Gem5Engine
        return Gem5Engine(args=options.gem5_args)
    raise EngineError(f"experiment.engine: engine {name!r} is not available in this g5net "
                      f"(available: {', '.join(NAMES)})")
