"""The guest disk image: a raw ext4 file system made only of Debian packages
(`disk-images/packages.txt`), `disk-images/overlay/`, the guest scripts of
`workloads/` and the guest tools (m5, nicreg), written by `mke2fs -d` without
mounting anything.

It is reproducible: the same inputs give the same bytes (fixed UUID, hash
seed, timestamps, file order and modes), so its sha256 identifies a run's
guest software. It is cached under the hash of those inputs.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import ArtifactError
from ..machine import atomic
from . import debian, elf, guest_tools
from .cache import MANIFEST, Progress, cache_dir, first_use, locked, read_manifest, sha256_file, staging
from .host import REPO, require, run_tool

RECIPE = REPO / "disk-images"
WORKLOADS = REPO / "workloads"
# Bump when the build below changes in a way the inputs do not show.
RECIPE_VERSION = "1"
IMAGE_NAME = "disk.img"

# Where the guest scripts go (image path -> source under the repo); its
# compiled tools are guest_tools.TOOLS.
GUEST_FILES = {
    "sbin/g5init": WORKLOADS / "g5init",
    "g5net/lib.sh": WORKLOADS / "lib.sh",
    "g5net/results.awk": WORKLOADS / "results.awk",
    "g5net/g5rsh": WORKLOADS / "g5rsh",
}
# Mount points g5init uses; the root file system itself stays read-only.
MOUNT_POINTS = ("dev", "proc", "sys", "tmp", "run")
# Where ld.so looks for libraries when there is no ld.so.cache.
LIBRARY_DIRS = ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib64", "lib", "usr/lib")

EPOCH = 1672531200  # 2023-01-01, every timestamp in the image
FS_UUID = "6e5bc0a5-9e7a-4d1b-8c55-67356e657401"
HASH_SEED = "6e5bc0a5-9e7a-4d1b-8c55-67356e657402"
LABEL = "g5net"
BLOCK = 4096


@dataclass(frozen=True)
class Image:
    path: Path
    digest: str


@dataclass(frozen=True)
class PackageLine:
    name: str
    globs: tuple[str, ...]
    libs: bool  # its shared objects are found by what the image's programs load


def image(*, build: bool = True, progress: Progress = print, needed_by: str = "") -> Image:
    """The disk image of `disk-images/`, built first if it is not cached and
    `build` is true; `needed_by` as for kernel()."""
    return image_from(RECIPE, build=build, progress=progress, needed_by=needed_by)


def image_from(recipe: Path, *, build: bool = True, progress: Progress = print,
               needed_by: str = "") -> Image:
    """The image of the recipe folder `recipe` (packages.txt, overlay/)."""
    lines = read_packages(recipe / "packages.txt")
    packages = debian.resolve([p.name for p in lines], str(recipe / "packages.txt"),
                              memo=cache_dir() / "image" / "apt-resolved.json")
    key = input_key(recipe, lines, packages)
    final = cache_dir() / "image" / key
    found = _load(final)
    if found:
        return found
    if not build:
        raise ArtifactError(f"the disk image of {recipe} is not built for the current inputs; "
                            f"run `g5net artifacts build --image`")
    with locked(f"image-{key}", progress):
        found = _load(final)
        if found:
            return found
        progress(first_use("disk image", needed_by))
        return _build(recipe, lines, packages, final, progress)


def read_packages(path: Path) -> list[PackageLine]:
    try:
        text = path.read_text()
    except OSError as e:
        raise ArtifactError(f"cannot read the image recipe {path}: {e.strerror}") from e
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) < 2:
            raise ArtifactError(f"{path}:{number}: package {fields[0]} lists nothing to install "
                                f"(give file globs, or `libs`)")
        libs = fields[1] == "libs"
        lines.append(PackageLine(fields[0], tuple(fields[2:] if libs else fields[1:]), libs))
    if not lines:
        raise ArtifactError(f"{path}: no packages")
    return lines


def _tree_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if not p.is_dir() or p.is_symlink())


def input_key(recipe: Path, lines: list[PackageLine],
              packages: dict[str, debian.Package]) -> str:
    h = hashlib.sha256(f"{RECIPE_VERSION}\0".encode())
    for line in lines:
        p = packages[line.name]
        h.update(f"{p.name}={p.version} {p.sha256} {' '.join(('libs',) * line.libs + line.globs)}\0".encode())
    overlay = recipe / "overlay"
    sources = {f"overlay/{p.relative_to(overlay)}": p for p in _tree_files(overlay)} \
        if overlay.is_dir() else {}
    sources.update(GUEST_FILES)
    sources.update(guest_tools.TOOLS)
    for name, path in sorted(sources.items()):
        h.update(f"{name} {_mode(path):o}\0".encode())
        h.update(os.readlink(path).encode() if path.is_symlink() else path.read_bytes())
        h.update(b"\0")
    h.update(guest_tools.toolchain_id().encode())
    return h.hexdigest()[:16]


def _mode(path: Path) -> int:
    """Git keeps only the executable bit; umask must not leak into the image."""
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode):
        return 0o777
    return 0o755 if st.st_mode & 0o111 else 0o644


def _load(directory: Path) -> Image | None:
    manifest = read_manifest(directory)
    if manifest is None:
        return None
    return Image(path=directory / IMAGE_NAME, digest=manifest["digest"])


def _copy(src: Path, dest: Path, mode: int | None = None) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.is_symlink() or dest.exists():
        dest.unlink()
    if src.is_symlink():
        dest.symlink_to(os.readlink(src))
    else:
        shutil.copyfile(src, dest)
        os.chmod(dest, mode if mode is not None else stat.S_IMODE(src.stat().st_mode))


def _install_globs(line: PackageLine, pkg_root: Path, root: Path, deb: str) -> None:
    for pattern in line.globs:
        matches = sorted(pkg_root.glob(pattern))
        if not matches:
            raise ArtifactError(f"packages.txt: {line.name}: {pattern!r} matches nothing in {deb}")
        for src in matches:
            if src.is_dir() and not src.is_symlink():
                raise ArtifactError(f"packages.txt: {line.name}: {pattern!r} matches the "
                                    f"folder {src.relative_to(pkg_root)}; name its files")
            _copy(src, root / src.relative_to(pkg_root))


class _Libraries:
    """Finds shared objects in the extracted `libs` packages and copies them,
    with the symlinks leading to them, into the image."""

    def __init__(self, trees: dict[str, Path], root: Path):
        self.trees = trees
        self.root = root

    def _find(self, relative: str) -> tuple[str, Path] | None:
        for name, tree in self.trees.items():
            if (tree / relative).is_symlink() or (tree / relative).exists():
                return name, tree
        return None

    def _install(self, tree: Path, relative: str) -> Path:
        """Copies `relative` and, through its symlinks, the real file, whose
        image path it returns."""
        while True:
            src = tree / relative
            _copy(src, self.root / relative)
            if not src.is_symlink():
                return self.root / relative
            target = os.readlink(src)
            relative = target.lstrip("/") if target.startswith("/") else \
                os.path.normpath(os.path.join(os.path.dirname(relative), target))

    def resolve_all(self) -> list[str]:
        """Installs every library the image's ELF files need, transitively;
        returns the names of the packages that provided some."""
        pending = [p for p in _tree_files(self.root) if p.is_file() and not p.is_symlink()
                   and elf.is_elf(p)]
        seen: set[str] = set()
        used: set[str] = set()
        while pending:
            program = pending.pop()
            deps = elf.dependencies(program)
            wanted = ([deps.interpreter.lstrip("/")] if deps.interpreter else []) + [
                next((f"{d}/{lib}" for d in LIBRARY_DIRS if self._find(f"{d}/{lib}")), lib)
                for lib in deps.needed]
            for relative in wanted:
                if relative in seen:
                    continue
                seen.add(relative)
                found = self._find(relative)
                if found is None:
                    lib = relative.rsplit("/", 1)[-1]
                    raise ArtifactError(
                        f"/{program.relative_to(self.root)} needs {lib}, which no `libs` package "
                        f"of packages.txt ships ({', '.join(self.trees) or 'none'}); add the "
                        f"Debian package that does (`apt-file search {lib}`)")
                used.add(found[0])
                pending.append(self._install(found[1], relative))
        return sorted(used)


def _busybox_links(root: Path) -> None:
    """One symlink per applet, where no real program of that name is."""
    busybox = root / "bin" / "busybox"
    if not busybox.exists():
        raise ArtifactError("packages.txt: the image needs bin/busybox (busybox-static)")
    out = run_tool([str(busybox), "--list-full"], "listing busybox applets")
    for applet in out.stdout.split():
        link = root / applet
        if link.exists() or link.is_symlink():
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to("/bin/busybox")


def _normalize(root: Path) -> list[str]:
    """Fixed modes for folders and timestamps for everything; returns every
    path in the image (for the debugfs pass that fixes what mke2fs copies
    from the host: ctime)."""
    paths = ["/"]
    for p in sorted(root.rglob("*")):
        if p.is_dir() and not p.is_symlink():
            os.chmod(p, 0o755)
        paths.append("/" + str(p.relative_to(root)))
    for p in [root, *sorted(root.rglob("*"))]:
        os.utime(p, (EPOCH, EPOCH), follow_symlinks=False)
    return paths


def _size_bytes(root: Path) -> tuple[int, int]:
    """Image size and inode count: the content plus a quarter and 8 MiB."""
    blocks = inodes = 0
    for p in root.rglob("*"):
        inodes += 1
        if p.is_file() and not p.is_symlink():
            blocks += -(-p.stat().st_size // BLOCK)
        else:
            blocks += 1
    size = (blocks * BLOCK * 5 // 4 + (8 << 20) + (1 << 20) - 1) >> 20 << 20
    return size, inodes + 256


def _mke2fs(root: Path, dest: Path, paths: list[str]) -> None:
    size, inodes = _size_bytes(root)
    env = {**os.environ, "E2FSPROGS_FAKE_TIME": str(EPOCH), "SOURCE_DATE_EPOCH": str(EPOCH)}
    run_tool(["mke2fs", "-q", "-F", "-t", "ext4", "-O", "^has_journal", "-b", str(BLOCK),
              "-m", "0", "-N", str(inodes), "-L", LABEL, "-U", FS_UUID,
              "-E", f"root_owner=0:0,hash_seed={HASH_SEED},nodiscard",
              "-d", str(root), str(dest), f"{size >> 10}k"], f"mke2fs {dest}", env=env)
    commands = dest.with_suffix(".debugfs")
    commands.write_text("".join(f'sif "{p}" {field} @{EPOCH}\n' for p in paths
                                for field in ("atime", "mtime", "ctime", "crtime")))
    out = run_tool(["debugfs", "-w", "-f", str(commands), str(dest)],
                   f"fixing timestamps in {dest}", env=env)
    errors = [line for line in out.stderr.splitlines() if line.startswith("sif:")]
    if errors:
        raise ArtifactError(f"debugfs on {dest}: {errors[0]}")
    commands.unlink()
    run_tool(["e2fsck", "-fn", str(dest)], f"checking {dest}")


def _build(recipe: Path, lines: list[PackageLine], packages: dict[str, debian.Package],
           final: Path, progress: Progress) -> Image:
    require("image")
    require("guest-tools")
    debs = debian.fetch([packages[line.name] for line in lines], cache_dir() / "debs", progress)
    progress(f"image: assembling {final.name} from {len(lines)} packages")
    with staging(final) as tmp:
        root = tmp / "root"
        root.mkdir()
        trees: dict[str, Path] = {}
        for line in lines:
            tree = tmp / "packages" / line.name
            debian.extract(debs[line.name], tree)
            if line.libs:
                trees[line.name] = tree
            _install_globs(line, tree, root, debs[line.name].name)
        for name in MOUNT_POINTS:
            (root / name).mkdir(exist_ok=True)
        overlay = recipe / "overlay"
        for src in _tree_files(overlay) if overlay.is_dir() else []:
            _copy(src, root / src.relative_to(overlay), _mode(src))
        for dest, src in GUEST_FILES.items():
            _copy(src, root / dest, _mode(src))
        guest_tools.compile_all(root)
        unused = set(trees) - set(_Libraries(trees, root).resolve_all())
        if unused:
            raise ArtifactError(f"{recipe / 'packages.txt'}: no program in the image loads a "
                                f"library of {', '.join(sorted(unused))}; remove "
                                f"{'them' if len(unused) > 1 else 'it'}")
        _busybox_links(root)
        paths = _normalize(root)
        _mke2fs(root, tmp / IMAGE_NAME, paths)
        shutil.rmtree(root)
        shutil.rmtree(tmp / "packages")
        digest = sha256_file(tmp / IMAGE_NAME).hexdigest()
        size = (tmp / IMAGE_NAME).stat().st_size
        atomic.write_json(tmp / MANIFEST, {
            "digest": digest, "size": size,
            "packages": {p.name: p.version for p in packages.values()},
        })
        progress(f"image: {final / IMAGE_NAME}, {size >> 20} MiB, sha256 {digest[:16]}")
    return Image(path=final / IMAGE_NAME, digest=digest)
