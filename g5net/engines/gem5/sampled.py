"""Sampled windows (experiment.window_method = "sampled"): a stream
fast-forwarded into warm checkpoints, each restored on its own for one window.

1. fast-forward: the boot checkpoint restored as the hosts were booted
   (`cpu.boot_model`, no caches); the host that frames regions says with
   `m5 checkpoint` that its flows are connected, and gem5 writes a warm
   checkpoint at each of spec.sample_offsets_ms after that. Points that
   differ only in what the window phase builds afresh (contract.RESTORE_FREE_*:
   the detailed CPU, caches, NIC placement, the warming and window lengths)
   share these checkpoints, as points share a boot checkpoint.
2. windows: each warm checkpoint restored in a gem5 process of its own, on
   the spec's caches, CPUs starting as `cpu.boot_model` (functional warming)
   and switched to `cpu.model` (detailed warming), then one window between a
   statistics reset and a dump. They run at once, as many as the process
   may use cores (its CPU affinity); each finished window is kept in the
   cache beside its warm checkpoint under the run's identity, so a point
   that was stopped resumes its missing windows only.

A checkpoint holds no cache contents; a restored window's caches are cold
until its functional warming has run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...contract.gem5 import RESTORE_FREE_EXPERIMENT_KEYS, RESTORE_FREE_HOST_KEYS, SWITCHED_CPUS
from ...runs.rundir import console_name
from ...spec import Spec
from .checkpoints import Checkpoint, checkpoint_dir, checkpoint_key, tree_bytes

# Bumped when what a warm checkpoint holds changes in a way its key cannot see.
WARM_FORMAT = 1
# A window's statistics name the detailed CPUs it switched to; a measure
# run's name `cores`, and so do the metrics (stats/cpu_time.py). The
# switched-out CPUs' lines are dropped: they ran nothing in the window.
_SWITCHED_OUT = re.compile(r"^[^ ]*\.processor\.cores\d*\.")
_SWITCHED_IN = re.compile(rf"\.processor\.{SWITCHED_CPUS}(\d*)\.")


def _without(table: Mapping[str, Any], dotted: tuple[str, ...]) -> dict[str, Any]:
    """`table` less the dotted keys (a key naming a table drops it whole)."""
    out = dict(table)
    for key in dotted:
        head, _, rest = key.partition(".")
        if rest and isinstance(out.get(head), Mapping):
            out[head] = _without(out[head], (rest,))
        else:
            out.pop(head, None)
    return out


def fast_forward_spec(spec: Spec) -> Spec:
    """`spec` with what the fast-forward does not use at its defaults, so
    that points sharing warm checkpoints render the same jobs (a job names
    its experiment and windows in comments)."""
    e = spec.experiment
    defaults: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(e)}
    return dataclasses.replace(spec, experiment=dataclasses.replace(e, **{
        k: defaults[k] for k in RESTORE_FREE_EXPERIMENT_KEYS if k != "window_method"}))


def fast_forwarded(spec: Spec) -> dict[str, Any]:
    """The spec less what a window builds afresh: what of it the fast-forward
    simulates (two points that agree here and boot alike share it)."""
    d = spec.to_dict()
    return {"experiment": _without(d["experiment"], RESTORE_FREE_EXPERIMENT_KEYS),
            "hosts": {name: _without(h, RESTORE_FREE_HOST_KEYS) for name, h in d["hosts"].items()},
            "rest": {k: v for k, v in d.items() if k not in ("experiment", "hosts")}}


def warm_state(spec: Spec, boot: Checkpoint, jobs: Mapping[str, str]) -> dict[str, Any]:
    """What decides a stream's warm checkpoints: the boot they start from, the
    jobs the guests run (digests), and what of the spec the fast-forward simulates."""
    return {"format": WARM_FORMAT, "boot": boot.key,
            "jobs": {h: hashlib.sha256(text.encode()).hexdigest() for h, text in sorted(jobs.items())},
            **fast_forwarded(spec)}


@dataclass(frozen=True)
class WarmCheckpoints:
    """A stream's warm checkpoints, one gem5 checkpoint per window, and the
    windows measured from them."""
    key: str
    path: Path
    state: dict = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, state: dict) -> WarmCheckpoints:
        key = checkpoint_key(state)
        return cls(key, checkpoint_dir() / f"warm-{key[:32]}", state)

    @property
    def lock_name(self) -> str:
        """The cache lock the fast-forward holds exclusively and windows share."""
        return f"warm-{self.key[:32]}"

    @property
    def meta(self) -> Path:
        return self.path / "warm.json"

    def cpt(self, k: int) -> Path:
        return self.path / f"cpt-{k}"

    @property
    def log(self) -> Path:
        return self.path / "fast-forward.log"

    @property
    def config(self) -> Path:
        return self.path / "gem5-fast-forward.json"

    @property
    def m5out(self) -> Path:
        return self.path / "m5out"

    def console(self, host: str) -> Path:
        """A host's console from the boot checkpoint to the last warm one."""
        return self.path / console_name(host)

    def job(self, host: str) -> Path:
        return self.path / f"job-{host}.sh"

    def window(self, run: str, k: int) -> Path:
        """Window k of the run whose identity is `run`, once measured."""
        return self.path / "windows" / run[:32] / f"w{k}"

    def exists(self) -> bool:
        # Staged whole, its meta written last.
        return self.meta.is_file()

    def staged(self, tmp: Path) -> WarmCheckpoints:
        return WarmCheckpoints(self.key, tmp, self.state)

    def size_bytes(self) -> int:
        return tree_bytes(self.path)


def stored_warm() -> list[tuple[WarmCheckpoints, dict]]:
    """Every stream's warm checkpoints in the cache, with their warm.json."""
    found = []
    for path in sorted(checkpoint_dir().glob("warm-*/warm.json")):
        try:
            meta = json.loads(path.read_text())
            found.append((WarmCheckpoints(meta["key"], path.parent, meta["state"]), meta))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # half-written, or of another format
    return found


def window_stats(src: Path, dst: Path) -> None:
    """A window's stats.txt with a measure run's CPU names (_SWITCHED_*)."""
    with src.open() as fin, dst.open("w") as fout:
        for line in fin:
            if not _SWITCHED_OUT.match(line):
                fout.write(_SWITCHED_IN.sub(r".processor.cores\1.", line))


def run_windows(todo: list[int], parallel: int, one: Callable[[int], Any]) -> list[Any]:
    """`one(k)` for each window k of `todo`, `parallel` at a time (each a gem5
    process watched by a thread); results in `todo`'s order."""
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        return list(pool.map(one, todo))
