"""`g5net doctor`: what this machine has for running experiments."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from .. import __version__, artifacts, home
from ..engines.gem5 import Gem5Engine, wakeups
from ..engines.gem5.probe import HOW_TO_POINT, SUPPORTED_MAJOR, choose_binary
from ..engines.qemu import QemuEngine
from ..errors import G5netError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="report the simulators and guest artifacts g5net finds",
        description="Look for gem5 ($G5NET_GEM5, else gem5.fast or gem5.opt on PATH) and ask it "
                    "for its version, ISAs, Ruby protocol, classic caches and KVM CPU; look for "
                    "QEMU; look up the built kernels and disk image. Builds nothing; the first "
                    "look at a gem5 binary takes a few seconds (hashing it, starting it once), "
                    "later ones are remembered by its digest. Without a usable gem5, prints how "
                    "to build one (make gem5 GEM5_SRC=DIR) and how long it takes.",
        epilog="Exit status: 0 everything a run needs is there, 1 something is missing "
               "(each line says how to get it).\nExample: g5net doctor --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="print the findings as one JSON object")
    p.set_defaults(func=main)


# What each missing piece is needed for, said beside it.
NEEDED_FOR = {
    "gem5": 'engine = "gem5" runs (examples/*-gem5.toml); QEMU runs do without it',
    "qemu": 'engine = "qemu" runs (the default, and make demo without gem5): '
            'apt-get install qemu-system-x86',
    "kernel-smp": 'specs with kernel = "smp" (the default); a run builds it on first use',
    "kernel-up": 'specs with kernel = "up"; a run builds it on first use',
    "image": "every run; a run builds it on first use",
}
# gem5's default X86 gem5.opt, Ruby included: about 3 hours of one core (gem5
# v24.0.0.1, `scons build/X86/gem5.opt` on Debian 12's gcc 12: 82 minutes on 2
# cores without Ruby, as measured; Ruby adds more). scripts/build_gem5.sh says the same.
GEM5_BUILD_CORE_MINUTES = 180
GEM5_TAG = f"v{SUPPORTED_MAJOR}.0.0.1"
GEM5_REPOSITORY = "https://github.com/gem5/gem5"


def gem5_recipe(cores: int | None = None) -> list[str]:
    """How to build the gem5 g5net needs: `make gem5` (scripts/build_gem5.sh),
    with the time to expect on this machine."""
    cores = cores or os.cpu_count() or 1
    in_checkout = (home.REPO / "scripts" / "build_gem5.sh").is_file()
    make = f"make -C {home.REPO} gem5 GEM5_SRC=~/gem5" if in_checkout else \
        "make gem5 GEM5_SRC=~/gem5    # in a g5net checkout"
    return [f"to build one (gem5 v{SUPPORTED_MAJOR}, X86 gem5.opt, about "
            f"{GEM5_BUILD_CORE_MINUTES // cores} minutes of compilation on this machine's "
            f"{cores} core{'s' if cores > 1 else ''}):",
            f"  git clone --depth 1 --branch {GEM5_TAG} {GEM5_REPOSITORY} ~/gem5",
            f"  {make}",
            f"it checks the tree is v{SUPPORTED_MAJOR}, installs Debian's build packages, runs scons on every "
            "core and ends with the G5NET_GEM5= line to export"]


def gem5_report() -> dict[str, Any]:
    try:
        b = Gem5Engine().probe()
    except G5netError as e:
        return {"ok": False, "error": str(e), "needed_for": NEEDED_FOR["gem5"],
                "recipe": gem5_recipe()}
    problems = b.problems()
    try:
        why = choose_binary()[1]
    except G5netError:
        why = "given to the engine"
    found = {"ok": not problems, "binary": str(b.binary), "why": why, "version": b.version,
             "isas": list(b.isas), "protocol": b.protocol, "classic_caches": b.classic_caches,
             "kvm_cpu": b.kvm_cpu, "kvm_usable": b.kvm_usable, "digest": b.digest,
             "problems": problems}
    if problems:
        found.update(needed_for=NEEDED_FOR["gem5"], recipe=gem5_recipe())
    return found


def qemu_report() -> dict[str, Any]:
    try:
        info = QemuEngine().info()
    except G5netError as e:
        return {"ok": False, "error": str(e), "needed_for": NEEDED_FOR["qemu"]}
    return {"ok": True, "binary": str(info.binary), "version": info.version}


def artifacts_report() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for variant in artifacts.VARIANTS:
        try:
            k = artifacts.kernel(variant, build=False, progress=lambda m: None)
            out[f"kernel-{variant}"] = {"ok": True, "vmlinux": str(k.vmlinux),
                                        "bzimage": str(k.bzimage), "digest": k.digest}
        except G5netError as e:
            out[f"kernel-{variant}"] = {"ok": False, "error": str(e),
                                        "needed_for": NEEDED_FOR.get(f"kernel-{variant}", "")}
    try:
        img = artifacts.image(build=False, progress=lambda m: None)
        out["image"] = {"ok": True, "path": str(img.path), "digest": img.digest}
    except G5netError as e:
        out["image"] = {"ok": False, "error": str(e), "needed_for": NEEDED_FOR["image"]}
    return out


def per_host_report() -> dict[str, Any]:
    """What idle CPUs would do between a per-host run's barriers here."""
    with wakeups.polling_idle() as idle:
        return {"idle_cpus": idle}


def report() -> dict[str, Any]:
    return {"g5net": {"version": __version__, "revision": home.revision(), "files": str(home.REPO)},
            "gem5": gem5_report(), "qemu": qemu_report(), "artifacts": artifacts_report(),
            "per_host": per_host_report(), "cache_dir": str(artifacts.cache_dir())}


def _indented(lines: list[str]) -> str:
    return "".join(f"\n           {line}" for line in lines)


def _needed_for(entry: dict[str, Any]) -> str:
    return _indented([f"needed for {entry['needed_for']}"]) if entry.get("needed_for") else ""


def _gem5_line(g: dict[str, Any]) -> str:
    if "error" in g:
        return f"gem5       missing  {g['error']}" + _needed_for(g) + _indented(g["recipe"])
    kvm = "yes" if g["kvm_usable"] else ("built in, /dev/kvm not usable" if g["kvm_cpu"] else "no")
    line = (f"gem5       {'ok' if g['ok'] else 'unusable'}  {g['binary']}\n"
            f"           chosen because: {g['why']}\n"
            f"           version {g['version']}, ISA {', '.join(g['isas']) or '-'}, "
            f"classic caches {'yes' if g['classic_caches'] else 'no'}, "
            f"Ruby protocol {g['protocol'] or '-'}, KVM CPU {kvm}")
    for p in g["problems"]:
        line += f"\n           problem: {p}; {HOW_TO_POINT}"
    if g["problems"]:
        line += _needed_for(g) + _indented(g["recipe"])
    return line


def render(r: dict[str, Any]) -> str:
    lines = [_gem5_line(r["gem5"])]
    q = r["qemu"]
    lines.append(f"qemu       ok  {q['binary']} {q['version']}" if q["ok"]
                 else f"qemu       missing  {q['error']}" + _needed_for(q))
    for name, a in r["artifacts"].items():
        where = a.get("vmlinux") or a.get("path")
        lines.append(f"{name:<10} ok  {where}" if a["ok"]
                     else f"{name:<10} missing  {a['error']}" + _needed_for(a))
    lines.append(f"per-host   runs here: {r['per_host']['idle_cpus']}")
    lines.append(f"cache      {r['cache_dir']}")
    g = r["g5net"]
    revision = f" ({g['revision']})" if g["revision"] else ""
    lines.append(f"g5net      {g['version']}{revision}, its files in {g['files']}")
    return "\n".join(lines)


def all_ok(r: dict[str, Any]) -> bool:
    return r["gem5"]["ok"] and r["qemu"]["ok"] and all(a["ok"] for a in r["artifacts"].values())


def main(args: argparse.Namespace) -> int:
    r = report()
    print(json.dumps(r, indent=2) if args.json else render(r))
    return 0 if all_ok(r) else 1
