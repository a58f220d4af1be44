"""A gem5 sweep's dry run counts boots by checkpoint: points that differ only
after the boot share one (the PCIe read-request pair), a knob on the kernel's
command line (the MTU) makes another. Needs gem5 and the built artifacts (no
simulation)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from g5net.artifacts.host import REPO

SPEC = REPO / "examples" / "pcie-read-request-gem5.toml"


def _dry_run(spec: Path, out: Path) -> tuple[list[dict], str]:
    args = [sys.executable, "-m", "g5net.cli", "sweep", str(spec), "--out", str(out), "--dry-run"]
    rows = json.loads(subprocess.run(args + ["--json"], capture_output=True, text=True,
                                     check=True).stdout)
    text = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return rows, text


def test_points_restoring_one_checkpoint_need_one_boot(gem5_engine, tmp_path):
    rows, text = _dry_run(SPEC, tmp_path / "pair")
    keys = {r["checkpoint"] for r in rows}
    assert len(rows) == 2 and len(keys) == 1 and None not in keys
    point_lines = [line for line in text.splitlines() if " pending " in line]
    assert len(point_lines) == 2
    built = all(f"checkpoint {rows[0]['checkpoint'][:8]} built" in line for line in point_lines)
    assert text.rstrip().endswith(f"2 points; 2 to run, needing {0 if built else 1} boots"), text

    mtus = tmp_path / "mtus.toml"
    mtus.write_text(SPEC.read_text() + '"host.nic.mtu" = [1500, 9000]\n')
    rows, text = _dry_run(mtus, tmp_path / "mtus")
    by_mtu: dict[int, set[str]] = {}
    for r in rows:
        by_mtu.setdefault(r["params"]["host.nic.mtu"], set()).add(r["checkpoint"])
    assert all(len(keys) == 1 for keys in by_mtu.values()) and by_mtu[1500] != by_mtu[9000]
    assert "4 points; 4 to run, needing " in text
