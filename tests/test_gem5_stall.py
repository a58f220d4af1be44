"""Real gem5: a boot made not to finish is stopped as stalled, long before
its time limit. About 5 minutes on 2 cores; skipped, with the reason, where
gem5 is missing. (A pair of 4-CPU hosts booting and measuring is the
committed gem5-smp run's, tests/test_gem5_fixtures.py: its live twin took
CI's machine 20 minutes to find what the fixture shows.)"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from g5net.engines.gem5 import Gem5Engine
from g5net.model import specs
from g5net.runners import execute as run

pytestmark = [pytest.mark.gem5, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]


def test_a_boot_that_stops_making_progress_fails_as_stalled(gem5_engine: Gem5Engine, tmp_path: Path):
    """The kernel waits ten hours before it mounts the root file system
    (`rootdelay`, a word kernel_args may hold; the protocol's own, such as
    `init=`, are refused): it boots, then nothing more is printed."""
    d = specs.load(REPO / "examples" / "quickstart-gem5.toml").to_dict()
    d["experiment"].update(name="gem5-stall", timeout_s=3600)
    for h in d["hosts"].values():
        h["kernel_args"] = ["rootdelay=36000"]
    t0 = time.monotonic()
    rd = run.execute(specs.from_dict(d), tmp_path, progress=print)
    wall = time.monotonic() - t0
    record = rd.read_run()
    assert record["status"] == "failed:boot", record["status"]
    reason = record["failure"]["reasons"][0]
    # An idle guest's simulated time runs fast: many simulated seconds pass
    # between two of the engine's looks, so the silence found is 2 s or more.
    # (The idle CPUs still wake for timer ticks, so they need not count as halted.)
    m = re.fullmatch(r"boot stalled: no console output for ([\d.]+) simulated s \(at [\d.]+ simulated s; "
                     r"CPUs halted: [^;]*(?:; [^;]*)?; last console lines: server: '.*'; "
                     r"client: '.*'\) \(while booting\)", reason)
    assert m and float(m.group(1)) > 2.0, reason
    # Each host's console, silent after its first line, is kept in the run.
    assert rd.console("server").read_text().count("\n") == 1
    assert wall < 3600 / 3, f"stopped after {wall:.0f} s"
