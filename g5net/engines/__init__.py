"""Engines: which simulator models the hosts. Chosen by name from the spec.

`get` is the one door to an engine: nothing outside an engine's package
imports it; callers ask the `Engine` (base.py) what they need.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from ..errors import EngineError
from ..model.options import EngineOptions
from ..contract.catalogue import ENGINES
from .base import Engine

# The engines, by the name a spec gives (experiment.engine): the catalogue
# lists them; each is the module of that name here.
NAMES = ENGINES


def options(gem5_args: Sequence[str] = ()) -> EngineOptions:
    """The user's engine options, each checked by the engine it is for and
    written as it reads them (UsageError naming the flag)."""
    from .gem5 import gem5_args as gem5
    return EngineOptions(gem5_args=gem5.check(gem5_args))


def get(name: str, options: EngineOptions = EngineOptions()) -> Engine:
    """The engine `name` with the user's `options`: the module of that name in
    this package, whose ENGINE is its class (an engine is one module)."""
    if name not in NAMES:
        raise EngineError(f"experiment.engine: engine {name!r} is not available in this g5net "
                          f"(available: {', '.join(NAMES)})")
    engine: type[Engine] = importlib.import_module(f"{__name__}.{name}").ENGINE
    return engine.from_options(options)
