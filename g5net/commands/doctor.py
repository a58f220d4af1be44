"""`g5net doctor`: what this machine has for running experiments."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .. import artifacts, engines, home
from ..artifacts.kernels import BUILDS
from ..version import __version__
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


# What each missing artifact is needed for, said beside it; each engine says
# what it is needed for itself.
NEEDED_FOR = {
    "kernel-smp": 'specs with kernel = "smp" (the default); a run builds it on first use',
    "kernel-up": 'specs with kernel = "up"; a run builds it on first use',
    "kernel-smp-o3": 'specs with kernel = "smp" on gem5\'s O3 CPU; a run builds it on first use',
    "kernel-up-o3": 'specs with kernel = "up" on gem5\'s O3 CPU; a run builds it on first use',
    "image": "every run; a run builds it on first use",
}


def artifacts_report() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for variant in artifacts.BUILDS:
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


def report() -> dict[str, Any]:
    found: dict[str, Any] = {"g5net": {"version": __version__, "revision": home.revision(),
                                       "files": str(home.REPO)}}
    for name in engines.NAMES:
        found.update(engines.get(name).doctor())
    return {**found, "artifacts": artifacts_report(), "cache_dir": str(artifacts.cache_dir())}


# The name column: as wide as the longest artifact's name (kernel-smp-o3).
_NAME_WIDTH = max(len(f"kernel-{b}") for b in BUILDS)


def _row(name: str, text: str) -> str:
    return f"{name:<{_NAME_WIDTH}} {text}"


def _indented(lines: list[str]) -> str:
    return "".join("\n" + _row("", line) for line in lines)


def _needed_for(entry: dict[str, Any]) -> str:
    return _indented([f"needed for {entry['needed_for']}"]) if entry.get("needed_for") else ""


def _gem5_line(g: dict[str, Any]) -> str:
    if "error" in g:
        return _row("gem5", f"missing  {g['error']}") + _needed_for(g) + _indented(g["recipe"])
    kvm = "yes" if g["kvm_usable"] else ("built in, /dev/kvm not usable" if g["kvm_cpu"] else "no")
    line = _row("gem5", f"{'ok' if g['ok'] else 'unusable'}  {g['binary']}") + _indented([
        f"chosen because: {g['why']}",
        f"version {g['version']}, ISA {', '.join(g['isas']) or '-'}, "
        f"classic caches {'yes' if g['classic_caches'] else 'no'}, "
        f"Ruby protocol {g['protocol'] or '-'}, KVM CPU {kvm}"])
    line += _indented([f"problem: {p}; {g['how_to_point']}" for p in g["problems"]])
    if g["problems"]:
        line += _needed_for(g) + _indented(g["recipe"])
    return line


def render(r: dict[str, Any]) -> str:
    lines = [_gem5_line(r["gem5"])]
    q = r["qemu"]
    lines.append(_row("qemu", f"ok  {q['binary']} {q['version']}") if q["ok"]
                 else _row("qemu", f"missing  {q['error']}") + _needed_for(q))
    for name, a in r["artifacts"].items():
        where = a.get("vmlinux") or a.get("path")
        lines.append(_row(name, f"ok  {where}") if a["ok"]
                     else _row(name, f"missing  {a['error']}") + _needed_for(a))
    lines.append(_row("per-host", f"runs here: {r['per_host']['idle_cpus']}"))
    lines.append(_row("cache", r["cache_dir"]))
    g = r["g5net"]
    revision = f" ({g['revision']})" if g["revision"] else ""
    lines.append(_row("g5net", f"{g['version']}{revision}, its files in {g['files']}"))
    return "\n".join(lines)


def all_ok(r: dict[str, Any]) -> bool:
    return r["gem5"]["ok"] and r["qemu"]["ok"] and all(a["ok"] for a in r["artifacts"].values())


def main(args: argparse.Namespace) -> int:
    r = report()
    print(json.dumps(r, indent=2) if args.json else render(r))
    return 0 if all_ok(r) else 1
