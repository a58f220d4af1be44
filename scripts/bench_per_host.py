#!/usr/bin/env python3
"""gem5 with a process per host (dist-gem5) against one process for every
host, on this machine's cores: the measured phase of
examples/quickstart-gem5.toml (two hosts back to back) and of
examples/switched-gem5.toml (a 4-host fan-in through a switch), each run both
ways in this one run. Every run restores its boot checkpoint (booted first,
untimed, where there is none). Prints the wall times, the ratio per-host /
one process, and what each measured (the first client's throughput), which
should agree; for the per-host run, its synchronisation quantum (the shortest
hop: half a back-to-back link's delay) and the host time each quantum took,
barrier included. Skipped, with the reason, where gem5 is missing.

    .venv/bin/python scripts/bench_per_host.py [--only quickstart|fan-in]
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchlib import gem5_engine  # noqa: E402
from g5net import run, spec as specmod  # noqa: E402
from g5net.engines.gem5.contract import REPORT_NAME  # noqa: E402
from g5net.rundir import RunDir  # noqa: E402

CASES = {"quickstart": REPO / "examples" / "quickstart-gem5.toml",
         "fan-in": REPO / "examples" / "switched-gem5.toml"}
LIMIT_S = 4 * 3600


def layout(path: Path, processes: str) -> specmod.Spec:
    d = specmod.load(path).to_dict()
    d["experiment"].update(processes=processes, timeout_s=LIMIT_S)
    return specmod.from_dict(d)


def measured(engine, spec: specmod.Spec, store: Path) -> tuple[float, float, float]:
    """(host seconds of the measured phase, its simulated seconds, the first
    client's throughput)."""
    arts = run.resolve_artifacts(spec, progress=lambda m: None)
    with tempfile.TemporaryDirectory() as tmp:  # the boot, untimed
        ckpt, _ = engine.booted(spec, arts, RunDir(Path(tmp)), time.monotonic() + LIMIT_S,
                                progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    booted_at = json.loads(ckpt.meta.read_text())["sim_seconds"]
    rd = run.execute(spec, store, progress=lambda m: None, arts=arts)
    record = rd.read_run()
    if record["status"] != "done":
        sys.exit(f"{spec.experiment.name} ({spec.experiment.processes}): {record.get('failure')}")
    client = next(h.name for h in spec.hosts if h.role == "client")
    results = json.loads(rd.results_json.read_text())
    # The gem5 report of the run's only process, or of its first host's.
    report = rd.m5out / (REPORT_NAME if spec.experiment.processes == "one"
                         else f"{spec.hosts[0].name}/{REPORT_NAME}")
    sim_s = json.loads(report.read_text())["sim_seconds"] - booted_at
    return record["timings"]["wall_s"], sim_s, results[client]["workloads"]["stream"]["throughput_mbps"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", choices=sorted(CASES))
    args = p.parse_args()
    engine = gem5_engine()
    if engine is None:
        return 0
    print(f"{'spec':<11} {'one process':>12} {'per-host':>10} {'ratio':>6} {'sim s':>6} "
          f"{'quantum':>8} {'host us/quantum':>15}  first client's stream")
    for name, path in CASES.items():
        if args.only and name != args.only:
            continue
        with tempfile.TemporaryDirectory() as store:
            one_s, _, one_mbps = measured(engine, layout(path, "one"), Path(store))
            per_host = layout(path, "per-host")
            per_s, sim_s, per_mbps = measured(engine, per_host, Path(store))
        quantum_us = per_host.sync_quantum_us
        host_us = per_s / (sim_s / (quantum_us * 1e-6)) * 1e6
        print(f"{name:<11} {one_s:>10.0f} s {per_s:>8.0f} s {per_s / one_s:>6.2f} {sim_s:>6.3f} "
              f"{quantum_us:>5.2f} us {host_us:>15.0f}  {one_mbps:.1f} vs {per_mbps:.1f} Mbit/s",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
