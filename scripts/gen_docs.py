"""Writes docs/spec.md and docs/metrics.md from the code (g5net/report/reference_docs.py),
the README's study summaries from the studies' committed results, and its
steady-state tables from the gem5 fixtures (g5net/report/steady_state.py): run
it after changing a spec field, a metric, a study's results or those fixtures;
tests/test_reference_docs.py, tests/test_studies.py and tests/test_gem5_windows.py
fail until they are current."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from g5net.report import readme as readme_blocks  # noqa: E402
from g5net.report import steady_state  # noqa: E402
from g5net.report.reference_docs import write  # noqa: E402
from g5net.study import builtin as catalog  # noqa: E402
from g5net.study.report import readme_block, with_readme_block  # noqa: E402

for path in write(REPO / "docs"):
    print(path.relative_to(REPO))
readme = REPO / "README.md"
studies = REPO / "studies"
block = readme_block([catalog.load(n, studies) for n in catalog.names(studies)])
steady = steady_state.block(REPO / "tests" / "fixtures")
readme.write_text(readme_blocks.with_block(with_readme_block(readme.read_text(), block),
                                           steady_state.BEGIN, steady_state.END, steady))
print(readme.relative_to(REPO))
