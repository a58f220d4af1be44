"""What gem5's embedded Python imports: configs/ imports only gem5's modules,
the standard library, its own, and g5net.spec and g5net.contract; those import
only the standard library (and g5net.errors), so gem5 never pulls in the rest
of g5net, whatever is installed beside it."""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

from g5net import contract

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs"
GEM5_MODULES = {"gem5", "m5", "_m5"}
ENTRIES = {p.stem for p in CONFIGS.glob("*.py")}
COMPONENTS = "g5net_components"
# What configs/ may import of g5net (gem5's PYTHONPATH holds the directory
# above it: g5net/engines/gem5/config_files.py).
G5NET_SIDE = {"g5net.spec"} | {f"g5net.contract.{m.name}" for m in pkgutil.iter_modules(contract.__path__)}
# What those modules may bring along of g5net: the package itself (its
# __init__ imports only .version) and the error classes.
G5NET_ALONG = {"g5net", "g5net.version", "g5net.errors", "g5net.contract"}


def _imported(tree: ast.Module) -> list[str]:
    """Every absolute module a file imports, `from g5net import spec` as g5net.spec."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "g5net":
                names += [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in G5NET_SIDE
                          else node.module for a in node.names]
            else:
                names.append(node.module)
    return names


def test_configs_import_only_gem5_the_standard_library_and_g5nets_gem5_side():
    allowed_roots = GEM5_MODULES | set(sys.stdlib_module_names) | ENTRIES | {COMPONENTS}
    for path in sorted(CONFIGS.rglob("*.py")):
        for name in _imported(ast.parse(path.read_text(), str(path))):
            ok = name in G5NET_SIDE if name.split(".")[0] == "g5net" else name.split(".")[0] in allowed_roots
            assert ok, f"{path.relative_to(REPO)} imports {name}"


def test_g5nets_gem5_side_imports_only_the_standard_library():
    """A fresh interpreter without site-packages (-I -S), whose path is the
    standard library and the checkout, imports every gem5-side module."""
    code = (f"import sys, json; sys.path.append({str(REPO)!r}); "
            + "".join(f"import {m}; " for m in sorted(G5NET_SIDE))
            + "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'g5net')))")
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout))
    assert loaded - G5NET_SIDE - G5NET_ALONG == set()
