"""The guest's `m5` tool (workloads/m5/m5.c), compiled static with the host's
gcc: g5init's last word must not depend on the image's shared libraries."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .host import REPO, require, run_tool

SOURCE = REPO / "workloads" / "m5" / "m5.c"
# -s: no symbol table, which would hold the checkout's path and break the
# image's reproducibility across checkouts.
CFLAGS = ["-static", "-O2", "-Wall", "-Wextra", "-Werror", "-s"]


def toolchain_id() -> str:
    """What besides m5.c decides the binary: compiler and static libc versions."""
    gcc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True).stdout
    libc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libc6-dev"],
                          capture_output=True, text=True).stdout
    return f"gcc {gcc.strip()}, libc6-dev {libc.strip()}"


def compile_m5(dest: Path) -> None:
    require("m5")
    run_tool(["gcc", *CFLAGS, "-o", str(dest), str(SOURCE)], f"compiling {SOURCE}")
