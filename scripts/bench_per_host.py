#!/usr/bin/env python3
"""gem5 with a process per host (dist-gem5) against one process for every
host, on this machine's cores: the measured phase of
examples/quickstart-gem5.toml (two hosts back to back) and of
examples/switched-gem5.toml (a 4-host fan-in through a switch), each run
three ways in this one run: in one process, per host with idle CPUs polling
(g5net/machine/wakeups.py; as root), and per host with idle CPUs left
to halt (G5NET_IDLE_POLL=0). Every run restores its boot checkpoint (booted
first, untimed, where there is none). Prints the wall times, the ratios
per-host / one process, and what each measured (the first client's
throughput), which should agree; for the per-host runs, the synchronisation
quantum (the shortest hop: half a back-to-back link's delay) and the host
time each quantum took, barrier included. Skipped, with the reason, where
gem5 is missing.

    .venv/bin/python scripts/bench_per_host.py [--only quickstart|fan-in]
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchlib import gem5_engine  # noqa: E402

from g5net import spec as specmod  # noqa: E402
from g5net.machine import wakeups  # noqa: E402
from g5net.model import specs  # noqa: E402
from g5net.runners import execute as run  # noqa: E402
from g5net.runs.rundir import RunDir  # noqa: E402

CASES = {"quickstart": REPO / "examples" / "quickstart-gem5.toml",
         "fan-in": REPO / "examples" / "switched-gem5.toml"}
LIMIT_S = 4 * 3600


def layout(path: Path, processes: str) -> specmod.Spec:
    d = specs.load(path).to_dict()
    d["experiment"].update(processes=processes, timeout_s=LIMIT_S)
    return specs.from_dict(d)


def measured(engine, spec: specmod.Spec) -> tuple[float, float, float]:
    """(host seconds of the measured phase, its simulated seconds, the first
    client's throughput)."""
    arts = run.resolve_artifacts(spec, progress=lambda m: None)
    with tempfile.TemporaryDirectory() as tmp:  # the boot, untimed
        ckpt, _ = engine.booted(spec, arts, RunDir(Path(tmp)), time.monotonic() + LIMIT_S,
                                progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    booted_at = json.loads(ckpt.meta.read_text())["sim_seconds"]
    with tempfile.TemporaryDirectory() as store:
        rd = run.execute(spec, Path(store), progress=lambda m: None, arts=arts)
        record = rd.read_run()
        if record["status"] != "done":
            sys.exit(f"{spec.experiment.name} ({engine.layout(spec)['layout']}): {record.get('failure')}")
        client = next(h.name for h in spec.hosts if h.role == "client")
        results = json.loads(rd.results_json.read_text())
        sim_s = json.loads(engine.report_file(spec, rd).read_text())["sim_seconds"] - booted_at
    return record["timings"]["wall_s"], sim_s, results[client]["workloads"]["stream"]["throughput_mbps"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", choices=sorted(CASES))
    args = p.parse_args()
    engine = gem5_engine()
    if engine is None:
        return 0
    with wakeups.polling_idle() as idle:  # what the per-host runs will get
        pass
    print(f"per-host, polling: {idle}")
    print(f"{'spec':<11} {'one process':>12} {'polling':>8} {'ratio':>6} {'halting':>8} {'ratio':>6} "
          f"{'sim s':>6} {'quantum':>8} {'host us/quantum':>15}  first client's stream (one, polling, halting)")
    for name, path in CASES.items():
        if args.only and name != args.only:
            continue
        per_host = layout(path, "per-host")
        one_s, _, one_mbps = measured(engine, layout(path, "one"))
        poll_s, sim_s, poll_mbps = measured(engine, per_host)
        os.environ[wakeups.OPT_OUT] = "0"
        try:
            halt_s, _, halt_mbps = measured(engine, per_host)
        finally:
            del os.environ[wakeups.OPT_OUT]
        quantum_us = per_host.sync_quantum_us
        quanta = sim_s / (quantum_us * 1e-6)
        print(f"{name:<11} {one_s:>10.0f} s {poll_s:>6.0f} s {poll_s / one_s:>6.2f} {halt_s:>6.0f} s "
              f"{halt_s / one_s:>6.2f} {sim_s:>6.3f} {quantum_us:>5.2f} us "
              f"{poll_s / quanta * 1e6:>6.0f}, {halt_s / quanta * 1e6:>6.0f}  "
              f"{one_mbps:.1f}, {poll_mbps:.1f}, {halt_mbps:.1f} Mbit/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
