"""Guest kernels: Debian's linux-source-6.1 with the patches of
`kernels/patches/`, `tinyconfig` plus the fragments in `kernels/`, everything
built in. Hosts on gem5's O3 CPU boot a build of their variant with the
patches of `kernels/patches-o3/` too (`for_host`).

A kernel is cached under the hash of (linux-source version, patches, resolved
.config):
two fragment edits that resolve to the same .config share one build. Resolving
needs the source tree, so a second, cheap index maps the hash of the inputs
(version, fragments) to the built directory; lookups never touch the sources.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import ArtifactError
from ..machine import atomic
from .cache import MANIFEST, Progress, cache_dir, first_use, locked, read_manifest, sha256_file, staging
from ..spec import CPU_O3, Host
from .host import REPO, require, run_tool

SOURCE_PACKAGE = "linux-source-6.1"
SOURCE_TARBALL = Path("/usr/src/linux-source-6.1.tar.xz")
FRAGMENTS = REPO / "kernels"
PATCHES = FRAGMENTS / "patches"
# In the source tree: which patches it holds and which files they touched.
PATCH_STAMP = ".g5net-patches.json"
BASE_FRAGMENT = "base.config"
VARIANTS = ("smp", "up")
# The O3 builds: each variant with kernels/patches-o3/ applied after
# kernels/patches/. Only gem5's O3 CPU needs them (each patch's header says
# why), so runs on the other CPUs keep their kernels, and their results their ids.
PATCHES_O3 = FRAGMENTS / "patches-o3"
O3 = "-o3"
BUILDS = (*VARIANTS, *(v + O3 for v in VARIANTS))
# Bump when the build recipe below changes in a way the inputs do not show.
RECIPE_VERSION = "1"

# A reproducible vmlinux: the same inputs give the same digest on every machine.
REPRODUCIBLE_ENV = {
    "KBUILD_BUILD_TIMESTAMP": "Thu Jan  1 00:00:00 UTC 1970",
    "KBUILD_BUILD_USER": "g5net",
    "KBUILD_BUILD_HOST": "g5net",
    "KBUILD_BUILD_VERSION": "1",
}

_SET = re.compile(r"^(CONFIG_\w+)=(.*)$")
_UNSET = re.compile(r"^# (CONFIG_\w+) is not set$")


@dataclass(frozen=True)
class Kernel:
    variant: str
    bzimage: Path
    vmlinux: Path
    system_map: Path
    digest: str

    @property
    def config(self) -> Path:
        """The resolved .config it was built from."""
        return self.bzimage.parent / "config"


def boots_o3(host: Host) -> bool:
    """Whether `host` boots an O3 build: gem5's O3 CPU runs it."""
    return CPU_O3 in (host.cpu.model, host.cpu.boot_model)


def for_host(host: Host) -> str:
    """The build `host` boots (one of BUILDS): its variant, as an O3 build
    where gem5's O3 CPU runs it."""
    return host.kernel + (O3 if boots_o3(host) else "")


def kernel(variant: str, *, build: bool = True, progress: Progress = print,
           needed_by: str = "") -> Kernel:
    """The kernel build `variant` (one of BUILDS: "smp", "up", "smp-o3",
    "up-o3"), built first if it is not cached and `build` is true;
    `needed_by` says who waits for it, in the line that says why the wait."""
    if variant not in BUILDS:
        raise ArtifactError(f"kernel variant {variant!r} is not one of {', '.join(BUILDS)}")
    fragments = fragment_paths(variant.removesuffix(O3))
    version = source_version()
    key = input_key(version, patch_paths(variant), fragments)
    index = cache_dir() / "kernel" / "inputs" / f"{variant}-{key}"
    found = _lookup(index)
    if found:
        return found
    if not build:
        raise ArtifactError(f"kernel {variant!r} is not built for the current inputs "
                            f"({SOURCE_PACKAGE} {version}, {', '.join(p.name for p in fragments)}); "
                            f"run `g5net artifacts build --kernel {variant}`")
    with locked(f"kernel-{variant}", progress):
        found = _lookup(index)
        if found:
            return found
        progress(first_use(f"kernel {variant}", needed_by))
        return _build(variant, version, fragments, index, progress)


def fragment_paths(variant: str) -> list[Path]:
    paths = [FRAGMENTS / BASE_FRAGMENT, FRAGMENTS / f"{variant}.config"]
    for p in paths:
        if not p.is_file():
            raise ArtifactError(f"kernel config fragment {p} is missing")
    return paths


def patch_paths(variant: str = VARIANTS[0]) -> list[Path]:
    """The patches build `variant` applies, in order."""
    base = sorted(PATCHES.glob("*.patch"))
    return base + _o3_patches() if variant.endswith(O3) else base


def _o3_patches() -> list[Path]:
    return sorted(PATCHES_O3.glob("*.patch"))


def patches_digest(patches: list[Path]) -> str:
    h = hashlib.sha256()
    for p in patches:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def current_patches_digest() -> str:
    """patches_digest of kernels/patches as they are now: what gem5 results
    record as `kernel_patches`, the part of a kernel this repository decides."""
    return patches_digest(patch_paths())


def current_o3_patches_digest() -> str:
    """patches_digest of kernels/patches-o3 as they are now: what gem5 results
    of O3 hosts record as `kernel_patches_o3`."""
    return patches_digest(_o3_patches())


def source_version() -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Status}\t${Version}", SOURCE_PACKAGE],
                         capture_output=True, text=True)
    status, _, version = out.stdout.partition("\t")
    if out.returncode != 0 or not status.endswith(" installed") or not SOURCE_TARBALL.exists():
        raise ArtifactError(f"Debian package {SOURCE_PACKAGE} is not installed (no {SOURCE_TARBALL}); "
                            f"install it with `apt-get install {SOURCE_PACKAGE}`")
    return version


def input_key(version: str, patches: list[Path], fragments: list[Path]) -> str:
    h = hashlib.sha256(f"{RECIPE_VERSION}\0{SOURCE_PACKAGE}={version}\0".encode())
    h.update(patches_digest(patches).encode())
    for p in fragments:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def required_symbols(fragments: list[Path]) -> dict[str, str | None]:
    """What the fragments ask for: symbol -> value, None for `is not set`.
    Later fragments override earlier ones, as merge_config.sh does."""
    wanted: dict[str, str | None] = {}
    for path in fragments:
        for line in path.read_text().splitlines():
            line = line.strip()
            if m := _SET.match(line):
                wanted[m.group(1)] = m.group(2)
            elif m := _UNSET.match(line):
                wanted[m.group(1)] = None
    return wanted


def check_config(config: Path, fragments: list[Path]) -> None:
    """Kconfig silently drops a symbol whose dependencies are unmet; fail
    instead, naming each symbol the resolved .config does not honour."""
    resolved: dict[str, str] = {}
    for line in config.read_text().splitlines():
        if m := _SET.match(line):
            resolved[m.group(1)] = m.group(2)
    wrong = []
    for symbol, want in required_symbols(fragments).items():
        got = resolved.get(symbol)
        if want is None:
            if got not in (None, "n"):
                wrong.append(f"{symbol} should be unset but is {got}")
        elif got != want:
            wrong.append(f"{symbol}={want} wanted, resolved to {'unset' if got is None else got}")
    if wrong:
        raise ArtifactError(f"{config}: olddefconfig did not keep what "
                            f"{', '.join(str(p) for p in fragments)} ask for (a dependency "
                            f"is missing from the fragments):\n  " + "\n  ".join(wrong))


def _lookup(index: Path) -> Kernel | None:
    try:
        directory = index.parent.parent / index.read_text().strip()
    except OSError:
        return None
    return _load(directory)


def _load(directory: Path) -> Kernel | None:
    manifest = read_manifest(directory)
    if manifest is None:
        return None
    return Kernel(variant=manifest["variant"], bzimage=directory / "bzImage",
                  vmlinux=directory / "vmlinux", system_map=directory / "System.map",
                  digest=manifest["digest"])


def _read_stamp(tree: Path) -> dict | None:
    if not (tree / "Makefile").exists():
        return None
    try:
        return json.loads((tree / PATCH_STAMP).read_text())
    except (OSError, ValueError):
        return None


def _patched_files(patch: Path) -> list[str]:
    return [line[6:].split("\t")[0].strip() for line in patch.read_text().splitlines()
            if line.startswith("+++ b/")]


def _source_tree(version: str, patches: list[Path], o3: bool, progress: Progress) -> Path:
    """The extracted, patched source tree, shared by the variants' builds
    (the O3 builds by theirs, with more patches).

    A new patch set replaces the tree under the same path. tar keeps the
    archive's timestamps, so make recompiles only the files whose timestamps
    are refreshed here: those the old or the new patches touch."""
    src_root = cache_dir() / "kernel" / ("src" + (O3 if o3 else ""))
    tree = src_root / f"{SOURCE_PACKAGE}_{version}"
    digest = patches_digest(patches)
    stamp = _read_stamp(tree)
    if stamp and stamp.get("digest") == digest:
        return tree
    with locked(_source_lock(o3), progress):
        stamp = _read_stamp(tree)
        if stamp and stamp.get("digest") == digest:
            return tree
        progress(f"kernel: extracting {SOURCE_TARBALL} ({SOURCE_PACKAGE} {version}) "
                 f"and applying {len(patches)} patch(es) from {PATCHES}" +
                 (f" and {PATCHES_O3}" if o3 else ""))
        with staging(tree) as tmp:
            run_tool(["tar", "-xf", str(SOURCE_TARBALL), "-C", str(tmp), "--strip-components=1"],
                     f"extracting {SOURCE_TARBALL}")
            touched: set[str] = set(stamp.get("files", [])) if stamp else set()
            for patch in patches:
                run_tool(["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
                          "-i", str(patch)], f"applying {patch}", cwd=tmp)
                touched.update(_patched_files(patch))
            for name in touched:
                if (tmp / name).exists():
                    os.utime(tmp / name)
            atomic.write_json(tmp / PATCH_STAMP, {
                "digest": digest, "patches": [p.name for p in patches],
                "files": sorted(f for p in patches for f in _patched_files(p))})
        for old in src_root.glob(f"{SOURCE_PACKAGE}_*"):
            if old != tree:
                shutil.rmtree(old, ignore_errors=True)
    return tree


def _source_lock(o3: bool) -> str:
    return "kernel-source" + (O3 if o3 else "")


def _make(src: Path, build_dir: Path, targets: list[str], what: str) -> None:
    run_tool(["make", "-C", str(src), f"O={build_dir}", *targets], what,
             env={**os.environ, **REPRODUCIBLE_ENV})


def _configure(src: Path, build_dir: Path, fragments: list[Path]) -> Path:
    config = build_dir / ".config"
    _make(src, build_dir, ["tinyconfig"], "kernel: make tinyconfig")
    run_tool([str(src / "scripts" / "kconfig" / "merge_config.sh"), "-m", "-O", str(build_dir),
              str(config), *map(str, fragments)], "kernel: merging config fragments", cwd=src)
    _make(src, build_dir, ["olddefconfig"], "kernel: make olddefconfig")
    check_config(config, fragments)
    return config


def _compile(src: Path, build_dir: Path, variant: str, progress: Progress) -> None:
    """`make -jN bzImage vmlinux`, reporting every 15 s how many files are done."""
    jobs = os.cpu_count() or 1
    log_path = build_dir / "make.log"
    cmd = ["make", "-C", str(src), f"O={build_dir}", f"-j{jobs}", "bzImage", "vmlinux"]
    progress(f"kernel {variant}: make -j{jobs} (log: {log_path})")
    start = last = time.monotonic()
    done = 0
    with open(log_path, "w", buffering=1) as log:  # line by line, for tail -f
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, **REPRODUCIBLE_ENV})
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            if line.startswith(("  CC ", "  AS ", "  LD ", "  AR ")):
                done += 1
            now = time.monotonic()
            if now - last >= 15:
                progress(f"kernel {variant}: {done} files compiled, {now - start:.0f} s")
                last = now
        rc = proc.wait()
    if rc != 0:
        tail = "".join(log_path.read_text().splitlines(keepends=True)[-20:])
        raise ArtifactError(f"kernel {variant}: make failed with status {rc}; "
                            f"full log in {log_path}:\n{tail}")
    progress(f"kernel {variant}: built in {time.monotonic() - start:.0f} s")


def _build(variant: str, version: str, fragments: list[Path], index: Path,
           progress: Progress) -> Kernel:
    require("kernel")
    patches = patch_paths(variant)
    o3 = variant.endswith(O3)
    src = _source_tree(version, patches, o3, progress)
    # One build tree per variant stays in the cache: a fragment edit then
    # recompiles only what the changed options touch.
    build_dir = cache_dir() / "kernel" / f"build-{variant}"
    build_dir.mkdir(parents=True, exist_ok=True)
    # The other variant may be compiling from the same tree: it is only
    # replaced (other patches) when no build holds it.
    with locked(_source_lock(o3), progress, shared=True):
        if (_read_stamp(src) or {}).get("digest") != patches_digest(patches):
            raise ArtifactError(f"{src} was replaced by a build with other patches; "
                                f"run the build again")
        config = _configure(src, build_dir, fragments)
        build_hash = hashlib.sha256(f"{SOURCE_PACKAGE}={version}\0{patches_digest(patches)}\0"
                                    .encode() + config.read_bytes()).hexdigest()
        name = f"{variant}-{build_hash[:16]}"
        final = cache_dir() / "kernel" / name
        kern = _load(final)
        if kern is None:
            _compile(src, build_dir, variant, progress)
    if kern is None:
        with staging(final) as tmp:
            outputs = {"bzImage": build_dir / "arch" / "x86" / "boot" / "bzImage",
                       "vmlinux": build_dir / "vmlinux", "System.map": build_dir / "System.map",
                       "config": config}
            for dest, source in outputs.items():
                shutil.copyfile(source, tmp / dest)
            digest = sha256_file(tmp / "bzImage")
            sha256_file(tmp / "vmlinux", digest)
            atomic.write_json(tmp / MANIFEST, {
                "variant": variant, "digest": digest.hexdigest(),
                "source": {"package": SOURCE_PACKAGE, "version": version,
                           "patches": [p.name for p in patches]},
                "build_sha256": build_hash,  # of version, patches and resolved .config
                "fragments": [str(p.relative_to(REPO)) for p in fragments],
                "sizes": {dest: (tmp / dest).stat().st_size for dest in outputs},
            })
        kern = Kernel(variant=variant, bzimage=final / "bzImage", vmlinux=final / "vmlinux",
                      system_map=final / "System.map", digest=digest.hexdigest())
    index.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(index, name + "\n")
    return kern
