"""The NIC placements by the name a spec gives them (nic.attach): every class
of this package that carries a PLACEMENT, so a new placement is one new file."""

import importlib
import pkgutil

from ..params import ConfigError
from .abstract_nic_placement import AbstractNicPlacement


def placements() -> dict:
    """PLACEMENT -> the class, from every module of this package."""
    for module in pkgutil.iter_modules(importlib.import_module(__package__).__path__):
        importlib.import_module(f"{__package__}.{module.name}")
    return {cls.PLACEMENT: cls for cls in AbstractNicPlacement.__subclasses__()}


def placement_class(name: str) -> type:
    found = placements()
    if name not in found:
        raise ConfigError(f"nic.attach: no placement {name!r} in g5net_components/nics/ "
                          f"(found: {', '.join(sorted(found))})")
    return found[name]
