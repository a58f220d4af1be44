import json
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from g5net.engines.gem5 import Gem5Engine
from g5net.errors import Gem5Error
from g5net.machine import stop_signals

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@pytest.fixture(autouse=True)
def _no_stop_held_after_a_test():
    """The gem5 engine holds stop signals once gem5 has exited, and the runner
    releases them once the run is committed (machine/stop_signals.py). A test
    that runs the engine itself leaves them held in its pytest worker, and a
    later test's stop signal there would wait: two of test_gem5_engine.py's
    restore tests leave a hold, and the stop signal tests failed once in a
    two-worker run of the suite."""
    yield
    stop_signals._held = None


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


# `make test` runs the suite on one pytest-xdist worker per core, a test file
# to a worker (--dist loadfile), so a module's shared fixture (a boot, a run)
# is made once: a gem5 run is one single-threaded process, and a serial suite
# leaves a core idle for most of its hour. (Groups finer than a file,
# --dist loadgroup, are lost on pytest 9, whose node ids drop xdist's group
# suffix: each test would be a group of its own.)
#
# xdist hands the files out in turn, so the first two start at once, one on
# each worker: the two boots the most files wait on (the per-host quickstart's,
# the quickstart's), rather than two files that wait on one boot while a core
# idles (ten minutes of CI's when it went so).
BOOTS_FIRST = ("test_gem5_per_host.py", "test_gem5_run.py")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """BOOTS_FIRST, other files that run gem5, then other slow ones, first:
    the longest work is handed out while the other worker still has plenty
    to do, not started last."""
    def rank(item: pytest.Item) -> int:
        if item.path.name in BOOTS_FIRST:
            return BOOTS_FIRST.index(item.path.name)
        gem5 = item.get_closest_marker("gem5") or "gem5_engine" in getattr(item, "fixturenames", ())
        return len(BOOTS_FIRST) + (0 if gem5 else 1 if item.get_closest_marker("slow") else 2)

    first: dict[Path, int] = {}
    for item in items:
        first[item.path] = min(first.get(item.path, len(BOOTS_FIRST) + 2), rank(item))
    items.sort(key=lambda item: first[item.path])



# What `make test` says while it runs, not only in its summary: CI stops a
# suite that outlives its limit, and then prints neither the failures nor
# the durations, only dots. A failure is named when it happens, and so is a
# long phase of a test (a module's boot is its first test's setup), with its
# time, in the order they end.
LONG_PHASE_S = 120


class _Announcer:
    def __init__(self, terminal) -> None:
        self.terminal = terminal

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            why = crash.message if crash else (str(report.longrepr).strip().splitlines() or [""])[-1]
            self.terminal.write_line(f"\nFAILED {report.nodeid} ({report.when}): {why[:300]}")
        elif report.duration > LONG_PHASE_S:
            self.terminal.write_line(f"\n{report.duration:.0f} s {report.nodeid} ({report.when})")


@pytest.hookimpl(trylast=True)  # after the terminal reporter is registered
def pytest_configure(config: pytest.Config) -> None:
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is not None:
        config.pluginmanager.register(_Announcer(terminal), "g5net-announcer")
