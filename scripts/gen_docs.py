"""Writes docs/spec.md and docs/metrics.md from the code (g5net/report/reference_docs.py),
and the README's study summaries from the studies' committed results: run it
after changing a spec field, a metric or a study's results;
tests/test_reference_docs.py and tests/test_studies.py fail until they are current."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from g5net.report.reference_docs import write  # noqa: E402
from g5net.study import builtin as catalog  # noqa: E402
from g5net.study.report import readme_block, with_readme_block  # noqa: E402

for path in write(REPO / "docs"):
    print(path.relative_to(REPO))
readme = REPO / "README.md"
studies = REPO / "studies"
block = readme_block([catalog.load(n, studies) for n in catalog.names(studies)])
readme.write_text(with_readme_block(readme.read_text(), block))
print(readme.relative_to(REPO))
