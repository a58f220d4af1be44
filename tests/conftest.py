from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@pytest.fixture
def quickstart_text() -> str:
    return (EXAMPLES / "quickstart.toml").read_text()
