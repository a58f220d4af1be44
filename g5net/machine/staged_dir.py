"""Building a directory whole or not at all: a reader, or a crash, sees the old
directory whole or the new one whole, never half of one and never neither.

The directory is built under a hidden temporary name beside its place
(`.tmp-<name>-<random>`: the same file system, so the rename cannot copy) and
renamed into place when complete. Where a directory of that name is there
already, the two are exchanged in one step (renameat2's RENAME_EXCHANGE,
Linux 3.15) and the old one, now under the temporary name, is removed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from . import atomic

# Directories in the making, and old ones on their way out: never a finished one.
TMP_PREFIX = ".tmp-"

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
# Another process may publish or remove the same directory between our tries.
_TRIES = 5


def fresh(final: Path) -> Path:
    """A new empty directory beside `final`, to be published there."""
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{final.name}-", dir=final.parent))
    # mkdtemp makes it private; what it becomes is shared (a run store, a cache, a checkout).
    tmp.chmod(0o755)
    return tmp


def publish(tmp: Path, final: Path) -> None:
    """Rename the complete directory `tmp` to `final`, replacing in one step
    a directory there; once this returns, the rename is on disk."""
    for _ in range(_TRIES):
        try:
            os.replace(tmp, final)  # no `final`, or an empty one
            break
        except OSError as e:
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
        try:
            _exchange(tmp, final)
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.ENOTEMPTY, errno.EEXIST):
                raise
            continue  # another process removed or replaced `final` meanwhile: again
        shutil.rmtree(tmp, ignore_errors=True)  # the old directory, now under tmp's name
        break
    else:
        raise OSError(errno.ENOTEMPTY, f"{final}: other processes kept replacing it; "
                                       f"{tmp} is left as it was")
    atomic.sync_dir(final.parent)


@contextlib.contextmanager
def staged(final: Path) -> Iterator[Path]:
    """A fresh directory beside `final`, published there when the block ends
    without error and removed otherwise."""
    tmp = fresh(final)
    try:
        yield tmp
        publish(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _exchange(a: Path, b: Path) -> None:
    """Swap two directories' names at once; on a file system without the
    exchange (NFS, and C libraries before glibc 2.28), `b` is renamed aside
    first, which leaves a moment without `b`."""
    if _renameat2 is not None:
        if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(err, os.strerror(err), str(b))
    aside = fresh(b)
    try:
        os.replace(b, aside / b.name)
        os.replace(a, b)
    except OSError:
        shutil.rmtree(aside, ignore_errors=True)
        raise
    os.replace(aside, a)
