"""Time to first result: `g5net artifacts build --for SPEC` builds only what the
spec boots (make demo: one kernel, not two), and an artifact built on first use
is announced with why the wait. Which kernels a command asks for is read from
the real cache; where a test needs a kernel not yet built (first use), the
minutes-long build itself is stood in for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from g5net import artifacts
from g5net.artifacts import kernels
from g5net.commands.artifacts import kernels_for
from g5net.model import specs
from g5net.runners import execute as run

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(artifact, needed_by) of every kernel and image asked for."""
    asked: list[tuple[str, str]] = []

    def kernel(variant: str, **kw) -> artifacts.Kernel:
        asked.append((f"kernel-{variant}", kw.get("needed_by", "")))
        return artifacts.Kernel(variant, Path("bzImage"), Path("vmlinux"), Path("System.map"),
                                digest="0" * 64)

    def image(**kw) -> artifacts.Image:
        asked.append(("image", kw.get("needed_by", "")))
        return artifacts.Image(Path("disk.img"), digest="1" * 64)

    monkeypatch.setattr(artifacts, "kernel", kernel)
    monkeypatch.setattr(artifacts, "image", image)
    return asked


def test_kernels_a_spec_boots_cover_every_point_of_its_sweep(tmp_path):
    assert kernels_for([EXAMPLES / "quickstart.toml"]) == {"smp": [str(EXAMPLES / "quickstart.toml")]}
    assert list(kernels_for([EXAMPLES / "switched-gem5.toml"])) == ["up"]
    both = tmp_path / "both.toml"
    both.write_text((EXAMPLES / "quickstart.toml").read_text()
                    + '\n[sweep]\n"host.kernel" = ["smp", "up"]\n')
    assert kernels_for([both]) == {"smp": [str(both)], "up": [str(both)]}
    # A host on O3 boots its variant's O3 build.
    o3 = tmp_path / "o3.toml"
    o3.write_text((EXAMPLES / "quickstart.toml").read_text()
                  + '\n[sweep]\n"host.cpu.model" = ["timing", "o3"]\n')
    assert kernels_for([o3]) == {"smp": [str(o3)], "smp-o3": [str(o3)]}


@pytest.mark.slow
def test_build_for_the_quickstart_takes_one_kernel_and_the_image():
    """On the real artifact cache (built, or built now): --for names the
    quickstart's one kernel; a plain build takes every one, the O3 builds too."""
    def kernels(*argv: str) -> list[str]:
        out = subprocess.run([sys.executable, "-m", "g5net.cli", "artifacts", "build", *argv],
                             capture_output=True, text=True, timeout=3600, check=True).stdout
        assert out.splitlines()[-1].startswith("image: ") and "disk.img" in out
        return [line.split(":")[0] for line in out.splitlines() if line.startswith("kernel ")]
    assert kernels("--for", str(EXAMPLES / "quickstart.toml")) == ["kernel smp"]
    assert kernels() == ["kernel smp", "kernel up", "kernel smp-o3", "kernel up-o3"]


def test_a_run_says_which_hosts_wait_for_a_kernel(builds):
    spec = specs.load(EXAMPLES / "quickstart.toml")
    run.resolve_artifacts(spec, progress=lambda m: None)
    assert builds == [("kernel-smp", "quickstart: server, client boot it"),
                      ("image", "quickstart: every host boots it")]


def test_a_kernel_built_on_first_use_says_why_the_wait(monkeypatch, tmp_path):
    monkeypatch.setenv("G5NET_CACHE", str(tmp_path))
    monkeypatch.setattr(kernels, "source_version", lambda: "6.1.0-test")
    built = artifacts.Kernel("up", Path("bzImage"), Path("vmlinux"), Path("System.map"), "2" * 64)
    monkeypatch.setattr(kernels, "_build", lambda *args: built)
    lines: list[str] = []
    assert kernels.kernel("up", progress=lines.append, needed_by="web: client boots it") is built
    assert lines == [f"kernel up: not built yet for the current inputs (first use, or its recipe "
                     f"changed); building it now for web: client boots it, once: minutes, with "
                     f"progress below; later runs reuse it from {tmp_path}"]


def test_make_demo_builds_only_what_its_spec_boots():
    dry = subprocess.run(["make", "-n", "-C", str(REPO), "demo"], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert "g5net artifacts build --for $spec && " in dry
    assert not any(line.rstrip().endswith("g5net artifacts build") for line in dry.splitlines())
