"""The guest's own programs (workloads/*/*.c), compiled static with the host's
gcc: g5init's last word (`m5 exit`) must not depend on the image's shared
libraries, and neither tool needs any."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .host import REPO, require, run_tool

# Image path -> source.
TOOLS = {
    "sbin/m5": REPO / "workloads" / "m5" / "m5.c",
    "sbin/nicreg": REPO / "workloads" / "nicreg" / "nicreg.c",
}
# -s: no symbol table, which would hold the checkout's path and break the
# image's reproducibility across checkouts.
CFLAGS = ["-static", "-O2", "-Wall", "-Wextra", "-Werror", "-s"]


def toolchain_id() -> str:
    """What besides the sources decides the binaries: compiler and static libc versions."""
    gcc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True).stdout
    libc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libc6-dev"],
                          capture_output=True, text=True).stdout
    return f"gcc {gcc.strip()}, libc6-dev {libc.strip()}"


def compile_tool(source: Path, dest: Path) -> None:
    require("guest-tools")
    run_tool(["gcc", *CFLAGS, "-o", str(dest), str(source)], f"compiling {source}")


def compile_all(root: Path) -> None:
    """Every tool into the image tree at `root`."""
    for dest, source in TOOLS.items():
        compile_tool(source, root / dest)
