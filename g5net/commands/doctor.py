"""`g5net doctor`: what this machine has for running experiments."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .. import __version__, artifacts, home
from ..engines.gem5 import Gem5Engine
from ..engines.gem5.probe import HOW_TO_POINT
from ..engines.qemu import QemuEngine
from ..errors import G5netError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="report the simulators and guest artifacts g5net finds",
        description="Look for gem5 ($G5NET_GEM5, else gem5.opt or gem5.fast on PATH) and ask it "
                    "for its version, ISAs, Ruby protocol, classic caches and KVM CPU; look for "
                    "QEMU; look up the built kernels and disk image. Builds nothing; the first "
                    "look at a gem5 binary takes a few seconds (hashing it, starting it once), "
                    "later ones are remembered by its digest.",
        epilog="Exit status: 0 everything a run needs is there, 1 something is missing "
               "(each line says how to get it).\nExample: g5net doctor --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="print the findings as one JSON object")
    p.set_defaults(func=main)


def gem5_report() -> dict[str, Any]:
    try:
        b = Gem5Engine().probe()
    except G5netError as e:
        return {"ok": False, "error": str(e)}
    problems = b.problems()
    return {"ok": not problems, "binary": str(b.binary), "version": b.version,
            "isas": list(b.isas), "protocol": b.protocol, "classic_caches": b.classic_caches,
            "kvm_cpu": b.kvm_cpu, "kvm_usable": b.kvm_usable, "digest": b.digest,
            "problems": problems}


def qemu_report() -> dict[str, Any]:
    try:
        info = QemuEngine().info()
    except G5netError as e:
        return {"ok": False, "error": str(e)}
    return {"ok": True, "binary": str(info.binary), "version": info.version}


def artifacts_report() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for variant in artifacts.VARIANTS:
        try:
            k = artifacts.kernel(variant, build=False, progress=lambda m: None)
            out[f"kernel-{variant}"] = {"ok": True, "vmlinux": str(k.vmlinux),
                                        "bzimage": str(k.bzimage), "digest": k.digest}
        except G5netError as e:
            out[f"kernel-{variant}"] = {"ok": False, "error": str(e)}
    try:
        img = artifacts.image(build=False, progress=lambda m: None)
        out["image"] = {"ok": True, "path": str(img.path), "digest": img.digest}
    except G5netError as e:
        out["image"] = {"ok": False, "error": str(e)}
    return out


def report() -> dict[str, Any]:
    return {"g5net": {"version": __version__, "revision": home.revision(), "files": str(home.REPO)},
            "gem5": gem5_report(), "qemu": qemu_report(), "artifacts": artifacts_report(),
            "cache_dir": str(artifacts.cache_dir())}


def _gem5_line(g: dict[str, Any]) -> str:
    if "error" in g:
        return f"gem5       missing  {g['error']}"
    kvm = "yes" if g["kvm_usable"] else ("built in, /dev/kvm not usable" if g["kvm_cpu"] else "no")
    line = (f"gem5       {'ok' if g['ok'] else 'unusable'}  {g['binary']}\n"
            f"           version {g['version']}, ISA {', '.join(g['isas']) or '-'}, "
            f"classic caches {'yes' if g['classic_caches'] else 'no'}, "
            f"Ruby protocol {g['protocol'] or '-'}, KVM CPU {kvm}")
    for p in g["problems"]:
        line += f"\n           problem: {p}; {HOW_TO_POINT}"
    return line


def render(r: dict[str, Any]) -> str:
    lines = [_gem5_line(r["gem5"])]
    q = r["qemu"]
    lines.append(f"qemu       ok  {q['binary']} {q['version']}" if q["ok"]
                 else f"qemu       missing  {q['error']}")
    for name, a in r["artifacts"].items():
        where = a.get("vmlinux") or a.get("path")
        lines.append(f"{name:<10} ok  {where}" if a["ok"] else f"{name:<10} missing  {a['error']}")
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
