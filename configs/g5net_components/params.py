"""The one JSON file the gem5 engine hands to a config, read into frozen dataclasses.

The engine (`g5net/engines/gem5.py`, `Gem5Config`) writes it; this is the only
reader. The resolved experiment spec inside it is validated again by g5net's own
`spec` module, loaded from its file because gem5's Python knows no `g5net`
package and must not import the rest of it.
"""

from __future__ import annotations

import enum
import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
_SPEC_MODULE = Path(__file__).resolve().parents[2] / "g5net" / "spec.py"


class ConfigError(ValueError):
    """The engine's JSON does not describe a run this config can build."""


class Phase(enum.Enum):
    # Boot every host with the boot CPU and no caches; write one checkpoint
    # once every host has reached its `m5 checkpoint`.
    BOOT = "boot"
    # Restore that checkpoint with the measured CPU model and caches; run
    # until every host has said `m5 exit`.
    MEASURE = "measure"
    # Build the measure phase's system afresh and instantiate it, which writes
    # config.ini and config.json, then stop: the system a spec describes, in
    # seconds, without a checkpoint (`g5net system`).
    DESCRIBE = "describe"


def load_spec_module():
    """g5net's `spec.py` as a standalone module (it imports only the standard library)."""
    name = "g5net_spec"
    if name not in sys.modules:
        loader = importlib.util.spec_from_file_location(name, _SPEC_MODULE)
        module = importlib.util.module_from_spec(loader)
        # dataclasses look their module up in sys.modules while the file executes.
        sys.modules[name] = module
        loader.loader.exec_module(module)
    return sys.modules[name]


@dataclass(frozen=True)
class HostParams:
    name: str
    board: str  # the SimObject name: console file, stats prefix
    kernel: str  # vmlinux
    disk: str
    cmdline: str
    readfile: str
    macs: tuple[str, ...]
    console_socket: str  # Unix socket, relative to gem5's --outdir


@dataclass(frozen=True)
class RunParams:
    phase: Phase
    spec: Any  # g5net_spec.Spec
    hosts: tuple[HostParams, ...]
    checkpoint: str
    pcap_dir: str | None

    def host_spec(self, host: HostParams):
        return self.spec.host(host.name)


def _require(data: dict, key: str, where: str) -> Any:
    if key not in data:
        raise ConfigError(f"{where}: missing key {key!r}")
    return data[key]


def load(path: str) -> RunParams:
    with open(path) as f:
        data = json.load(f)
    schema = data.get("schema")
    if schema != SCHEMA_VERSION:
        raise ConfigError(f"{path}: schema {schema!r}, this config reads {SCHEMA_VERSION}")
    try:
        phase = Phase(_require(data, "phase", path))
    except ValueError:
        raise ConfigError(f"{path}: phase {data['phase']!r} is not one of "
                          f"{', '.join(p.value for p in Phase)}") from None
    spec = load_spec_module().from_dict(_require(data, "spec", path), source=f"{path}: spec")
    hosts = []
    for i, h in enumerate(_require(data, "hosts", path)):
        where = f"{path}: hosts[{i}]"
        hosts.append(HostParams(
            name=_require(h, "name", where), board=_require(h, "board", where),
            kernel=_require(h, "kernel", where), disk=_require(h, "disk", where),
            cmdline=_require(h, "cmdline", where), readfile=_require(h, "readfile", where),
            macs=tuple(_require(h, "macs", where)),
            console_socket=_require(h, "console_socket", where)))
    if [h.name for h in hosts] != [h.name for h in spec.hosts]:
        raise ConfigError(f"{path}: hosts {[h.name for h in hosts]} do not match the spec's "
                          f"{[h.name for h in spec.hosts]}")
    return RunParams(phase=phase, spec=spec, hosts=tuple(hosts),
                     checkpoint=_require(data, "checkpoint", path),
                     pcap_dir=data.get("pcap_dir"))
