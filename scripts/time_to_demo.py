#!/usr/bin/env python3
"""Time to the demo's table on a fresh machine (`make bench FRESH=1`, or
`scripts/bench.py --fresh`), split into the steps `make demo` takes: Debian
packages, the kernel the quickstart boots, the disk image, the run.

The artifact cache is a new temporary folder ($G5NET_CACHE), so the kernel is
compiled and the image's packages downloaded as on a first `make demo`; Debian
packages already installed here are not reinstalled (their step then only
checks them). Takes minutes: a kernel build on 2 cores."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from g5net.commands.artifacts import kernels_for  # noqa: E402

G5NET = [sys.executable, "-m", "g5net.cli"]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, cwd=REPO, env=env)
    return time.monotonic() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default="examples/quickstart.toml",
                    help="the spec make demo runs (default: the QEMU quickstart)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary cache and run")
    args = ap.parse_args()

    cache = Path(tempfile.mkdtemp(prefix="g5net-fresh-"))
    env = {**os.environ, "G5NET_CACHE": str(cache)}
    print(f"fresh cache: {cache}", flush=True)
    steps: dict[str, float] = {}
    try:
        # `make demo`'s own first step (Debian packages and the venv), as it runs it.
        steps["packages"] = timed(["make", "deps"], env)
        variants = list(kernels_for([REPO / args.spec]))
        steps["kernel"] = sum(timed(G5NET + ["artifacts", "build", "--kernel", v], env)
                              for v in variants)
        steps["image"] = timed(G5NET + ["artifacts", "build", "--image"], env)
        t0 = time.monotonic()
        proc = subprocess.run(G5NET + ["run", args.spec, "--out", str(cache / "results"), "--json"],
                              cwd=REPO, env=env, capture_output=True, text=True, check=False)
        steps["run"] = time.monotonic() - t0
        if proc.returncode:
            print(proc.stdout, proc.stderr, file=sys.stderr)
            return 1
        built = sorted(p.name.split("-")[0] for p in (cache / "kernel" / "inputs").iterdir())
        run_dir = json.loads(proc.stdout)["run_dir"]
    finally:
        if not args.keep:
            shutil.rmtree(cache, ignore_errors=True)

    total = sum(steps.values())
    print(f"\ntime to the demo's table on a fresh cache ({args.spec}, {os.cpu_count()} cores):")
    for name, seconds in [*steps.items(), ("total", total)]:
        print(f"  {name:<9} {seconds:7.1f} s  {seconds / 60:5.1f} min")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average at the end (1, 5, 15 min; other work counts too): {load}")
    print(f"kernels built: {', '.join(built)} (of {len(variants)} the spec boots)")
    if args.keep:
        print(f"run: {run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
