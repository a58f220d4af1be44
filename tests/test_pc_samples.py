"""gem5's program-counter samples: from its instruction trace to where the time went.

The fixture is the first four sampling windows of a real trace: the gem5
quickstart (two hosts of one 2 GHz timing CPU) sampled every 100 us, as
configs/g5net_sampled.py opens the windows (then 0.25 us long), with the
RTC's two lines of another debug flag at tick 0.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from g5net.engines import qemu
from g5net.engines.gem5.engine import Gem5Engine
from g5net.engines.gem5.engine import check_spec as gem5_check_spec
from g5net.errors import EngineError, Gem5Error, StatsParseError
from g5net.metrics import profile
from g5net.model import identity
from g5net.spec import PC_SAMPLE_WINDOW_US, SpecError
from g5net.model.specs import from_dict
from g5net.stats import pc_samples

TRACE = Path(__file__).parent / "fixtures" / "pc-samples" / "quickstart-trace.txt"
PERIOD_TICKS = 100_000_000  # 100 us
WINDOW_TICKS = round(PC_SAMPLE_WINDOW_US * 1e6)
BOARDS = {"server": "server", "client": "client"}


@pytest.fixture
def samples(tmp_path) -> list[pc_samples.Sample]:
    out = tmp_path / "pc-samples.tsv"
    with open(TRACE, "rb") as f:
        n = pc_samples.reduce(f, PERIOD_TICKS, out)
    got = pc_samples.read(out)
    assert len(got) == n
    return got


def test_each_cpu_gives_its_first_instruction_of_each_window(samples):
    windows = {s.tick // PERIOD_TICKS for s in samples}
    assert windows == {4311, 4312, 4313, 4314}
    pairs = [(s.tick // PERIOD_TICKS, s.cpu) for s in samples]
    assert len(pairs) == len(set(pairs))
    assert all(s.tick % PERIOD_TICKS < WINDOW_TICKS for s in samples)
    # The trace's first lines of window 4311, one per CPU.
    assert samples[:2] == [
        pc_samples.Sample(431100000500, "client.processor.cores.core", "unmap_page_range"),
        pc_samples.Sample(431100000500, "server.processor.cores.core", "unmap_page_range")]


def test_user_mode_is_the_application_and_other_flags_lines_are_skipped(samples):
    functions = Counter(s.function for s in samples)
    # Both of window 4314's samples are user mode (addresses without a symbol).
    assert functions[pc_samples.USER_MODE] >= 1
    assert all(s.tick > 0 for s in samples)  # the RTC's lines at tick 0 are not samples
    assert not any(f.startswith("0x") or "+" in f for f in functions)


def test_a_region_counts_only_its_own_samples_by_host(samples):
    every = pc_samples.functions(samples, 0, 10**15, BOARDS)
    assert sum(every["server"].values()) + sum(every["client"].values()) == len(samples)
    first = pc_samples.functions(samples, 431100000000, 431200000000, BOARDS)
    assert first == {"server": Counter({"unmap_page_range": 1}),
                     "client": Counter({"unmap_page_range": 1})}
    assert pc_samples.functions(samples, 0, 431100000000, BOARDS) == {"server": Counter(),
                                                                       "client": Counter()}


def test_the_trace_is_reduced_as_gem5_writes_it_into_a_pipe(tmp_path, samples):
    reducer = pc_samples.TraceReducer(tmp_path / "pc-trace.pipe", PERIOD_TICKS,
                                      tmp_path / "piped.tsv")
    # As gem5 does: opens the pipe as its debug file, writes, exits.
    with open(tmp_path / "pc-trace.pipe", "wb") as gem5:
        gem5.write(TRACE.read_bytes())
    assert reducer.finish() == f"{len(samples)} program-counter samples in piped.tsv"
    assert pc_samples.read(tmp_path / "piped.tsv") == samples
    assert not (tmp_path / "pc-trace.pipe").exists()


def test_a_gem5_that_never_opened_the_pipe_leaves_no_sample_and_no_wait(tmp_path):
    reducer = pc_samples.TraceReducer(tmp_path / "pc-trace.pipe", PERIOD_TICKS,
                                      tmp_path / "none.tsv")
    assert reducer.finish() == "0 program-counter samples in none.tsv"
    assert pc_samples.read(tmp_path / "none.tsv") == []


def test_a_reducer_that_cannot_write_still_drains_the_pipe_and_says_so(tmp_path):
    out = tmp_path / "missing-dir" / "pc-samples.tsv"
    reducer = pc_samples.TraceReducer(tmp_path / "pc-trace.pipe", PERIOD_TICKS, out)
    # Far more than a pipe holds (64 KiB): a reader that stopped would block gem5 here.
    with open(tmp_path / "pc-trace.pipe", "wb") as gem5:
        for _ in range(20):
            gem5.write(TRACE.read_bytes())
    assert reducer.finish().startswith("program-counter samples lost: ")


def test_a_file_that_is_not_a_sample_table_is_named(tmp_path):
    bad = tmp_path / "pc-samples.tsv"
    bad.write_text("tick cpu function\n1 a b\n")
    with pytest.raises(StatsParseError, match="pc-samples.tsv"):
        pc_samples.read(bad)
    bad.write_text(pc_samples.HEADER + "\nx\ty\tz\n")
    with pytest.raises(StatsParseError, match=r"pc-samples.tsv:2"):
        pc_samples.read(bad)


def test_samples_break_the_time_down_by_category():
    counts = {"e1000_clean_rx_irq": 10, "tcp_v4_rcv": 20, "copy_user_enhanced_fast_string": 30,
              pc_samples.USER_MODE: 40, "default_idle": 100, pc_samples.KERNEL_UNNAMED: 0}
    b = profile.sampled(counts, 50.0)
    assert b.kernel_source == "gem5-pc-samples" and b.basis == "time"
    assert b.samples == 100  # idle loops are not CPU time
    assert b.share_pct[profile.DRIVER] == pytest.approx(10.0)
    assert b.share_pct[profile.APPLICATION] == pytest.approx(40.0)
    assert b.time_us[profile.COPY] == pytest.approx(30 * 50.0)
    assert b.idle_us == pytest.approx(100 * 50.0)
    assert [name for name, _, _ in b.top][:3] == ["copy_user_enhanced_fast_string", "tcp_v4_rcv",
                                                 "e1000_clean_rx_irq"]
    assert profile.sampled({"default_idle": 5}, 50.0) is None


def test_per_packet_times_take_gem5s_busy_time_and_say_how_much_was_sampled():
    b = profile.sampled({"e1000_intr": 25, pc_samples.USER_MODE: 75}, 100.0)
    m = profile.metrics(b, packets=1000, busy_s=0.02)
    # 25% of 20 ms of busy CPU over 1000 packets.
    assert m["time_driver_us_per_pkt"] == pytest.approx(5.0)
    assert m["breakdown"]["samples"] == 100
    # 100 samples of 100 us are 10 ms: half the busy time.
    assert m["breakdown"]["sampled_busy_pct"] == pytest.approx(50.0)


def _spec(experiment: dict) -> dict:
    return {"experiment": {"engine": "gem5", **experiment},
            "hosts": {"a": {"role": "server"}, "b": {"role": "client"}},
            "workloads": {"w": {"kind": "iperf", "bytes": 1000}}}


def test_a_period_too_short_for_its_window_is_refused_by_name():
    with pytest.raises(SpecError, match=r"experiment.pc_sample_us: 0.5 us"):
        from_dict(_spec({"pc_sample_us": 0.5}))


def test_sampling_is_part_of_the_run_id_only_when_on():
    plain = from_dict(_spec({}))
    assert identity.spec_digest(from_dict(_spec({"pc_sample_us": 0}))) == identity.spec_digest(plain)
    assert identity.spec_digest(from_dict(_spec({"pc_sample_us": 100}))) != identity.spec_digest(plain)


def test_sampling_where_gem5_cannot_trace_is_refused_before_any_run():
    per_host = from_dict({**_spec({"pc_sample_us": 100, "processes": "per-host"}),
                          "link": {"delay_us": 1.0}})
    with pytest.raises(Gem5Error, match=r"experiment.pc_sample_us: .*one-process runs only"):
        gem5_check_spec(per_host)
    with pytest.raises(EngineError, match=r"experiment.pc_sample_us .*QEMU"):
        qemu.check_spec(from_dict(_spec({"pc_sample_us": 100})).with_engine("qemu"))


def test_a_gem5_fast_build_is_refused_for_sampling(gem5_engine, tmp_path):
    """The real gem5 under the name gem5.fast, as a user's build would be
    named: the trace is compiled out of those."""
    fast = tmp_path / "gem5.fast"
    fast.symlink_to(gem5_engine.probe().binary)
    engine = Gem5Engine(fast)
    with pytest.raises(Gem5Error, match=r"gem5.fast compiles it out"):
        engine.usable(from_dict(_spec({"pc_sample_us": 100})))
    engine.usable(from_dict(_spec({})))  # the same build, unsampled: usable


def test_sampling_beside_a_users_own_debug_trace_is_refused(gem5_engine):
    traced = Gem5Engine(gem5_engine.probe().binary, ("--debug-flags=Ethernet", "--debug-start=1000"))
    with pytest.raises(Gem5Error, match=r"drop --debug-flags=Ethernet --debug-start=1000 from"):
        traced.usable(from_dict(_spec({"pc_sample_us": 100})))
    traced.usable(from_dict(_spec({})))
