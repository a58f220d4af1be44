"""The one JSON file the gem5 engine hands to a config, read through the contract.

The engine writes it (`g5net/engines/gem5/run_config.py`); this is the only
reader. The contract (`g5net/contract/gem5.py`) and g5net's `spec` module,
which validates the resolved spec inside it again, are imported from g5net,
whose directory the engine puts on gem5's PYTHONPATH; both are standard
library only, and nothing else of g5net is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from g5net import spec as spec_module
from g5net.contract import gem5 as contract


class ConfigError(ValueError):
    """The engine's JSON does not describe a run this config can build."""


@dataclass(frozen=True)
class RunParams:
    config: Any  # contract.RunConfig
    spec: Any  # g5net.spec.Spec, validated

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
        # The host side ran the workload kinds' checks, which gem5 cannot import.
        spec = spec_module.from_dict(config.spec, source=f"{path}: spec")
    except (contract.ContractError, spec_module.SpecError) as e:
        raise ConfigError(str(e)) from None
    if [h.name for h in config.hosts] != [h.name for h in spec.hosts]:
        raise ConfigError(f"{path}: hosts {[h.name for h in config.hosts]} do not match the spec's "
                          f"{[h.name for h in spec.hosts]}")
    return RunParams(config=config, spec=spec)


def from_argv(argv: list) -> RunParams:
    """The run of an entry's command line, `gem5.opt ENTRY RUN.json`."""
    if len(argv) != 2:
        raise ConfigError(f"usage: gem5.opt {argv[0]} RUN.json")
    try:
        return load(argv[1])
    except OSError as e:
        raise ConfigError(f"{argv[1]}: {e.strerror}") from None
