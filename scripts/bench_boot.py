#!/usr/bin/env python3
"""gem5 boot time by CPUs per host: a pair of examples/quickstart-gem5.toml hosts
with N CPUs each (N/2 cores of 2 hardware threads, as examples/smp-gem5.toml
has for N = 4; 1 is the quickstart itself; 64 is the niagara2 preset, 8 x 8),
booted on the atomic CPU into their checkpoint. Prints, per N: host seconds to the checkpoint,
simulated seconds, and simulated instructions per CPU (mean, and the boot
CPU's share). A checkpoint that exists already is reported from its record
(boot.json) instead of being booted again. Skipped, with the reason, where gem5
is missing.

    .venv/bin/python scripts/bench_boot.py [--cpus 1,2,4,8,16,64]
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
from g5net.engines.gem5.engine import BootFailed  # noqa: E402
from g5net.rundir import RunDir  # noqa: E402

SPEC = REPO / "examples" / "quickstart-gem5.toml"
DEFAULT_CPUS = "1,2,4,8,16"
BOOT_LIMIT_S = 4 * 3600


def pair(cpus: int) -> specmod.Spec:
    d = specmod.load(SPEC).to_dict()
    d["experiment"]["name"] = f"boot-{cpus}cpu"
    for h in d["hosts"].values():
        if cpus == 64:
            h["cpu"] = {"preset": "niagara2", "model": "timing", "boot_model": "atomic"}
        elif cpus > 1:
            h["cpu"].update(cores=cpus // 2, threads_per_core=2)
    return specmod.from_dict(d)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cpus", default=DEFAULT_CPUS, help=f"CPUs per host, comma-separated (default {DEFAULT_CPUS})")
    args = p.parse_args()
    engine = gem5_engine()
    if engine is None:
        return 0
    print(f"{'CPUs/host':>9}  {'host s':>7}  {'sim s':>6}  {'M insts/CPU':>11}  {'boot CPU share':>14}")
    for n in (int(c) for c in args.cpus.split(",")):
        spec = pair(n)
        arts = run.resolve_artifacts(spec, progress=lambda m: None)
        with tempfile.TemporaryDirectory() as tmp:
            try:
                ckpt, _ = engine.booted(spec, arts, RunDir(Path(tmp)), time.monotonic() + BOOT_LIMIT_S,
                                        progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True))
            except BootFailed as e:
                print(f"{n:>9}  failed: {e.outcome.engine_failure or 'timed out'}")
                continue
        boot = json.loads(ckpt.meta.read_text())
        per_cpu = [i for insts in boot.get("insts", {}).values() for i in insts]
        firsts = [insts[0] for insts in boot.get("insts", {}).values()]
        mean = sum(per_cpu) / len(per_cpu) / 1e6 if per_cpu else float("nan")
        share = sum(firsts) / sum(per_cpu) if per_cpu and sum(per_cpu) else float("nan")
        print(f"{n:>9}  {boot['wall_s']:>7.0f}  {boot['sim_seconds']:>6.3f}  {mean:>11.1f}  {share:>14.2f}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
