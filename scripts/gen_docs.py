"""Writes docs/spec.md and docs/metrics.md from the code (g5net/reference_docs.py):
run it after changing a spec field or a metric; tests/test_reference_docs.py
fails until the committed docs are current."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from g5net.reference_docs import write  # noqa: E402

for path in write(REPO / "docs"):
    print(path.relative_to(REPO))
