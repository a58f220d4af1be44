"""A run directory: the one object that names every file of a run.

A run is built under a hidden temporary name beside its final place and
renamed into place only once `run.json` holds its final status, so a crash or
`kill -9` never leaves a directory that looks complete.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import atomic

RUN_JSON = "run.json"
TMP_PREFIX = ".tmp-"


@dataclass(frozen=True)
class RunDir:
    path: Path

    @property
    def run_json(self) -> Path:
        return self.path / RUN_JSON

    @property
    def spec_json(self) -> Path:
        return self.path / "spec.json"

    @property
    def results_json(self) -> Path:
        return self.path / "results.json"

    @property
    def metrics_json(self) -> Path:
        return self.path / "metrics.json"

    @property
    def m5out(self) -> Path:
        return self.path / "m5out"

    @property
    def stats_txt(self) -> Path:
        return self.m5out / "stats.txt"

    @property
    def engine_log(self) -> Path:
        return self.path / "engine.log"

    @property
    def engine_boot_log(self) -> Path:
        """gem5's output while it booted the hosts into their checkpoint."""
        return self.path / "engine-boot.log"

    @property
    def m5out_boot(self) -> Path:
        """While gem5 boots into a checkpoint: a link to that boot's output
        directory (and its console sockets), which lives in the checkpoint store."""
        return self.path / "m5out-boot"

    @property
    def pcap_dir(self) -> Path:
        return self.m5out / "pcap"

    def gem5_config(self, phase: str) -> Path:
        """The config JSON gem5 ran in `phase`."""
        return self.path / f"gem5-{phase}.json"

    def qemu_log(self, host: str) -> Path:
        """A QEMU process's own messages (its serial console is `console`)."""
        return self.path / f"qemu-{host}.log"

    def console(self, host: str) -> Path:
        return self.path / console_name(host)

    def job_script(self, host: str) -> Path:
        return self.path / f"job-{host}.sh"

    def read_run(self) -> dict[str, Any]:
        return json.loads(self.run_json.read_text())

    def write_json(self, target: Path, data: Any) -> None:
        """Write whole or not at all: a reader never sees half a file."""
        atomic.write_json(target, data)


def console_name(host: str) -> str:
    """A host's serial console, whole: in a run directory, and up to its boot
    checkpoint in the checkpoint store."""
    return f"console-{host}.log"


def dir_name(name: str, run_id: str) -> str:
    return f"{name}-{run_id[:12]}"


def begin(store: Path, name: str, run_id: str) -> RunDir:
    """A fresh temporary run directory inside `store`."""
    store.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{dir_name(name, run_id)}-", dir=store))
    # mkdtemp makes it private; a run store is shared with colleagues and cluster jobs.
    tmp.chmod(0o755)
    return RunDir(tmp)


def commit(tmp: RunDir, store: Path, name: str, run_id: str) -> RunDir:
    """Move a finished run into place, replacing an older run of the same id."""
    final = store / dir_name(name, run_id)
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}old-", dir=store))
        os.replace(final, old / "run")
        os.replace(tmp.path, final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp.path, final)
    return RunDir(final)


def find(store: Path, name: str, run_id: str) -> RunDir | None:
    """The completed run with this id, if the store holds one."""
    rd = RunDir(store / dir_name(name, run_id))
    return rd if rd.run_json.is_file() else None
