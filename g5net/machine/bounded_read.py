"""Reading a file a user or a run left, never a device, a FIFO or a file
larger than its kind can be: `/dev/zero` would be read until memory runs out,
a FIFO until someone writes to it. A symlink is followed to what it names,
which must be a regular file too."""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

# Every record and spec g5net writes is well under this; a file above it is not one.
MAX_RECORD_BYTES = 64 * 2**20

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` open for reading bytes; OSError naming it where it is no regular
    file. Opened without blocking, so that a FIFO is refused, not waited on."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise OSError(errno.EINVAL, f"{_kind(mode)}, not a regular file", os.fspath(path))
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_bytes(path: str | os.PathLike[str], limit: int = MAX_RECORD_BYTES) -> bytes:
    """The whole of the regular file `path`, at most `limit` bytes; OSError
    naming it otherwise."""
    with open_regular(path) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit} bytes, more than such a file holds",
                      os.fspath(path))
    return data


def read_text(path: str | os.PathLike[str], limit: int = MAX_RECORD_BYTES) -> str:
    """`read_bytes` as UTF-8; UnicodeDecodeError (a ValueError) where it is not."""
    return read_bytes(path, limit).decode("utf-8")
