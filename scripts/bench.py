#!/usr/bin/env python3
"""`make bench`: run every scripts/bench_*.py in turn; each prints its own figures.

`--fresh` (`make bench FRESH=1`) instead times make demo on a fresh artifact
cache, split into packages, kernel, image and run (scripts/time_to_demo.py;
minutes: it compiles a kernel)."""

import subprocess
import sys
from pathlib import Path

if sys.argv[1:2] == ["--fresh"]:
    sys.exit(subprocess.run([sys.executable, str(Path(__file__).parent / "time_to_demo.py"),
                             *sys.argv[2:]]).returncode)
failed = []
for script in sorted(Path(__file__).parent.glob("bench_*.py")):
    print(f"== {script.stem}", flush=True)
    if subprocess.run([sys.executable, str(script)]).returncode:
        failed.append(script.stem)
print("== time to demo on a fresh machine: make bench FRESH=1 (compiles a kernel)")
if failed:
    print(f"failed: {', '.join(failed)}")
sys.exit(1 if failed else 0)
