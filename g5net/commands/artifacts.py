"""`g5net artifacts`: build and list the guest kernels and disk image."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import artifacts
from ..artifacts.cache import human_size
from ..errors import ArtifactError
from ..model import sweep
from . import bundled_file

DESCRIPTION = """\
Every guest boots one of two kernels (host.kernel) and one disk image, built on
this machine from Debian packages and the recipes in the repository:

  kernel smp   Linux 6.1 (linux-source-6.1) with kernels/patches/, tinyconfig
               + kernels/base.config + kernels/smp.config: SMP up to 64 CPUs
  kernel up    the same with kernels/up.config: uniprocessor
  smp-o3       the kernel a host on gem5's O3 CPU boots (host.cpu.model =
  up-o3        "o3"): with kernels/patches-o3/ too, for that CPU's hlt
  image        raw ext4 of disk-images/packages.txt + disk-images/overlay/ +
               workloads/ (g5init, lib.sh, the m5 and nicreg tools)

Each is cached under $G5NET_CACHE (default ~/.cache/g5net) by the hash of its
inputs; a build whose inputs did not change takes seconds. `g5net run` and
`g5net sweep` build what a spec needs on first use, saying why the wait."""

EPILOG = """\
Examples:
  g5net artifacts build                 every kernel and the image (a kernel
                                        takes minutes the first time)
  g5net artifacts build --kernel up     only the uniprocessor kernel
  g5net artifacts build --for examples/quickstart.toml
                                        only what that spec (every point of
                                        its [sweep]) boots: make demo does this
  g5net artifacts build --image         only the disk image
  g5net artifacts list --json           paths and sha256 digests, for scripts

Host packages: disk-images/host-packages.txt (`make deps` installs them).
Exit status: 0 done, 2 a build failed or a tool is missing (the message names
the Debian package)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("artifacts", help="build and list guest kernels and the disk image",
                       description=DESCRIPTION, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    b = actions.add_parser(
        "build", help="build what is not cached yet (default: every kernel and the image)",
        description="Build the guest kernels and/or the disk image unless already cached. "
                    "With none of --kernel, --image and --for, builds everything.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("--kernel", choices=(*artifacts.BUILDS, "all"),
                   help="build this kernel ('all': every one)")
    b.add_argument("--image", action="store_true", help="build the disk image")
    b.add_argument("--for", dest="for_specs", metavar="SPEC", type=bundled_file, nargs="+", default=[],
                   help="build the kernels and image these specs boot (every point of a [sweep])")
    b.set_defaults(func=build)

    ls = actions.add_parser(
        "list", help="show the artifacts of the current inputs: path, size, sha256",
        description="Show, for each kernel variant and the image, whether it is built for "
                    "the current inputs, and its files, sizes and sha256 digest. Looks only; "
                    "never builds.",
        epilog="Examples: g5net artifacts list\n"
               "          g5net artifacts list --json",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ls.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ls.set_defaults(func=list_)


def kernels_for(specs: list[Path]) -> dict[str, list[str]]:
    """Kernel build -> the specs (any point of their [sweep]) that boot it."""
    users: dict[str, list[str]] = {}
    for path in specs:
        for variant in sorted({artifacts.for_host(h) for p in sweep.load(path).points
                               for h in p.spec.hosts}):
            users.setdefault(variant, []).append(str(path))
    return users


def build(args: argparse.Namespace) -> int:
    everything = args.kernel is None and not args.image and not args.for_specs
    users = kernels_for(args.for_specs)
    if everything or args.kernel == "all":
        variants: list[str] = list(artifacts.BUILDS)
    else:
        variants = sorted({*([args.kernel] if args.kernel else []), *users})
    progress = (lambda _msg: None) if args.quiet else \
        (lambda msg: print(f"g5net artifacts: {msg}", file=sys.stderr, flush=True))
    for variant in variants:
        k = artifacts.kernel(variant, progress=progress, needed_by=", ".join(users.get(variant, [])))
        print(f"kernel {variant}: {k.bzimage.parent} (sha256 {k.digest[:16]})")
    if everything or args.image or args.for_specs:
        img = artifacts.image(progress=progress, needed_by=", ".join(map(str, args.for_specs)))
        print(f"image: {img.path} (sha256 {img.digest[:16]})")
    return 0


def _entries() -> list[dict]:
    entries = []
    for variant in artifacts.BUILDS:
        entry: dict = {"artifact": f"kernel-{variant}"}
        try:
            k = artifacts.kernel(variant, build=False)
        except ArtifactError as e:
            entry.update(built=False, reason=str(e))
        else:
            entry.update(built=True, digest=k.digest, files={
                name: {"path": str(path), "size": path.stat().st_size}
                for name, path in (("bzImage", k.bzimage), ("vmlinux", k.vmlinux),
                                   ("System.map", k.system_map))})
        entries.append(entry)
    entry = {"artifact": "image"}
    try:
        img = artifacts.image(build=False)
    except ArtifactError as e:
        entry.update(built=False, reason=str(e))
    else:
        entry.update(built=True, digest=img.digest,
                     files={"disk.img": {"path": str(img.path), "size": img.path.stat().st_size}})
    entries.append(entry)
    return entries


def list_(args: argparse.Namespace) -> int:
    entries = _entries()
    if args.json:
        print(json.dumps({"cache": str(artifacts.cache_dir()), "artifacts": entries}, indent=2))
        return 0
    print(f"cache: {artifacts.cache_dir()}")
    for e in entries:
        if not e["built"]:
            print(f"{e['artifact']}: not built ({e['reason']})")
            continue
        print(f"{e['artifact']}: sha256 {e['digest']}")
        for name, f in e["files"].items():
            print(f"  {name:<11} {human_size(f['size']):>10}  {f['path']}")
    return 0
