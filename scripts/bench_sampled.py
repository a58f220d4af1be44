#!/usr/bin/env python3
"""Sampled windows (experiment.window_method = "sampled") against consecutive
ones, in this one run on this machine's cores, each from the same boot
checkpoint (booted first, untimed, where there is none):

1. An O3 point's 4 windows of 5 ms: simulated serially from the start of the
   stream (consecutive: warm-up and windows on O3, one process), then sampled
   (the stream fast-forwarded on the atomic CPU into 4 warm checkpoints, each
   window warmed and measured in its own process, as many at once as there
   are cores). Prints both wall times and their ratio (issue 26: at most 0.55
   on 2 cores), and each one's throughput with its interval.
2. examples/sampled-sweep-gem5.toml, CPU model x L2 size (4 points) with a
   fresh cache of warm checkpoints: how many fast-forwards the sweep ran
   (one), and its wall time.

Skipped, with the reason, where gem5 is missing. Some 40 minutes on 2 cores.

    .venv/bin/python scripts/bench_sampled.py
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
from g5net.model import sweep  # noqa: E402
from g5net.model import specs  # noqa: E402
from g5net.runners import execute as run  # noqa: E402
from g5net.runs.rundir import RunDir  # noqa: E402

SPEC = REPO / "examples" / "sampled-gem5.toml"
SWEEP = REPO / "examples" / "sampled-sweep-gem5.toml"
LIMIT_S = 4 * 3600


def o3(method: str) -> specmod.Spec:
    d = specs.load(SPEC).to_dict()
    d["experiment"].update(window_method=method, windows=4, timeout_s=LIMIT_S,
                           name=f"bench-sampled-{method}")
    for h in d["hosts"].values():
        h["cpu"]["model"] = "o3"
    return specs.from_dict(d)


def timed(spec: specmod.Spec, store: Path, arts, lines: list[str]) -> tuple[float, str]:
    """Wall seconds of a run of `spec`, and its server's throughput as the README shows it."""
    t0 = time.monotonic()
    rd = run.execute(spec, store, progress=lines.append, arts=arts)
    wall = time.monotonic() - t0
    record = rd.read_run()
    if record["status"] != "done":
        sys.exit(f"{spec.experiment.name}: {record.get('failure')}")
    m = json.loads(rd.metrics_json.read_text())["hosts"]["server"]["stream"]
    return wall, f"{m['throughput_mbps']:,.1f} ± {m['spread']['throughput_mbps']['ci95']:,.1f} Mb/s"


def main() -> int:
    engine = gem5_engine()
    if engine is None:
        return 0
    serial, sampled = o3("consecutive"), o3("sampled")
    arts = run.resolve_artifacts(serial, progress=lambda m: None)
    with tempfile.TemporaryDirectory() as tmp:  # the boot, untimed
        engine.booted(serial, arts, RunDir(Path(tmp)), time.monotonic() + LIMIT_S,
                      progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    warm, _ = engine.warm_checkpoints(sampled, engine.checkpoint(sampled, arts))
    if warm.exists():
        engine.remove_checkpoint(warm.key)  # the fast-forward counts
    with tempfile.TemporaryDirectory() as store:
        lines: list[str] = []
        serial_s, serial_tp = timed(serial, Path(store), arts, lines)
        sampled_s, sampled_tp = timed(sampled, Path(store), arts, lines)
        print(f"O3, 4 windows of 5 ms:  consecutive {serial_s:,.0f} s ({serial_tp}), "
              f"sampled {sampled_s:,.0f} s ({sampled_tp}): ratio {sampled_s / serial_s:.2f}", flush=True)
        points = [p.spec for p in sweep.load(SWEEP).points]
        for spec in points:
            warm, _ = engine.warm_checkpoints(spec, engine.checkpoint(spec, arts))
            if warm.exists():
                engine.remove_checkpoint(warm.key)
        lines.clear()
        t0 = time.monotonic()
        for spec in points:
            timed(spec, Path(store), arts, lines)
        forwards = sum(line.startswith("fast-forwarding") for line in lines)
        print(f"sweep of {len(points)} points (CPU model x L2): {forwards} fast-forward(s), "
              f"{time.monotonic() - t0:,.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
