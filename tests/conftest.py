from pathlib import Path

import pytest

from g5net.engines.gem5 import Gem5Engine, Gem5Error

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@pytest.fixture
def quickstart_text() -> str:
    return (EXAMPLES / "quickstart.toml").read_text()


@pytest.fixture(scope="session")
def gem5_engine() -> Gem5Engine:
    """The gem5 that g5net finds; the test is skipped, saying why, where there is none."""
    engine = Gem5Engine()
    try:
        engine.info()
    except Gem5Error as e:
        pytest.skip(f"no gem5: {e}")
    return engine
