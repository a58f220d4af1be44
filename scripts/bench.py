#!/usr/bin/env python3
"""`make bench`: run every scripts/bench_*.py in turn; each prints its own figures."""

import subprocess
import sys
from pathlib import Path

failed = []
for script in sorted(Path(__file__).parent.glob("bench_*.py")):
    print(f"== {script.stem}", flush=True)
    if subprocess.run([sys.executable, str(script)]).returncode:
        failed.append(script.stem)
if failed:
    print(f"failed: {', '.join(failed)}")
sys.exit(1 if failed else 0)
