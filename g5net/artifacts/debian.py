"""Debian packages through the host's apt: which version the archive offers,
the .deb itself (downloaded once into the cache, checked against the archive's
SHA256), and its files (dpkg-deb -x, no maintainer scripts, no root)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ArtifactError
from ..machine import atomic
from .cache import Progress, sha256_file
from .host import run_tool


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    filename: str  # the archive's pool path; its base name names the cached .deb
    sha256: str
    depends: str

    @property
    def deb_name(self) -> str:
        return Path(self.filename).name


# What decides apt's answers: its package lists and configuration.
APT_STATE = (Path("/var/lib/apt/lists"), Path("/etc/apt"))


def _apt_state() -> str:
    h = hashlib.sha256()
    for top in APT_STATE:
        for p in sorted(top.rglob("*")) if top.is_dir() else []:
            st = p.lstat()
            h.update(f"{p} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def resolve(names: list[str], source: str, memo: Path | None = None) -> dict[str, Package]:
    """The candidate version of each package; `source` (the file that asked
    for them) is named when one does not exist. `apt-cache show` takes
    seconds, so its answer is kept in `memo` until apt's lists change."""
    state = _apt_state()
    if memo is not None:
        try:
            saved = json.loads(memo.read_text())
            if saved["apt_state"] == state and sorted(saved["packages"]) == sorted(names):
                return {n: Package(**p) for n, p in saved["packages"].items()}
        except (OSError, ValueError, KeyError, TypeError):
            pass
    found = _apt_cache_show(names, source)
    if memo is not None:
        memo.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_json(memo, {"apt_state": state,
                                 "packages": {n: dataclasses.asdict(p) for n, p in found.items()}})
    return found


def _apt_cache_show(names: list[str], source: str) -> dict[str, Package]:
    out = subprocess.run(["apt-cache", "show", "--no-all-versions", *names],
                         capture_output=True, text=True)
    found: dict[str, Package] = {}
    for stanza in out.stdout.split("\n\n"):
        fields = _fields(stanza)
        if "Package" in fields and fields["Package"] in names:
            found[fields["Package"]] = Package(
                fields["Package"], fields["Version"], fields["Filename"], fields["SHA256"],
                fields.get("Depends", ""))
    missing = [n for n in names if n not in found]
    if missing:
        raise ArtifactError(f"{source}: Debian package{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(missing)} not found by `apt-cache show` (misspelled, "
                            f"not in Debian 12, or `apt-get update` not run)")
    return found


def _fields(stanza: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    key = None
    for line in stanza.splitlines():
        if line[:1] in (" ", "\t") and key:
            fields[key] += "\n" + line.strip()
        elif ":" in line:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def fetch(packages: list[Package], debs: Path, progress: Progress) -> dict[str, Path]:
    """Each package's .deb under `debs`, downloaded when not there yet."""
    debs.mkdir(parents=True, exist_ok=True)
    paths = {p.name: debs / p.deb_name for p in packages}
    wanted = [p for p in packages if not _valid(paths[p.name], p)]
    if wanted:
        progress(f"image: downloading {', '.join(p.name for p in wanted)}")
        with tempfile.TemporaryDirectory(dir=debs, prefix=".download-") as tmp:
            run_tool(["apt-get", "download", "-q", *(f"{p.name}={p.version}" for p in wanted)],
                     "downloading Debian packages", cwd=tmp)
            for p in wanted:
                got = list(Path(tmp).glob(f"{p.name}_*.deb"))
                if len(got) != 1 or not _valid(got[0], p):
                    raise ArtifactError(f"apt-get download {p.name}={p.version} did not give "
                                        f"a .deb with the archive's SHA256 {p.sha256}")
                got[0].rename(paths[p.name])
    return paths


def _valid(deb: Path, package: Package) -> bool:
    return deb.exists() and sha256_file(deb).hexdigest() == package.sha256


def extract(deb: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    run_tool(["dpkg-deb", "-x", str(deb), str(dest)], f"extracting {deb.name}")
