"""`make gem5 GEM5_SRC=DIR` (scripts/build_gem5.sh): a tree that is not gem5 v24
is refused before anything is installed or compiled. Stand-ins for scons,
apt-get and dpkg-query record any call; no real compile starts here."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "build_gem5.sh"


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    """A bin/ of stand-ins that log their calls to calls.log; dpkg-query says
    every package is installed; scons makes an executable gem5.opt."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    stubs = {
        "scons": 'mkdir -p build/X86 && printf "#!/bin/sh\\n" > build/X86/gem5.opt '
                 '&& chmod +x build/X86/gem5.opt',
        "apt-get": "exit 1",
        "dpkg-query": "printf 'install ok installed'",
    }
    for name, body in stubs.items():
        path = bin_dir / name
        path.write_text(f'#!/bin/sh\necho "{name} $*" >> {log}\n{body}\n')
        path.chmod(0o755)
    return bin_dir


def build(tools: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}", "GEM5_JOBS": "2"}
    return subprocess.run(["bash", str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=60)


def calls(tools: Path) -> str:
    log = tools.parent / "calls.log"
    return log.read_text() if log.exists() else ""


def gem5_tree(root: Path, version: str, complete: bool = True) -> Path:
    (root / "src" / "base").mkdir(parents=True)
    (root / "src" / "base" / "version.cc").write_text(
        f'/* gem5 */\n#include "base/version.hh"\nnamespace gem5\n{{\n'
        f'const char *gem5Version = "{version}";\n}}\n')
    if complete:
        for d in ("build_opts", "src/arch/x86", "util"):
            (root / d).mkdir(parents=True, exist_ok=True)
        for f in ("SConstruct", "build_opts/X86", "util/cpt_upgrader.py"):
            (root / f).write_text("")
    return root


def test_a_tree_that_is_not_gem5_is_refused_before_anything_runs(tools, tmp_path):
    tree = tmp_path / "linux"
    tree.mkdir()
    (tree / "Makefile").write_text("all:\n")
    r = build(tools, tree)
    assert r.returncode == 2
    assert f"{tree} is not a gem5 source tree (no src/base/version.cc" in r.stderr
    assert calls(tools) == ""


def test_a_tree_of_another_gem5_version_is_refused_naming_both_versions(tools, tmp_path):
    tree = gem5_tree(tmp_path / "gem5", "23.1.0.0", complete=False)
    r = build(tools, tree)
    assert r.returncode == 2
    assert f"{tree} is gem5 23.1.0.0; g5net's configs are written for gem5 v24" in r.stderr
    assert "checkout v24.0.0.1" in r.stderr
    assert calls(tools) == ""


def test_an_incomplete_v24_tree_names_what_it_lacks(tools, tmp_path):
    tree = gem5_tree(tmp_path / "gem5", "24.0.0.1")
    (tree / "util" / "cpt_upgrader.py").unlink()
    r = build(tools, tree)
    assert r.returncode == 2 and "lacks util/cpt_upgrader.py" in r.stderr
    assert calls(tools) == ""


def test_without_a_directory_it_says_how_to_get_one(tools, tmp_path):
    for args in ((), ("",), (tmp_path / "absent",)):
        r = build(tools, *args)
        assert r.returncode == 2, args
        assert "make gem5" in r.stderr
    assert "git clone --depth 1 --branch v24.0.0.1" in build(tools).stderr
    assert calls(tools) == ""


def test_check_accepts_a_v24_tree_and_builds_nothing(tools, tmp_path):
    tree = gem5_tree(tmp_path / "gem5", "24.0.0.1")
    r = build(tools, "--check", tree)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{tree}: gem5 24.0.0.1, ready to build build/X86/gem5.opt\n"
    assert calls(tools) == ""


def test_a_v24_tree_is_built_with_scons_on_every_core_and_ends_with_the_g5net_line(tools, tmp_path):
    tree = gem5_tree(tmp_path / "gem5", "24.0.0.1")
    r = build(tools, tree)
    assert r.returncode == 0, r.stderr
    assert "scons build/X86/gem5.opt -j2 --ignore-style" in calls(tools)
    assert "apt-get" not in calls(tools)  # every package "installed"
    assert r.stdout.splitlines()[-1] == f"G5NET_GEM5={tree}/build/X86/gem5.opt"


def test_make_gem5_runs_the_script(tmp_path):
    tree = gem5_tree(tmp_path / "gem5", "23.1.0.0", complete=False)
    r = subprocess.run(["make", "-s", "-C", str(REPO), "gem5", f"GEM5_SRC={tree}"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "is gem5 23.1.0.0" in r.stderr
