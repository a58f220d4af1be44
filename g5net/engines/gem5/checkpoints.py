"""Boot checkpoints: what decides one, and where they are kept.

Points that differ only after the checkpoint (contract.BOOT_HOST_KEYS says
what does not) restore the same one from `checkpoint_dir()/<key>`, built once
under a file lock.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path
from typing import Any

from ...artifacts import cache_dir
from ...runs.rundir import console_name
from ...spec import Host
from ...contract.gem5 import BOOT_HOST_KEYS

# Bumped when the checkpoint protocol changes in a way the key cannot see
# (3: the boot-phase job waits for the NICs' carrier, guest/protocol.py).
CHECKPOINT_FORMAT = 3


def _get(host: Host, dotted: str) -> Any:
    return reduce(getattr, dotted.split("."), host)


def boot_state(hosts: list[tuple[Host, dict[str, Any]]], image: str, gem5: str, configs: str,
               switched: bool, per_host: str | None = None) -> dict:
    """Everything that decides a system's state at the checkpoint, and nothing after it.

    `hosts`: each host with its kernel's digest and whole command line
    (MTU, sysctls, interrupt throttling), and `profiler` where the function
    profiler was switched on before the checkpoint; `image`, `gem5`, `configs`: the
    digests of the disk image, the gem5 binary and the boot phase's configs;
    `switched`: whether a switch joins the hosts (gem5 checkpoints the
    switch's and links' objects, so the topology must match to restore; their
    speeds and delays are parameters, not state, and may differ);
    `per_host`: the digest of the per-host processes' config where the hosts
    booted in processes of their own (a checkpoint is one directory per
    process then, not restorable by one process, nor one process's by them).
    """
    state = {"format": CHECKPOINT_FORMAT, "image": image, "gem5": gem5, "configs": configs,
             "switched": switched,
             "hosts": [{**{k: _get(h, k) for k in BOOT_HOST_KEYS}, **extra}
                       for h, extra in hosts]}
    if per_host:
        state["per_host"] = per_host
    return state


def checkpoint_key(state: dict) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def checkpoint_dir() -> Path:
    return cache_dir() / "checkpoints"


def tree_bytes(path: Path) -> int:
    """What the files under `path` take (links not followed)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def built(key: str) -> bool:
    """Whether the checkpoint of `key` exists: its runs restore it instead of booting."""
    return Checkpoint(key, checkpoint_dir() / key[:32]).exists()


def lock_name(key: str) -> str:
    """The cache lock a checkpoint's boot holds exclusively and its restores share."""
    return f"checkpoint-{key[:32]}"


def stored() -> list[tuple["Checkpoint", dict]]:
    """Every complete checkpoint in the cache, with its boot.json (the state it
    was booted from, the boot's wall and simulated seconds)."""
    found = []
    for path in sorted(checkpoint_dir().glob("*/boot.json")):
        try:
            meta = json.loads(path.read_text())
            ckpt = Checkpoint(meta["key"], path.parent, meta["state"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not one of ours, or half-written by a g5net of another format
        if ckpt.exists():
            found.append((ckpt, meta))
    return found


@dataclass(frozen=True)
class Checkpoint:
    key: str
    path: Path
    # What the key hashes (boot_state), recorded in boot.json.
    state: dict = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, state: dict) -> "Checkpoint":
        key = checkpoint_key(state)
        return cls(key, checkpoint_dir() / key[:32], state)

    @property
    def cpt(self) -> Path:
        """gem5's own checkpoint directory."""
        return self.path / "cpt"

    @property
    def meta(self) -> Path:
        """boot.json: key, state, wall and simulated seconds of the boot."""
        return self.path / "boot.json"

    @property
    def used(self) -> Path:
        """Touched by every restore: its modification time is when one last began."""
        return self.path / "last-used"

    def size_bytes(self) -> int:
        return tree_bytes(self.path)

    @property
    def boot_log(self) -> Path:
        return self.path / "boot.log"

    @property
    def config(self) -> Path:
        return self.path / "gem5-boot.json"

    @property
    def stub(self) -> Path:
        return self.path / "checkpoint-stub.sh"

    @property
    def m5out(self) -> Path:
        return self.path / "m5out"

    def process_out(self, name: str) -> Path:
        """The boot's output directory of process `name` of a per-host run."""
        return self.m5out / name

    def process_log(self, name: str) -> Path:
        """The boot's log of process `name` of a per-host run, beside boot_log."""
        return self.path / f"boot-{name}.log"

    def console(self, host: str) -> Path:
        """A host's console up to the checkpoint, prepended to every run's."""
        return self.path / console_name(host)

    def exists(self) -> bool:
        # A checkpoint moves into place whole (staging), its meta written last;
        # per-host processes write one directory each (dist.py).
        gem5s = (self.cpt / "m5.cpt").is_file() or any(self.cpt.glob("*/m5.cpt"))
        return gem5s and self.meta.is_file()

    def staged(self, tmp: Path) -> "Checkpoint":
        """The same layout in a staging directory, before it is renamed into place."""
        return Checkpoint(self.key, tmp, self.state)
