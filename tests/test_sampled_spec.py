"""Sampled windows (experiment.window_method = "sampled"): what the spec
refuses, naming the key; the job that signals the fast-forward; which points
share a stream's warm checkpoints; a window's statistics under a measure run's
CPU names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from g5net.engines.gem5.checkpoints import Checkpoint
from g5net.engines.gem5.sampled import WarmCheckpoints, fast_forward_spec, warm_state, window_stats
from g5net.errors import SpecError
from g5net.model import identity
from g5net.model import specs
from test_job import render
from test_windows_spec import _region, windowed

SAMPLED = windowed(**{"window_ms = 5": 'window_ms = 5\nwindow_method = "sampled"',
                      "duration_s = 0.055": "duration_s = 0.2"})


def sampled(**replace: str) -> str:
    text = SAMPLED
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("text, key, words", [
    (sampled(**{'engine = "gem5"': 'engine = "qemu"'}), "experiment.window_method", "keeps none"),
    (sampled(**{"window_ms = 5": "window_ms = 5\npc_sample_us = 10"}), "experiment.pc_sample_us",
     "consecutive windows only"),
    (sampled(**{"window_ms = 5": "window_ms = 5\nsample_every_ms = 4"}), "experiment.sample_every_ms",
     "measure the same stretch"),
    # The last checkpoint (70 ms after the flows connected), its warming and
    # its window, and one window more: 102 ms; a stream of 101 ends in the window.
    (sampled(**{"duration_s = 0.2": "duration_s = 0.101"}), "workloads.stream.duration_s",
     "(windows 8 - 1) x sample_every_ms 10 + functional_warming_ms 10 + detailed_warming_ms 2 + "
     "2 x window_ms 5 = 102 ms"),
])
def test_sampled_windows_a_run_cannot_hold_are_refused_by_name(text: str, key: str, words: str):
    with pytest.raises(SpecError, match=rf"^{re.escape(key)}: .*{re.escape(words)}"):
        specs.loads(text)


def test_consecutive_windows_keep_their_run_id():
    """The sampled method's keys count for nothing in a consecutive run."""
    plain = specs.loads(windowed())
    other = specs.loads(windowed(**{"window_ms = 5": "window_ms = 5\nsample_every_ms = 30"}))
    assert identity.spec_digest(plain) == identity.spec_digest(other)
    assert identity.spec_digest(specs.loads(SAMPLED)) != identity.spec_digest(
        specs.loads(sampled(**{'window_method = "sampled"': ""})))


def test_the_host_that_frames_regions_signals_the_fast_forward_once_connected():
    s = specs.loads(SAMPLED)
    client, server = _region(render(s, s.host("client"))), _region(render(s, s.host("server")))
    assert client[3].startswith("i=0; until grep -qE ' [0-9A-F]+:1389 01 ' /proc/net/tcp")
    # Then gem5 fast-forwards into the warm checkpoints; nobody snapshots,
    # arms a dump or stops the stream: every window ends inside it.
    assert client[4:] == ["m5 checkpoint", "wait"]
    assert server[-1] == "wait" and "m5 checkpoint" not in server
    assert not any("g5_window" in line or "g5_stop" in line for line in client + server)


def _warm(text: str) -> WarmCheckpoints:
    """The warm checkpoints of `text`, as the engine keys them."""
    s = specs.loads(text)
    forward = fast_forward_spec(s)
    boot = Checkpoint("b" * 64, Path("/nowhere"))
    return WarmCheckpoints.of(warm_state(s, boot, {h.name: render(forward, h) for h in s.hosts}))


@pytest.mark.parametrize("change", [
    {"[hosts.server]": "[host.cpu]\nmodel = \"o3\"\n[host.caches]\nl2_kib = 4096\n[hosts.server]"},
    {"[hosts.server]": "[host.nic]\nattach = \"integrated\"\n[hosts.server]"},
    {"window_ms = 5": "window_ms = 4", 'name = "windows"': 'name = "other"'},
    {"window_ms = 5": "window_ms = 5\nfunctional_warming_ms = 20\ndetailed_warming_ms = 1"},
])
def test_points_that_differ_only_after_the_restore_share_the_warm_checkpoints(change):
    assert _warm(sampled(**change)).key == _warm(SAMPLED).key


@pytest.mark.parametrize("change", [
    {"[hosts.server]": "[link]\nspeed_gbps = 1\n[hosts.server]"},
    {"warmup_ms = 10": "warmup_ms = 15"},
    {"window_ms = 5": "window_ms = 5\nsample_every_ms = 12"},
    {"[hosts.server]": "[host.cpu]\nboot_model = \"timing\"\n[hosts.server]"},
    {"duration_s = 0.2": "duration_s = 0.3"},
])
def test_points_whose_stream_differs_before_the_checkpoints_get_their_own(change):
    assert _warm(sampled(**change)).key != _warm(SAMPLED).key


def test_a_window_reads_as_a_measure_run_of_its_detailed_cpus(tmp_path: Path):
    src, dst = tmp_path / "gem5.txt", tmp_path / "stats.txt"
    src.write_text("---------- Begin Simulation Statistics ----------\n"
                   "simSeconds                                   0.005000  # s\n"
                   "board0.processor.cores0.core.numCycles       0         # Cycles\n"
                   "board0.processor.cores1.core.numCycles       0         # Cycles\n"
                   "board0.processor.detailed0.core.numCycles    9000000   # Cycles\n"
                   "board0.processor.detailed1.core.numCycles    8000000   # Cycles\n"
                   "board1.processor.cores.core.numCycles        0         # Cycles\n"
                   "board1.processor.detailed.core.numCycles     7000000   # Cycles\n"
                   "board0.cache_hierarchy.l2cache.overallMisses::total 42  # misses\n")
    window_stats(src, dst)
    assert dst.read_text().splitlines()[2:] == [
        "board0.processor.cores0.core.numCycles    9000000   # Cycles",
        "board0.processor.cores1.core.numCycles    8000000   # Cycles",
        "board1.processor.cores.core.numCycles     7000000   # Cycles",
        "board0.cache_hierarchy.l2cache.overallMisses::total 42  # misses"]
