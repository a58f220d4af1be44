"""Writing a file whole or not at all: a reader, or a crash, never sees half of it.

The data goes to a unique temporary file beside the target, is flushed to
disk, renamed over the target, and the directory entry is flushed too, so
that after a power cut the target holds the old content or the new one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_bytes(path: Path, data: bytes) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes it private; the file it replaces was not.
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    sync_dir(path.parent)
    return path


def sync_dir(folder: Path) -> None:
    """Flush `folder`'s entries (a rename into it) to disk."""
    dirfd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dirfd)
    finally:
        os.close(dirfd)


def write_text(path: Path, text: str) -> Path:
    return write_bytes(path, text.encode())


def write_json(path: Path, data: Any) -> Path:
    return write_text(path, json.dumps(data, indent=2) + "\n")
