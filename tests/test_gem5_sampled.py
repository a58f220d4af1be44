"""Sampled windows (issue 26) on real gem5 runs, kept as fixtures made by
scripts/gem5_fixtures.py:

- gem5-sampled: examples/sampled-gem5.toml, the steady-state stream as 8
  windows each restored from its own warm checkpoint, beside gem5-steady-state,
  the same stream as 8 consecutive windows of one detailed run;
- gem5-sampled-o3: examples/sampled-sweep-gem5.toml's O3 point (L2 256 KiB),
  its 4 windows restored from the warm checkpoints the O3 points share;
- gem5-sampled-warming-0, -1, -2: examples/sampled-warming-gem5.toml, the
  windows of gem5-sampled without warming, with detailed warming only, with
  functional warming only.

And a run now: a stream fast-forwarded, its windows measured from the cache
when asked again, only a missing one simulated.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from g5net.metrics import derive as run_metrics
from g5net.metrics import spread
from g5net.model import specs
from g5net.runners import execute as run
from g5net.runs.rundir import RunDir

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
SAMPLED = RunDir(FIXTURES / "gem5-sampled")
CONSECUTIVE = RunDir(FIXTURES / "gem5-steady-state")
O3 = RunDir(FIXTURES / "gem5-sampled-o3")
# What the method must get right (issue 26): the throughput, and the cost of a
# packet in instructions, L2 misses and CPU time.
COMPARED = ("throughput_mbps", "insts_per_pkt", "l2_misses_per_pkt", "cpu_us_per_pkt")


def smoke_sampled_text() -> str:
    """examples/sampled-gem5.toml, smoke-sized: 2 windows of 1 ms, warm
    checkpoints every 2 ms after 5 ms, short warming. The live test here and
    tests/test_slurm.py's array share its warm checkpoints (one fast-forward
    for both)."""
    text = (REPO / "examples" / "sampled-gem5.toml").read_text()
    for old, new in (("windows = 8", "windows = 2"), ("window_ms = 5.0", "window_ms = 1.0"),
                     ("warmup_ms = 20.0", "warmup_ms = 5.0"), ("sample_every_ms = 10.0", "sample_every_ms = 2.0"),
                     ("functional_warming_ms = 10.0", "functional_warming_ms = 2.0"),
                     ("detailed_warming_ms = 2.0", "detailed_warming_ms = 0.5")):
        assert old in text, old
        text = text.replace(old, new)
    return text


def stream(rd: RunDir, host: str) -> dict:
    return json.loads(rd.metrics_json.read_text())["hosts"][host]["stream"]


def test_the_pair_differs_in_the_method_alone():
    sampled = json.loads(SAMPLED.spec_json.read_text())
    consecutive = json.loads(CONSECUTIVE.spec_json.read_text())
    for d in (sampled, consecutive):
        for key in ("name", "window_method", "sample_every_ms", "functional_warming_ms",
                    "detailed_warming_ms"):
            d["experiment"].pop(key)
    assert sampled == consecutive
    assert SAMPLED.read_run()["region"]["method"] == "sampled"


@pytest.mark.parametrize("host", ["server", "client"])
@pytest.mark.parametrize("metric", COMPARED)
def test_sampled_windows_agree_with_consecutive_ones_within_their_intervals(host: str, metric: str):
    a = spread.measured(stream(SAMPLED, host), metric)
    b = spread.measured(stream(CONSECUTIVE, host), metric)
    assert isinstance(a, spread.Spread) and isinstance(b, spread.Spread) and a.n == b.n == 8
    assert not spread.welch(a, b).significant, (metric, host, a, b)


def test_each_sampled_window_is_its_own_dump_of_the_window_alone():
    spec = specs.from_dict(json.loads(SAMPLED.spec_json.read_text()))
    record = SAMPLED.read_run()
    recomputed = run_metrics.compute(spec, json.loads(SAMPLED.results_json.read_text()), SAMPLED,
                                     record["boards"])
    assert recomputed == json.loads(SAMPLED.metrics_json.read_text())
    for host in ("server", "client"):
        windows = stream(SAMPLED, host)["per_window"]
        assert len(windows) == 8
        assert [w["elapsed_s"] for w in windows] == pytest.approx([0.005] * 8, rel=1e-9)


# examples/sampled-warming-gem5.toml: (functional_warming_ms, detailed_warming_ms)
# of each fixture; (10, 2), the defaults, is gem5-sampled.
WARMING = {(0.0, 0.0): "gem5-sampled-warming-0", (0.0, 2.0): "gem5-sampled-warming-1",
           (10.0, 0.0): "gem5-sampled-warming-2", (10.0, 2.0): "gem5-sampled"}


def _differs(fixture: str, host: str, metric: str) -> bool:
    a = spread.measured(stream(RunDir(FIXTURES / fixture), host), metric)
    return spread.welch(a, spread.measured(stream(CONSECUTIVE, host), metric)).significant


def test_the_default_warming_is_what_the_windows_need():
    """Restored cold (no warming), a window's caches miss more: both hosts'
    L2 misses per packet read higher than the consecutive windows', beyond
    noise. 2 ms of detailed warming alone removes it. 10 ms of functional
    warming alone removes the misses' but leaves the client's instructions
    per packet 6% low, beyond noise (README.md). The defaults (10 ms
    functional, 2 ms detailed) agree with the consecutive windows in every
    compared metric."""
    for (functional, detailed), fixture in WARMING.items():
        spec = json.loads((FIXTURES / fixture / "spec.json").read_text())["experiment"]
        assert (spec["functional_warming_ms"], spec["detailed_warming_ms"]) == (functional, detailed)

    def beyond_noise(fixture: str) -> list[tuple[str, str]]:
        return [(host, metric) for host in ("server", "client") for metric in COMPARED
                if _differs(fixture, host, metric)]

    cold = WARMING[0.0, 0.0]
    for host in ("server", "client"):
        assert stream(RunDir(FIXTURES / cold), host)["l2_misses_per_pkt"] > \
            stream(CONSECUTIVE, host)["l2_misses_per_pkt"]
    assert beyond_noise(cold) == [("server", "l2_misses_per_pkt"), ("client", "l2_misses_per_pkt")]
    functional = WARMING[10.0, 0.0]
    assert beyond_noise(functional) == [("client", "insts_per_pkt")]
    assert stream(RunDir(FIXTURES / functional), "client")["insts_per_pkt"] < \
        stream(CONSECUTIVE, "client")["insts_per_pkt"]
    for warmed in ((0.0, 2.0), (10.0, 2.0)):
        assert beyond_noise(WARMING[warmed]) == [], warmed


def test_a_warm_checkpoint_restored_on_o3_streams_in_every_window():
    assert json.loads(O3.spec_json.read_text())["hosts"]["server"]["cpu"]["model"] == "o3"
    for host in ("server", "client"):
        windows = stream(O3, host)["per_window"]
        assert len(windows) == 4
        assert min(w["gem5_packets"] for w in windows) > 100
        assert min(w["throughput_mbps"] for w in windows) > 100


@pytest.mark.gem5
@pytest.mark.slow
def test_a_sampled_run_resumes_its_missing_windows(gem5_engine, tmp_path: Path):
    """The smoke-sized sampled stream: fast-forwarded once, each window from
    its own warm checkpoint; asked again with one window's result gone, only
    that window is simulated."""
    spec = specs.loads(smoke_sampled_text())
    lines: list[str] = []
    rd = run.execute(spec, tmp_path / "first", progress=lines.append)
    record = rd.read_run()
    assert record["status"] == "done", record.get("failure")
    got = json.loads(rd.metrics_json.read_text())["hosts"]
    for host in ("server", "client"):
        assert [w["elapsed_s"] for w in got[host]["stream"]["per_window"]] == pytest.approx([0.001] * 2)
        assert min(w["gem5_packets"] for w in got[host]["stream"]["per_window"]) > 10
    # Where its host time went (what a dry run's estimate divides by): the
    # fast-forward, made by this run unless an earlier one left it in the
    # cache, and each window's gem5 process.
    took = record["timings"]["sampled"]
    ff = took["fast_forward"]
    assert ff["this_run"] == any(line.startswith("fast-forwarding") for line in lines)
    assert ff["wall_s"] > 0 and ff["simulated_s"] > spec.experiment.warmup_ms / 1e3
    assert len(took["windows_wall_s"]) == 2 and min(took["windows_wall_s"]) > 0
    arts = run.resolve_artifacts(spec, progress=lines.append, build=False)
    warm, _ = gem5_engine.warm_checkpoints(spec, gem5_engine.checkpoint(spec, arts))
    assert warm.exists()
    (window_1,) = warm.path.glob("windows/*/w1")
    shutil.rmtree(window_1)
    lines.clear()
    again = run.execute(spec, tmp_path / "second", progress=lines.append)
    assert again.read_run()["status"] == "done"
    assert "1 of 2 windows measured earlier: measuring the rest" in lines
    assert not any(line.startswith("fast-forwarding") for line in lines)
    assert json.loads(again.metrics_json.read_text())["hosts"] == got
    # Window 0's host seconds came with it from the cache; window 1's are new.
    took_again = again.read_run()["timings"]["sampled"]
    assert took_again["fast_forward"] == {**ff, "this_run": False}
    assert took_again["windows_wall_s"][0] == took["windows_wall_s"][0] and took_again["windows_wall_s"][1] > 0


@pytest.mark.gem5
@pytest.mark.slow
def test_a_stream_that_ends_before_its_warm_checkpoints_is_a_clear_error(gem5_engine, tmp_path: Path):
    """The spec refuses a stream too short for its windows; one that ends
    anyway (here: shortened behind the spec's back) fails the fast-forward,
    naming the checkpoint it did not reach, and leaves no warm checkpoints.
    The first checkpoint is 197.5 ms into the stream, well past the 10 ms
    stream's end: on the idle-loop kernel fix its hosts took longer than
    17.5 ms to end one (CI reached checkpoint 0 and stopped before 1)."""
    d = specs.load(REPO / "examples" / "sampled-gem5.toml").to_dict()
    d["experiment"].update(windows=2, window_ms=1.0, warmup_ms=200.0, sample_every_ms=2.0,
                           functional_warming_ms=2.0, detailed_warming_ms=0.5)
    valid = specs.from_dict(d)
    w = valid.workloads[0]
    short = dataclasses.replace(valid, workloads=(dataclasses.replace(w, duration_s=0.01),))
    rd = run.execute(short, tmp_path, progress=lambda line: None)
    record = rd.read_run()
    assert record["status"] == "failed:engine"
    reason = record["failure"]["reasons"][0]
    assert "during the fast-forward to warm checkpoint 0" in reason and "workload ended" in reason
    arts = run.resolve_artifacts(short, progress=lambda line: None, build=False)
    warm, _ = gem5_engine.warm_checkpoints(short, gem5_engine.checkpoint(short, arts))
    assert not warm.exists()
