"""Where g5net's own files are, and which source revision is running.

g5net needs folders beside its Python code: configs/ (run by gem5),
workloads/ and disk-images/ (the guest image), kernels/ (the kernel
fragments), studies/ and examples/ (a wheel carries results/expectations/
too). They are found, first match:

1. `$G5NET_HOME`: a folder holding them (a checkout, or a copy of its folders);
2. the checkout the running package lies in (`pip install -e .`, PYTHONPATH);
3. the copy an installed g5net carries as package data, `g5net/tree/`,
   put there when the wheel is built (setup.py).
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

from .errors import ArtifactError

DIRS = ("configs", "workloads", "kernels", "disk-images", "studies", "examples")
# What a wheel carries besides: the reference expectations (`g5net check --expect`).
SHIPPED = (*DIRS, "results/expectations")
# The folders whose files a user names on the command line (`g5net run
# examples/quickstart.toml`, `--expect results/expectations/quickstart.toml`,
# `g5net report studies/10gbe/results/quick`): found in g5net's own tree where the
# working directory has no such file.
BUNDLED = ("examples", "results/expectations", "studies")
ENV = "G5NET_HOME"
CHECKOUT = Path(__file__).resolve().parents[1]
PACKAGED = Path(__file__).resolve().parent / "tree"


def _is_checkout(path: Path) -> bool:
    return (path / "pyproject.toml").is_file() and (path / "configs").is_dir()


def _find() -> Path:
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).resolve()
    return CHECKOUT if _is_checkout(CHECKOUT) else PACKAGED


REPO = _find()


def missing(root: Path = REPO) -> list[str]:
    """The folders `root` lacks."""
    return [d for d in DIRS if not (root / d).is_dir()]


def check(root: Path = REPO) -> None:
    """ArtifactError naming what is missing, before a command reads a hash of
    folders that are not there."""
    gone = missing(root)
    if not gone:
        return
    where = (f"${ENV} = {root}" if os.environ.get(ENV) else
             f"{root} (this g5net was installed without its files; reinstall it from a wheel "
             f"or checkout, or set ${ENV})")
    raise ArtifactError(f"g5net's own files are not where it looks: {where} has no "
                        f"{', '.join(d + '/' for d in gone)}; ${ENV} must name a folder holding "
                        f"{', '.join(d + '/' for d in DIRS)}, such as a g5net checkout")


def bundled(path: Path) -> Path:
    """`path` as given, or g5net's own copy of it where it names a file or folder
    under one of BUNDLED that the working directory lacks: the examples in every
    `--help` work from any folder, with an installed g5net too."""
    if path.exists() or path.is_absolute():
        return path
    own = REPO / path
    if any(path.as_posix().startswith(d + "/") for d in BUNDLED) and own.exists():
        return own
    return path


@functools.cache
def revision() -> str | None:
    """The checkout's git commit, `-dirty` where tracked files differ from it;
    None where the package runs from no git checkout (an installed wheel)."""
    if not _is_checkout(CHECKOUT) or not (CHECKOUT / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(CHECKOUT), "rev-parse", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(CHECKOUT), "diff", "--quiet", "HEAD", "--"],
                               capture_output=True, check=False).returncode == 1
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "")
