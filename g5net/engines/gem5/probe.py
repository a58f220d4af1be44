"""Finding gem5 and asking a build what it can do (configs/g5net_probe.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ...artifacts import cache_dir
from ...errors import Gem5Error
from ...machine import atomic
from ..base import file_digest
from .config_files import PROBE_CONFIG, gem5_environment
from ...contract.gem5 import PROBE_MARK
from .process import tail

ENV_BINARY = "G5NET_GEM5"
FAST = "gem5.fast"
# In order of preference.
BINARIES = (FAST, "gem5.opt")
HOW_TO_POINT = (f"point g5net at a gem5 X86 build: export {ENV_BINARY}=/path/to/gem5/build/X86/gem5.opt "
                f"or put gem5.opt (or gem5.fast) on PATH")
# The gem5 release g5net's configs are written against (the standard library's
# board and component APIs change between major releases).
SUPPORTED_MAJOR = "24"
PROBE_TIMEOUT_S = 120


def find_binary(environ: dict[str, str] | None = None) -> Path:
    """$G5NET_GEM5, else gem5.fast, else gem5.opt on PATH."""
    return choose_binary(environ)[0]


def choose_binary(environ: dict[str, str] | None = None) -> tuple[Path, str]:
    """The gem5 binary g5net runs, and why that one. gem5.fast is gem5.opt
    without its assertions and debug output: the same simulation, faster, so
    it is preferred on PATH; one named by $G5NET_GEM5 is the user's choice."""
    env = os.environ if environ is None else environ
    configured = env.get(ENV_BINARY)
    if configured:
        path = Path(configured).expanduser()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise Gem5Error(f"{ENV_BINARY}={configured}: not an executable file; {HOW_TO_POINT}")
        fast = path.with_name(FAST)
        beside = (f"; a {FAST} is beside it, faster for the same simulation: point "
                  f"{ENV_BINARY} at it, unless you need --debug-flags") \
            if path.name != FAST and fast.is_file() and os.access(fast, os.X_OK) else ""
        return path, f"{ENV_BINARY} names it{beside}"
    for name in BINARIES:
        found = shutil.which(name, path=env.get("PATH", os.defpath))
        if found:
            why = (f"{name} on PATH, preferred: no assertions or debug output, faster"
                   if name == FAST else f"{name} on PATH (no {FAST} there)")
            return Path(found), why
    raise Gem5Error(f"gem5 not found ({ENV_BINARY} is unset and neither "
                    f"{' nor '.join(BINARIES)} is on PATH); {HOW_TO_POINT}")


@dataclass(frozen=True)
class Gem5Build:
    """What one gem5 binary can do, as its own Python reports it."""
    binary: Path
    digest: str
    version: str
    isas: tuple[str, ...]
    protocol: str
    classic_caches: bool
    kvm_cpu: bool

    @property
    def kvm_usable(self) -> bool:
        return self.kvm_cpu and os.access("/dev/kvm", os.R_OK | os.W_OK)

    def problems(self) -> list[str]:
        """Why g5net cannot run on this build; empty when it can."""
        out = []
        if self.version.lstrip("v").split(".")[0] != SUPPORTED_MAJOR:
            out.append(f"is gem5 {self.version}; g5net's configs are written for "
                       f"v{SUPPORTED_MAJOR} (build gem5 v{SUPPORTED_MAJOR}.0.0.1)")
        if "x86" not in self.isas:
            out.append(f"built for {', '.join(self.isas) or 'no ISA'}, not X86 (build build/X86/gem5.opt)")
        if not self.classic_caches:
            out.append("has no classic caches")
        if not self.protocol:
            # gem5.utils.requires() rejects every standard-library processor then.
            out.append("has no Ruby protocol built in (build gem5's default X86 configuration)")
        return out


def _probe_cache() -> Path:
    return cache_dir() / "gem5-probe.json"


def probe(binary: Path) -> Gem5Build:
    """Ask `binary` what it is; remembered by the binary's digest."""
    digest = file_digest(binary)
    try:
        cache = json.loads(_probe_cache().read_text())
    except (OSError, ValueError):
        cache = {}
    if digest not in cache:
        cache[digest] = _run_probe(binary)
        _probe_cache().parent.mkdir(parents=True, exist_ok=True)
        atomic.write_json(_probe_cache(), cache)
    p = cache[digest]
    return Gem5Build(binary=binary, digest=digest, version=p["version"], isas=tuple(p["isas"]),
                     protocol=p["protocol"], classic_caches=p["classic_caches"],
                     kvm_cpu=p["kvm_cpu"])


def _run_probe(binary: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="g5net-gem5-probe-") as out:
        cmd = [str(binary), "--quiet", f"--outdir={out}", str(PROBE_CONFIG)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
                                  env=gem5_environment(), check=False)
        except subprocess.TimeoutExpired:
            raise Gem5Error(f"{binary}: no answer to {PROBE_CONFIG.name} within "
                            f"{PROBE_TIMEOUT_S} s") from None
        except OSError as e:
            raise Gem5Error(f"{binary}: cannot run: {e.strerror}; {HOW_TO_POINT}") from e
    for line in proc.stdout.splitlines():
        if line.startswith(PROBE_MARK + " "):
            return json.loads(line.split(" ", 1)[1])
    raise Gem5Error(f"{binary} is not a usable gem5 (status {proc.returncode} running "
                    f"{PROBE_CONFIG.name}): {tail(proc.stdout + proc.stderr)}; {HOW_TO_POINT}")
