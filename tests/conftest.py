import json
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from g5net.engines.gem5 import Gem5Engine
from g5net.errors import Gem5Error

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


def _cli_run(spec: Path, store: Path) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "g5net.cli", "run", str(spec), "--out", str(store),
                           "--json", "-q"], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def run_example(cli_run: Callable[[Path, Path], tuple[int, dict]], name: str,
                tmp: Path) -> tuple[dict, dict]:
    """(results.json, metrics.json) of examples/<name>.toml run as a user runs it;
    it must succeed."""
    rc, summary = cli_run(EXAMPLES / f"{name}.toml", tmp / "store")
    rd = Path(summary["run_dir"])
    results = json.loads((rd / "results.json").read_text())
    assert rc == 0, (summary, {h: r.get("workloads") for h, r in results.items()})
    return results, json.loads((rd / "metrics.json").read_text())


@pytest.fixture(scope="session")
def cli_run() -> Callable[[Path, Path], tuple[int, dict]]:
    """`g5net run SPEC --out STORE --json -q` as a user runs it: (exit status, its JSON summary)."""
    return _cli_run


# `make test` runs the suite on one pytest-xdist worker per core (--dist
# loadgroup): a gem5 run is one single-threaded process, so a serial suite
# leaves a core idle for most of its hour.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test its own xdist group, unless it uses a fixture that its module
    shares between tests (a boot, a run): then the whole module is one group,
    so that fixture is made once, on one worker. Groups that run gem5, then
    other slow ones, come first: the longest work is handed out while the
    other worker still has plenty to do, not started last."""
    for item in items:
        defs = getattr(item, "_fixtureinfo").name2fixturedefs.values()
        shared = any(d[-1].scope != "function" and d[-1].func.__module__ == item.module.__name__
                     for d in defs if d)
        if not item.get_closest_marker("xdist_group"):
            group = item.module.__name__ if shared else item.nodeid
            item.add_marker(pytest.mark.xdist_group(group))

    def rank(item: pytest.Item) -> int:
        gem5 = item.get_closest_marker("gem5") or "gem5_engine" in getattr(item, "fixturenames", ())
        return 0 if gem5 else 1 if item.get_closest_marker("slow") else 2

    first = {}
    for item in items:
        group = item.get_closest_marker("xdist_group").args[0]
        first[group] = min(first.get(group, 2), rank(item))
    items.sort(key=lambda item: first[item.get_closest_marker("xdist_group").args[0]])
