"""The contract between the gem5 engine and the configs gem5 runs.

Standard library only: the engine imports it as part of g5net, and the
configs import it too (`from g5net.contract import gem5`), with the
directory that holds g5net on gem5's PYTHONPATH
(`g5net/engines/gem5/config_files.py`: gem5_environment).
Whatever both sides must agree on is defined here once: the config JSON (its
schema version and fields), the report the config writes back, the config's
exit statuses, the probe's output line, and which settings matter only after
the boot checkpoint.
"""

from __future__ import annotations

import enum
import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

# The config JSON's version: bumped when a field changes meaning or appears.
SCHEMA_VERSION = 3
# What the config writes to gem5's --outdir for the engine to read back.
REPORT_NAME = "g5net-gem5.json"
# The line configs/g5net_probe.py prints: this prefix, a space, one JSON object.
PROBE_MARK = "G5NET-PROBE"
# What the config rewrites in --outdir every PROGRESS_INTERVAL_S simulated
# seconds while it simulates (Progress), so that the engine can show progress
# and notice a boot that stalls.
PROGRESS_NAME = "g5net-progress.json"
PROGRESS_INTERVAL_S = 0.01


class ContractError(ValueError):
    """A config JSON or report that does not follow this contract."""


class Phase(enum.Enum):
    # Boot every host on `cpu.boot_model` without caches; write one checkpoint
    # once every host has reached its `m5 checkpoint`.
    BOOT = "boot"
    # Restore that checkpoint with `cpu.model` and caches; run until every
    # host has said `m5 exit`.
    MEASURE = "measure"
    # Build the measure phase's system afresh and instantiate it (gem5 writes
    # config.ini and config.json), then stop: `g5net system`, in seconds.
    DESCRIBE = "describe"
    # Sampled windows (experiment.window_method): restore the boot checkpoint
    # as the boot phase built the hosts (`cpu.boot_model`, no caches), run
    # until the host that frames regions says with `m5 checkpoint` that its
    # flows are connected, then write one warm checkpoint into each of
    # `checkpoints_out` at spec.sample_offsets_ms after that, and exit.
    FAST_FORWARD = "fast-forward"
    # One sampled window: restore one warm checkpoint with the spec's caches
    # on CPUs that start as `cpu.boot_model` (functional warming), switch to
    # `cpu.model` (detailed warming), then reset the statistics, simulate
    # the window and dump them: the run's one dump is the window.
    WINDOW = "window"


class ExitStatus(enum.IntEnum):
    """configs/g5net_hosts.py's exit status."""
    DONE = 0
    # The JSON is unusable (wrong schema, missing key, invalid spec).
    CONFIG_UNUSABLE = 2
    # The hosts did not do their part; the report's `reason` says why.
    HOSTS_UNFINISHED = 3


# ---------------------------------------------------------------- after the boot
# The boot phase builds every host the same way whatever the spec says of
# these, so they can differ between runs that share one checkpoint: no caches
# (`caches.*`), `cpu.boot_model` instead of `cpu.model`, and NICs on this
# attachment (an integrated NIC's DMA buffer on the uncached boot membus trips
# gem5's snoop filter, and NIC wiring holds no state worth booting for).
BOOT_NIC_ATTACH = "pcie"
# Config files that only the measure and describe phases run: a change to
# them changes run ids but not what a checkpoint holds. Paths under configs/.
MEASURE_ONLY_CONFIGS = frozenset({
    "g5net_components/cachehierarchies/cache_level.py",
    "g5net_components/cachehierarchies/configurable_cache_hierarchy.py",
    "g5net_components/nics/integrated_placement.py",
    "g5net_components/processors/switching_processor.py",
})
# The spec keys of a host that decide its state at the checkpoint (dotted
# paths into a resolved host); the kernel command line, which carries MTU,
# sysctls and interrupt throttling, is hashed beside them. Everything else
# (cpu.model, caches, NIC placement and its PCIe link, queues and descriptor
# caches, the link, the workloads) is taken from the measure phase's config after restoring.
BOOT_HOST_KEYS = ("name", "role", "ip", "memory_mb", "memory_type", "memory_channels", "kernel",
                  "cpu.cores",
                  "cpu.threads_per_core", "cpu.clock_ghz", "cpu.boot_model", "nic.count")


# The phases that build every host as the boot did (above), so that what they
# checkpoint is restorable as a boot checkpoint is.
AS_BOOTED = frozenset({Phase.BOOT, Phase.FAST_FORWARD})


# What a window of sampled windows (Phase.WINDOW) builds afresh at its
# restore, so that points differing only in these share the fast-forward's
# warm checkpoints: dotted keys of a resolved host, and of the experiment.
# The fast-forward builds hosts as booted, without caches, on cpu.boot_model
# and the boot's NIC attachment and link; the window's lengths and warming
# happen after the checkpoint.
RESTORE_FREE_HOST_KEYS = ("cpu.model", "caches", "nic.attach", "nic.dca", "nic.pcie_gen",
                          "nic.pcie_lanes", "nic.pcie_latency_ns", "nic.pcie_max_payload",
                          "nic.pcie_max_read_request", "nic.pcie_read_requests")
RESTORE_FREE_EXPERIMENT_KEYS = ("name", "timeout_s", "boot_timeout_s", "window_method", "window_ms",
                                "functional_warming_ms", "detailed_warming_ms")
# The attribute under which a window's processor holds the CPUs it switches
# to (configs: SwitchingProcessor); its statistics carry the name.
SWITCHED_CPUS = "detailed"


def boot_nic_attach(attach: str, phase: Phase) -> str:
    """The NIC attachment a phase builds for a spec's `nic.attach`."""
    return BOOT_NIC_ATTACH if phase in AS_BOOTED else attach


# ---------------------------------------------------------------- the config JSON

def _from_dict(cls: type, data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ContractError(f"{where}: expected an object, got {type(data).__name__}")
    names = [f.name for f in fields(cls)]
    missing = [n for n in names if n not in data]
    if missing:
        raise ContractError(f"{where}: missing key {missing[0]!r}")
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise ContractError(f"{where}: unknown key {unknown[0]!r}")
    return {n: data[n] for n in names}


@dataclass(frozen=True)
class HostConfig:
    """One host as the config builds it."""
    name: str  # the spec's host name
    board: str  # its SimObject under Root: console file, stats prefix
    kernel: str  # vmlinux
    disk: str
    cmdline: str  # the whole kernel command line
    readfile: str  # what the guest's `m5 readfile` returns
    macs: tuple[str, ...]  # one per NIC
    console_socket: str  # Unix socket of its serial terminal, relative to --outdir


@dataclass(frozen=True)
class DistProcess:
    """Which process of a per-host run (dist-gem5, configs/g5net_dist.py) a
    config JSON is for: the engine writes one JSON per process."""
    host: str | None  # the spec's name of the host it builds; None: the switch process
    server: str  # where the switch process listens
    # The switch: the port it tries first (it moves up from a taken one); a
    # host: the port the switch said it listens on.
    port: int


@dataclass(frozen=True)
class RunConfig:
    """The one JSON file a gem5 run of configs/g5net_hosts.py (or of one
    process of configs/g5net_dist.py) reads."""
    phase: Phase
    spec: dict  # the resolved spec (g5net/spec.py's to_dict)
    hosts: tuple[HostConfig, ...]
    # Where the boot phase writes it, and the measure phase reads it (a
    # per-host run's process: its own directory of the collective checkpoint).
    checkpoint: str
    pcap_dir: str | None = None
    process: DistProcess | None = None  # a per-host run's process, or None
    # The fast-forward phase's warm checkpoints, in the order it writes them.
    checkpoints_out: tuple[str, ...] = ()

    def to_json(self) -> str:
        data = asdict(self)
        data["phase"] = self.phase.value
        return json.dumps({"schema": SCHEMA_VERSION, **data}, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str) -> "RunConfig":
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ContractError(f"{where}: not JSON: {e}") from None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA_VERSION:
            got = data.get("schema") if isinstance(data, dict) else None
            raise ContractError(f"{where}: schema {got!r}, this config reads {SCHEMA_VERSION}")
        values = _from_dict(cls, {k: v for k, v in data.items() if k != "schema"}, where)
        try:
            values["phase"] = Phase(values["phase"])
        except ValueError:
            raise ContractError(f"{where}: phase {values['phase']!r} is not one of "
                                f"{', '.join(p.value for p in Phase)}") from None
        if not isinstance(values["hosts"], list):
            raise ContractError(f"{where}: hosts: expected a list")
        hosts = []
        for i, h in enumerate(values["hosts"]):
            host = _from_dict(HostConfig, h, f"{where}: hosts[{i}]")
            host["macs"] = tuple(host["macs"])
            hosts.append(HostConfig(**host))
        values["hosts"] = tuple(hosts)
        if values["process"] is not None:
            values["process"] = DistProcess(**_from_dict(DistProcess, values["process"], f"{where}: process"))
        values["checkpoints_out"] = tuple(values["checkpoints_out"])
        return cls(**values)


# ---------------------------------------------------------------- files the config writes

class _OutdirFile:
    """A dataclass the config writes to gem5's --outdir as one JSON object, in
    the file named NAME, and the engine reads back."""
    NAME: ClassVar[str]

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str):
        try:
            return cls(**_from_dict(cls, json.loads(text), cls.NAME))
        except (ValueError, TypeError) as e:
            raise ContractError(f"{cls.NAME}: {e}") from None


@dataclass
class Progress(_OutdirFile):
    """Where a running simulation is: rewritten every PROGRESS_INTERVAL_S."""
    NAME: ClassVar[str] = PROGRESS_NAME
    sim_seconds: float
    # Board -> instructions each of its CPUs has committed so far: a CPU whose
    # count stands still while simulated time goes on is halted.
    insts: dict = field(default_factory=dict)


@dataclass
class Report(_OutdirFile):
    """What the config writes when it ends: did the hosts do their part."""
    NAME: ClassVar[str] = REPORT_NAME
    phase: str
    completed: bool = False
    # Why not completed: the exit event that ended the simulation early.
    reason: str = ""
    # Every exit event: {"cause", "code", "tick"}.
    exits: list = field(default_factory=list)
    sim_seconds: float = 0.0
