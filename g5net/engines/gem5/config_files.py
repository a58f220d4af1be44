"""The configs gem5 runs (configs/), where they are and what they hash to."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ...home import REPO
from .contract import MEASURE_ONLY_CONFIGS

CONFIGS = REPO / "configs"
HOSTS_CONFIG = CONFIGS / "g5net_hosts.py"
# The entry of each process of a per-host run (dist-gem5): only those runs
# execute it, so it counts in their digests alone.
DIST_CONFIG = CONFIGS / "g5net_dist.py"
# The measure phase's entry where the spec samples program counters
# (experiment.pc_sample_us): it counts in those runs' digests alone.
SAMPLED_CONFIG = CONFIGS / "g5net_sampled.py"
PROBE_CONFIG = CONFIGS / "g5net_probe.py"
# The configs also load g5net/spec.py, whose effect a run id already holds
# (the resolved spec), and this contract, which they build systems by.
CONTRACT = Path(__file__).with_name("contract.py")


def configs_digest(boot: bool = False) -> str:
    """Hash of configs/ and the contract as one-process runs execute them (with
    `boot`, of what the boot phase runs): a change to how systems are built
    changes run ids, and, in the boot phase, invalidates checkpoints. Per-host
    runs add dist_config_digest(), sampled runs sampled_config_digest()."""
    h = hashlib.sha256()
    for path in sorted(CONFIGS.rglob("*.py")):
        name = path.relative_to(CONFIGS).as_posix()
        if (boot and name in MEASURE_ONLY_CONFIGS) or path in (DIST_CONFIG, SAMPLED_CONFIG):
            continue
        h.update(name.encode() + b"\0" + path.read_bytes())
    h.update(CONTRACT.name.encode() + b"\0" + CONTRACT.read_bytes())
    return h.hexdigest()


def dist_config_digest() -> str:
    """Hash of what per-host runs execute besides configs_digest()'s files."""
    return hashlib.sha256(DIST_CONFIG.read_bytes()).hexdigest()


def sampled_config_digest() -> str:
    """Hash of what runs that sample program counters execute besides
    configs_digest()'s files."""
    return hashlib.sha256(SAMPLED_CONFIG.read_bytes()).hexdigest()
