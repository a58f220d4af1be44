"""The one JSON file the gem5 engine hands to a config, read through the contract.

The engine writes it (`g5net/engines/gem5/run_config.py`); this is the only
reader. The contract (`g5net/engines/gem5/contract.py`) and g5net's `spec`
module, which validates the resolved spec inside it again, are loaded from
their files: gem5's Python knows no `g5net` package and must not import the
rest of it. Both are standard library only.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_G5NET = Path(__file__).resolve().parents[2] / "g5net"


def _load(name: str, path: Path):
    """A stdlib-only g5net module as a standalone module named `name`."""
    if name not in sys.modules:
        loader = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(loader)
        # dataclasses look their module up in sys.modules while the file executes.
        sys.modules[name] = module
        loader.loader.exec_module(module)
    return sys.modules[name]


contract = _load("g5net_contract", _G5NET / "engines" / "gem5" / "contract.py")
spec_module = _load("g5net_spec", _G5NET / "spec.py")
Phase = contract.Phase
ExitStatus = contract.ExitStatus


class ConfigError(ValueError):
    """The engine's JSON does not describe a run this config can build."""


@dataclass(frozen=True)
class RunParams:
    config: Any  # contract.RunConfig
    spec: Any  # g5net_spec.Spec, validated

    @property
    def phase(self):
        return self.config.phase

    @property
    def hosts(self):
        return self.config.hosts

    def host_spec(self, host):
        return self.spec.host(host.name)


def load(path: str) -> RunParams:
    with open(path) as f:
        text = f.read()
    try:
        config = contract.RunConfig.from_json(text, path)
        spec = spec_module.from_dict(config.spec, source=f"{path}: spec")
    except (contract.ContractError, spec_module.SpecError) as e:
        raise ConfigError(str(e)) from None
    if [h.name for h in config.hosts] != [h.name for h in spec.hosts]:
        raise ConfigError(f"{path}: hosts {[h.name for h in config.hosts]} do not match the spec's "
                          f"{[h.name for h in spec.hosts]}")
    return RunParams(config=config, spec=spec)
