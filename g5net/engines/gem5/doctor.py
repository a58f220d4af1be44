"""What `g5net doctor` reports of gem5 here: the binary and what it can do,
how to build one where there is none, and what idle CPUs would do between a
per-host run's barriers."""

from __future__ import annotations

import os
from typing import Any

from ... import home
from ...errors import G5netError
from ...machine import wakeups
from .probe import HOW_TO_POINT, SUPPORTED_MAJOR, choose_binary, find_binary, probe

NEEDED_FOR = 'engine = "gem5" runs (examples/*-gem5.toml); QEMU runs do without it'
# gem5's default X86 gem5.opt, Ruby included: about 3 hours of one core (gem5
# v24.0.0.1, `scons build/X86/gem5.opt` on Debian 12's gcc 12: 82 minutes on 2
# cores without Ruby, as measured; Ruby adds more). scripts/build_gem5.sh says the same.
BUILD_CORE_MINUTES = 180
TAG = f"v{SUPPORTED_MAJOR}.0.0.1"
REPOSITORY = "https://github.com/gem5/gem5"


def recipe(cores: int | None = None) -> list[str]:
    """How to build the gem5 g5net needs: `make gem5` (scripts/build_gem5.sh),
    with the time to expect on this machine."""
    cores = cores or os.cpu_count() or 1
    in_checkout = (home.REPO / "scripts" / "build_gem5.sh").is_file()
    make = f"make -C {home.REPO} gem5 GEM5_SRC=~/gem5" if in_checkout else \
        "make gem5 GEM5_SRC=~/gem5    # in a g5net checkout"
    return [f"to build one (gem5 v{SUPPORTED_MAJOR}, X86 gem5.opt, about "
            f"{BUILD_CORE_MINUTES // cores} minutes of compilation on this machine's "
            f"{cores} core{'s' if cores > 1 else ''}):",
            f"  git clone --depth 1 --branch {TAG} {REPOSITORY} ~/gem5",
            f"  {make}",
            f"it checks the tree is v{SUPPORTED_MAJOR}, installs Debian's build packages, runs scons on every "
            "core and ends with the G5NET_GEM5= line to export"]


def gem5_report() -> dict[str, Any]:
    try:
        b = probe(find_binary())
    except G5netError as e:
        return {"ok": False, "error": str(e), "needed_for": NEEDED_FOR, "recipe": recipe()}
    problems = b.problems()
    found = {"ok": not problems, "binary": str(b.binary), "why": choose_binary()[1],
             "version": b.version, "isas": list(b.isas), "protocol": b.protocol,
             "classic_caches": b.classic_caches, "kvm_cpu": b.kvm_cpu, "kvm_usable": b.kvm_usable,
             "digest": b.digest, "problems": problems}
    if problems:
        found.update(how_to_point=HOW_TO_POINT, needed_for=NEEDED_FOR, recipe=recipe())
    return found


def report() -> dict[str, Any]:
    """gem5's entries of `g5net doctor`: `gem5`, and `per_host` (what idle CPUs
    would do between the barriers)."""
    with wakeups.polling_idle() as idle:
        per_host = {"idle_cpus": idle}
    return {"gem5": gem5_report(), "per_host": per_host}
