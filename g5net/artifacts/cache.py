"""The artifact cache: where built kernels and images live, and how a build
gets there without ever leaving half an artifact behind.

Layout under `cache_dir()`:

    kernel/<variant>-<config hash>/    bzImage, vmlinux, System.map, config, manifest.json
    kernel/inputs/<variant>-<input hash>   name of the directory above (cheap lookups)
    kernel/src/, kernel/build-<variant>/   source tree and incremental build trees
    image/<input hash>/                disk.img, manifest.json
    debs/                              downloaded Debian packages
    locks/                             one lock file per artifact
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..machine import staged_dir
from ..machine.staged_dir import TMP_PREFIX

Progress = Callable[[str], Any]

MANIFEST = "manifest.json"
# How often a process waiting for another to make an artifact looks again (locked_unless).
LOCK_POLL_S = 1.0


def cache_dir() -> Path:
    """$G5NET_CACHE, or ~/.cache/g5net."""
    env = os.environ.get("G5NET_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "g5net"


# Paths in a record that leaves this machine (a study's committed results, a
# test fixture): inside the cache, relative to it under this mark; elsewhere,
# the file name under the other: another machine's folders say nothing here.
IN_CACHE = "$G5NET_CACHE"
ELSEWHERE = "<elsewhere>"


def portable(path: str, cache: Path | None = None) -> str:
    """`path` as a committed record names it: `$G5NET_CACHE/<path inside
    cache_dir()>`, or `<elsewhere>/<file name>`; a portable one unchanged."""
    if path.startswith((f"{IN_CACHE}/", f"{ELSEWHERE}/")):
        return path
    root, p = cache or cache_dir(), Path(path)
    return f"{IN_CACHE}/{p.relative_to(root)}" if p.is_relative_to(root) else f"{ELSEWHERE}/{p.name}"


def portable_text(text: str, cache: Path | None = None) -> str:
    """`text` (gem5's config.ini) with every path inside the cache made portable."""
    return text.replace(f"{cache or cache_dir()}/", f"{IN_CACHE}/")


def first_use(what: str, needed_by: str = "") -> str:
    """The line said before an artifact is built: why the wait, and that it is once."""
    who = f" for {needed_by}" if needed_by else ""
    return (f"{what}: not built yet for the current inputs (first use, or its recipe changed); "
            f"building it now{who}, once: minutes, with progress below; later runs reuse it "
            f"from {cache_dir()}")


def sha256_file(path: Path, h: "hashlib._Hash | None" = None) -> "hashlib._Hash":
    h = h or hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h


@contextlib.contextmanager
def locked(name: str, progress: Progress, shared: bool = False) -> Iterator[None]:
    """Holds `locks/<name>.lock` so that two processes never build one artifact
    at once; the second waits, then finds the first one's result. Shared
    holders (readers of a source tree) only exclude an exclusive one."""
    path = cache_dir() / "locks" / f"{name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    with open(path, "a") as f:
        try:
            fcntl.flock(f, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            progress(f"{name}: waiting for another g5net process using it ({path})")
            fcntl.flock(f, mode)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@contextlib.contextmanager
def locked_unless(name: str, done: Callable[[], bool], progress: Progress) -> Iterator[bool]:
    """Holds `locks/<name>.lock` exclusively to make an artifact, yielding
    True; or yields False, without the lock, once `done()` says another
    process made it. Polled, not queued: a process that made the artifact
    goes on to hold the lock shared while it uses it, and a waiter queued
    for the exclusive lock would wait for that use to end too."""
    path = cache_dir() / "locks" / f"{name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        said = False
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if done():
                    yield False
                    return
                if not said:
                    progress(f"{name}: waiting for another g5net process making it ({path})")
                    said = True
                time.sleep(LOCK_POLL_S)
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@contextlib.contextmanager
def locked_if_free(name: str) -> Iterator[bool]:
    """Holds `locks/<name>.lock` exclusively if no other process holds it, for
    work that must not wait (removing a checkpoint a run is restoring): yields
    whether it got the lock."""
    path = cache_dir() / "locks" / f"{name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@contextlib.contextmanager
def staging(final: Path) -> Iterator[Path]:
    """A fresh directory beside `final`, published there when the block ends
    without error and removed otherwise: readers see a whole artifact or none.
    Callers hold the artifact's lock, so leftovers of a crashed build can go."""
    for stale in final.parent.glob(f"{TMP_PREFIX}{final.name}-*"):
        shutil.rmtree(stale, ignore_errors=True)
    with staged_dir.staged(final) as tmp:
        yield tmp


def read_manifest(directory: Path) -> dict[str, Any] | None:
    try:
        return json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    size = n / 1024
    for unit in ("KiB", "MiB"):
        if size < 1024:
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"
