"""What the host must have installed: `disk-images/host-packages.txt`, checked
before each build step so that a missing tool is named with its package
instead of failing deep inside make or mke2fs."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import ArtifactError
from ..home import REPO

HOST_PACKAGES = REPO / "disk-images" / "host-packages.txt"


@dataclass(frozen=True)
class HostPackage:
    name: str
    probe: str
    needed_by: tuple[str, ...]

    def present(self) -> bool:
        if self.probe.startswith("/"):
            return Path(self.probe).exists()
        return shutil.which(self.probe) is not None


def host_packages(path: Path = HOST_PACKAGES) -> list[HostPackage]:
    packages = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) < 3:
            raise ArtifactError(f"{path}:{number}: expected 'package probe needed-by...', "
                                f"got {line.strip()!r}")
        packages.append(HostPackage(fields[0], fields[1], tuple(fields[2:])))
    return packages


def require(step: str, packages: Path = HOST_PACKAGES) -> None:
    """Raises ArtifactError naming every package `step` needs that is missing."""
    missing = [p for p in host_packages(packages) if step in p.needed_by and not p.present()]
    if missing:
        names = " ".join(p.name for p in missing)
        detail = ", ".join(f"{p.name} (no {p.probe})" for p in missing)
        raise ArtifactError(f"building the {step} needs Debian packages that are not installed: "
                            f"{detail}; install them with `apt-get install {names}` "
                            f"(`make deps` installs everything in {packages.name})")


def run_tool(cmd: list[str], what: str, **kwargs) -> subprocess.CompletedProcess:
    """Runs a host tool, turning a failure into an ArtifactError that shows
    the command and the end of its output."""
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-15:])
        raise ArtifactError(f"{what}: `{shlex.join(cmd)}` failed with status "
                            f"{result.returncode}:\n{tail}")
    return result
