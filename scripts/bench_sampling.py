#!/usr/bin/env python3
"""gem5's program-counter sampling (`experiment.pc_sample_us`) against none:
the measured phase of examples/quickstart-gem5.toml, unsampled, sampled every
50 us and every 10 us, in this one run, each restoring the same boot
checkpoint (booted first, untimed, where there is none). Prints each run's
wall time and its ratio to the unsampled run's, the server stream's samples
and how much of gem5's busy time they cover, and whether every workload
metric outside the breakdown equals the unsampled run's (sampling must not
change what is simulated). Skipped, with the reason, where gem5 is missing.

    .venv/bin/python scripts/bench_sampling.py
"""

import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchlib import gem5_engine  # noqa: E402

from g5net import spec as specmod  # noqa: E402
from g5net.model import specs  # noqa: E402
from g5net.runners import execute as run  # noqa: E402
from g5net.runs.rundir import RunDir  # noqa: E402

SPEC = REPO / "examples" / "quickstart-gem5.toml"
PERIODS_US = (0, 50, 10)
LIMIT_S = 4 * 3600


def sampled(period_us: float) -> specmod.Spec:
    d = specs.load(SPEC).to_dict()
    d["experiment"].update(pc_sample_us=period_us, timeout_s=LIMIT_S)
    return specs.from_dict(d)


def plain_metrics(rd: RunDir) -> dict:
    """Every workload's metrics but those of the breakdown."""
    hosts = json.loads(rd.metrics_json.read_text())["hosts"]
    return {(h, w, k): v for h, ws in hosts.items() for w, m in ws.items() for k, v in m.items()
            if not k.startswith("time_") and k != "breakdown"}


def main() -> int:
    engine = gem5_engine()
    if engine is None:
        return 0
    with tempfile.TemporaryDirectory() as store:
        first = sampled(0)
        arts = run.resolve_artifacts(first, progress=lambda m: None)
        with tempfile.TemporaryDirectory() as tmp:  # the boot, untimed
            engine.booted(first, arts, RunDir(Path(tmp)), time.monotonic() + LIMIT_S,
                          progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True))
        print(f"{'sampling':<14} {'wall':>7} {'ratio':>6} {'samples':>8} {'of busy':>8}  "
              f"metrics as unsampled")
        base_s, base = None, None
        for period in PERIODS_US:
            rd = run.execute(sampled(period), Path(store), progress=lambda m: None, arts=arts)
            record = rd.read_run()
            if record["status"] != "done":
                sys.exit(f"pc_sample_us = {period}: {record.get('failure')}")
            wall = record["timings"]["wall_s"]
            metrics = plain_metrics(rd)
            if base is None:  # the unsampled run, first
                base_s, base = wall, metrics
            b = json.loads(rd.metrics_json.read_text())["hosts"]["server"]["stream"].get("breakdown")
            label = f"every {period} us" if period else "off"
            cover = f"{b['samples']:>8} {b['sampled_busy_pct']:>7.1f}%" if b else f"{'-':>8} {'-':>8}"
            same = "yes" if metrics == base else \
                f"no: {sorted(k for k in base if metrics.get(k) != base[k])[:3]}"
            print(f"{label:<14} {wall:>5.0f} s {wall / base_s:>6.2f} {cover}  {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
