"""Engines: which simulator models the hosts. Chosen by name from the spec."""

from __future__ import annotations

from ..errors import EngineError
from .base import Engine

NAMES = ("qemu", "gem5")


def get(name: str) -> Engine:
    if name == "qemu":
        from .qemu import QemuEngine
        return QemuEngine()
    if name == "gem5":
        from .gem5 import Gem5Engine
        return Gem5Engine()
    raise EngineError(f"experiment.engine: engine {name!r} is not available in this g5net "
                      f"(available: {', '.join(NAMES)})")
