"""A run directory: the one object that names every file of a run.

A run is built under a hidden temporary name beside its final place and
renamed into place only once `run.json` holds its final status
(machine/staged_dir.py), so a crash or `kill -9` never leaves a directory that
looks complete.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CorruptRunError
from ..machine import atomic, bounded_read, staged_dir
from . import record_schema

RUN_JSON = "run.json"
# A damaged run moved aside is named <dir><SET_ASIDE><n>: no longer a run of the store.
SET_ASIDE = ".corrupt-"
# The status a damaged run reads as.
CORRUPT = "corrupt"


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
    def config_ini(self) -> Path:
        """gem5's description of the system it built (g5net system reads it)."""
        return self.m5out / "config.ini"

    @property
    def engine_log(self) -> Path:
        return self.path / "engine.log"

    def repeat(self, k: int) -> RunDir:
        """Repeat `k` of a run of experiment.repeats: a run directory of its
        own inside this one (the run's results.json is repeat 0's, its
        metrics.json every repeat's together)."""
        return RunDir(self.path / f"repeat-{k}")

    @property
    def host_seconds_json(self) -> Path:
        """A sampled window's: the host seconds its gem5 process took (what a
        dry run's estimate of sampled points divides by), kept with the window
        so that a point that takes windows measured earlier still has them."""
        return self.path / "host-seconds.json"

    def window(self, k: int) -> RunDir:
        """Window k of sampled windows (experiment.window_method): the gem5
        process that measured it, laid out as a run directory of its own."""
        return RunDir(self.path / f"window-{k}")

    def process_out(self, name: str) -> Path:
        """The output directory of process `name` of a per-host run (a host's, or
        the switch's): its statistics, console and terminal socket."""
        return self.m5out / name

    def process_log(self, name: str) -> Path:
        """Process `name`'s own log while a per-host run runs, beside engine.log
        (which holds every process's log once the run ends)."""
        return self.path / f"engine-{name}.log"

    def host_stats(self, host: str) -> Path:
        """A per-host run's statistics of `host`, merged into stats_txt at the end."""
        return self.process_out(host) / self.stats_txt.name

    @property
    def pc_trace(self) -> Path:
        """While a run that samples program counters (experiment.pc_sample_us)
        measures: the named pipe gem5 writes its instruction trace into."""
        return self.m5out / "pc-trace.pipe"

    @property
    def pc_samples(self) -> Path:
        """Those samples, one line each (stats/pc_samples.py)."""
        return self.m5out / "pc-samples.tsv"

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
        """run.json; CorruptRunError where it is damaged or holds no status."""
        return record_schema.check_run(read_record(self.run_json), self.run_json)

    def read_metrics(self) -> dict[str, Any]:
        """metrics.json ({"hosts": {}} where the run has none); CorruptRunError where it is damaged."""
        if not self.metrics_json.exists():
            return {"hosts": {}}
        return record_schema.check_metrics(read_record(self.metrics_json), self.metrics_json)

    def damage(self) -> str | None:
        """What is damaged among this run's records (results.json and metrics.json
        only where present: a failed run may have none); None where nothing is."""
        try:
            self.read_run()
            self.read_metrics()
            if self.results_json.exists():
                read_record(self.results_json)
        except CorruptRunError as e:
            return str(e)
        return None

    def write_json(self, target: Path, data: Any) -> None:
        """Write whole or not at all: a reader never sees half a file."""
        atomic.write_json(target, data)


def read_record(path: Path) -> Any:
    """One JSON record of a run; CorruptRunError naming the file where it cannot be read."""
    try:
        return record_schema.check_depth(json.loads(bounded_read.read_bytes(path)), path)
    except FileNotFoundError:
        raise CorruptRunError(f"{path}: damaged: missing") from None
    except OSError as e:
        raise CorruptRunError(f"{path}: damaged: {e.strerror}") from None
    except ValueError as e:  # bad JSON, or bytes that are no text
        raise CorruptRunError(f"{path}: damaged: {e}") from None
    except RecursionError:
        raise CorruptRunError(f"{path}: damaged: nested too deeply for a record") from None


def set_aside(rd: RunDir) -> Path:
    """Rename a damaged run out of the way, kept for a look: <dir>.corrupt-<n>."""
    n = 1
    while True:
        target = rd.path.with_name(f"{rd.path.name}{SET_ASIDE}{n}")
        try:
            # rename(2) onto an existing empty directory would succeed: mkdir first.
            target.mkdir()
        except FileExistsError:
            n += 1
            continue
        os.replace(rd.path, target)
        return target


def console_name(host: str) -> str:
    """A host's serial console, whole: in a run directory, and up to its boot
    checkpoint in the checkpoint store."""
    return f"console-{host}.log"


def dir_name(name: str, run_id: str) -> str:
    return f"{name}-{run_id[:12]}"


def begin(store: Path, name: str, run_id: str) -> RunDir:
    """A fresh temporary run directory inside `store`."""
    return RunDir(staged_dir.fresh(store / dir_name(name, run_id)))


def commit(tmp: RunDir, store: Path, name: str, run_id: str) -> RunDir:
    """Move a finished run into place, replacing an older run of the same id
    (or one that another process committed meanwhile: the id is the content
    hash of what decides a run, so theirs is as good as ours)."""
    final = store / dir_name(name, run_id)
    try:
        staged_dir.publish(tmp.path, final)
    except OSError as e:
        if e.errno != errno.ENOTEMPTY or not RunDir(final).run_json.is_file():
            raise
        # Several processes kept committing this id (a file system without the
        # exchange): one of theirs stands, and ours goes.
        shutil.rmtree(tmp.path, ignore_errors=True)
    return RunDir(final)


def find(store: Path, name: str, run_id: str) -> RunDir | None:
    """The completed run with this id, if the store holds one."""
    rd = RunDir(store / dir_name(name, run_id))
    return rd if rd.run_json.is_file() else None
