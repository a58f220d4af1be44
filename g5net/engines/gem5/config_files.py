"""The configs gem5 runs (configs/), where they are, what they hash to, and
the environment that lets them import g5net's gem5-side modules."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ... import contract
from ...contract.gem5 import MEASURE_ONLY_CONFIGS
from ...home import REPO

CONFIGS = REPO / "configs"
HOSTS_CONFIG = CONFIGS / "g5net_hosts.py"
# The entry of each process of a per-host run (dist-gem5): only those runs
# execute it, so it counts in their digests alone.
DIST_CONFIG = CONFIGS / "g5net_dist.py"
# The measure phase's entry where the spec samples program counters
# (experiment.pc_sample_us): it counts in those runs' digests alone.
SAMPLED_CONFIG = CONFIGS / "g5net_sampled.py"
PROBE_CONFIG = CONFIGS / "g5net_probe.py"
# The configs import g5net.spec, whose effect a run id already holds (the
# resolved spec), and g5net.contract, which they build systems by.
CONTRACT = Path(contract.__file__).resolve().parent
# What gem5's Python needs on its path to import g5net.spec and g5net.contract.
G5NET_PARENT = CONTRACT.parent.parent


# Configs digests whose committed results stay current while they are run
# again, each with what superseded them: a mend that changes every run id
# takes sessions of gem5 to run every committed study and fixture again
# (CHANGELOG, the PCIe link entry). Reports and the README say so of each such
# result; tests/test_studies.py fails once no committed result has a digest
# named here, for its entry to be taken out. None now: the PCIe link mend's
# went once niagara2-nic medium, the last scale made before it, was run again.
SUPERSEDED_CONFIGS: dict[str, str] = {}


def gem5_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """`environ` (default: this process's) with G5NET_PARENT first on
    PYTHONPATH, for every gem5 process that runs a config."""
    env = dict(os.environ if environ is None else environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(G5NET_PARENT), env.get("PYTHONPATH")) if p)
    return env


def configs_digest(boot: bool = False) -> str:
    """Hash of configs/ and the contract as one-process runs execute them (with
    `boot`, of what the boot phase runs): a change to how systems are built
    changes run ids, and, in the boot phase, invalidates checkpoints. Per-host
    runs add dist_config_digest(), sampled runs sampled_config_digest()."""
    configs = {path.relative_to(CONFIGS).as_posix(): path for path in CONFIGS.rglob("*.py")
               if path not in (DIST_CONFIG, SAMPLED_CONFIG)}
    if boot:
        configs = {name: path for name, path in configs.items() if name not in MEASURE_ONLY_CONFIGS}
    # The contract's files under their names in the package (g5net/contract/...).
    contract_files = {path.relative_to(G5NET_PARENT).as_posix(): path for path in CONTRACT.glob("*.py")}
    h = hashlib.sha256()
    for name, path in sorted({**configs, **contract_files}.items()):
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def dist_config_digest() -> str:
    """Hash of what per-host runs execute besides configs_digest()'s files."""
    return hashlib.sha256(DIST_CONFIG.read_bytes()).hexdigest()


def sampled_config_digest() -> str:
    """Hash of what runs that sample program counters execute besides
    configs_digest()'s files."""
    return hashlib.sha256(SAMPLED_CONFIG.read_bytes()).hexdigest()
