"""Windows on real gem5 runs, kept as fixtures made by scripts/gem5_fixtures.py:

- gem5-steady-state: examples/steady-state-gem5.toml, the quickstart's stream
  as 8 windows of 5 ms after 20 ms of warm-up;
- gem5-whole-life: the same stream, its whole life one region (README: the
  table of the two);
- gem5-steady-4k, -16k, -64k: examples/steady-state-sizes-gem5.toml, the
  windowed stream at three message sizes, with gem5's PC samples.

What the steady state must be to stand for one (issue 25): steady from window
to window, the same at both ends of the stream, free of program start-up;
and what it then says of the cost per packet by message size.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from g5net.analysis import check, long_table
from g5net.commands.run import summary_rows
from g5net.metrics import derive as run_metrics
from g5net.metrics import spread
from g5net.model import specs
from g5net.report import readme, steady_state
from g5net.report import runs as runsmod
from g5net.report import xy_plot
from g5net.report.figure_files import plt
from g5net.runners import execute as run
from g5net.runs.rundir import RunDir
from g5net.stats import iter_dumps

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
STEADY = RunDir(FIXTURES / "gem5-steady-state")
WHOLE = RunDir(FIXTURES / "gem5-whole-life")
SIZES = {k: RunDir(FIXTURES / f"gem5-steady-{k}k") for k in (4, 16, 64)}


def metrics(rd: RunDir) -> dict:
    return json.loads(rd.metrics_json.read_text())


def stream(rd: RunDir, host: str) -> dict:
    return metrics(rd)["hosts"][host]["stream"]


def test_windows_are_exact_and_their_metrics_are_the_stats_dumps_differences():
    spec = specs.from_dict(json.loads(STEADY.spec_json.read_text()))
    # The fixture keeps the dumps of the windows: gem5's first when the
    # warm-up ended, then one per window, each 5 simulated ms after the last.
    ticks = [int(d.value("finalTick")) for d in iter_dumps(STEADY.stats_txt)]
    assert len(ticks) == 9 and {b - a for a, b in zip(ticks, ticks[1:])} == {5_000_000_000}
    recomputed = run_metrics.compute(spec, json.loads(STEADY.results_json.read_text()), STEADY,
                                     STEADY.read_run()["boards"])
    assert recomputed == metrics(STEADY)
    for host in ("server", "client"):
        m = stream(STEADY, host)
        assert m["n_windows"] == 8
        assert [w["elapsed_s"] for w in m["per_window"]] == pytest.approx([0.005] * 8, rel=1e-9)
        values = [w["throughput_mbps"] for w in m["per_window"]]
        assert m["spread"]["throughput_mbps"] == spread.summary(values).to_dict()
    assert STEADY.read_run()["region"] == {"kind": "windows", "windows": 8, "window_ms": 5.0,
                                           "warmup_ms": 20.0, "method": "consecutive"}


def test_the_stream_is_steady_from_window_to_window():
    """No drift: the windows' first half and second half agree by Welch's
    test. The README's run varies under 5% (coefficient of variation) from
    window to window; the message sizes' runs are not held to that: at
    64 KiB on the patched kernel the windows alternate between about 2.0 and
    2.25 Gbit/s (5.5%, 4.9% before the patch) with no drift."""
    for rd in (STEADY, *SIZES.values()):
        for host in ("server", "client"):
            m = stream(rd, host)
            values = [w["throughput_mbps"] for w in m["per_window"]]
            half = len(values) // 2
            assert not spread.welch(spread.summary(values[:half]),
                                    spread.summary(values[half:])).significant, (rd.path.name, host)
    m = stream(STEADY, "server")
    assert m["spread"]["throughput_mbps"]["sd"] / m["throughput_mbps"] < 0.05


def test_both_ends_of_the_stream_agree():
    """What the client sent and the server received on the wire, window by
    window, within 2% (here: equal, as no window's edge had a frame in
    flight); the benchmark's own figures differ, each over its own run."""
    for rd in (STEADY, *SIZES.values()):
        client, server = stream(rd, "client"), stream(rd, "server")
        assert client["throughput_mbps"] == pytest.approx(server["throughput_mbps"], rel=0.02)
        for c, s in zip(client["per_window"], server["per_window"]):
            assert c["wire_sent_mbps"] == pytest.approx(s["wire_received_mbps"], rel=0.02)
    # Whole-life, the two ends of the same stream disagree by the start-up
    # each counts in its own way.
    app = [stream(WHOLE, h)["throughput_mbps"] for h in ("client", "server")]
    assert abs(app[0] / app[1] - 1) > 0.02


def test_the_windows_hold_no_program_start_up():
    """gem5's PC samples: exec, exit, fork, mmap and page-fault work under 5%
    of each host's busy CPU time in every window."""
    for rd in SIZES.values():
        for host in ("server", "client"):
            shares = [w["process_time_pct"] for w in stream(rd, host)["per_window"]]
            assert len(shares) == 8 and max(shares) < 5, (rd.path.name, host, shares)


def test_instructions_per_packet_fall_with_the_message_size_as_interrupts_coalesce():
    """NetFrame's finding, about 5,000 instructions per packet whatever the
    message size, is not reproduced in the steady state: the receiver's
    instructions per received packet fall from 4 KiB to 64 KiB messages, by
    far more than 10%. The measured reason: 4 KiB writes leave the sender
    the bottleneck, packets arrive spread out, and the receiver's NIC
    interrupts about once per 2 packets against once per 30 at 64 KiB, so
    the driver's and the stack's work per interrupt is shared by fewer
    packets (PC samples: the driver's time per packet falls several-fold)."""
    small, _, large = (stream(rd, "server") for rd in SIZES.values())
    assert small["insts_per_rx_pkt"] > 2 * large["insts_per_rx_pkt"]
    assert small["nic_irqs_per_pkt"] > 10 * large["nic_irqs_per_pkt"]
    assert small["time_driver_us_per_pkt"] > 3 * large["time_driver_us_per_pkt"]
    # Both windows' means are sure to a few percent: the difference is no noise.
    for m in (small, large):
        assert m["spread"]["insts_per_rx_pkt"]["ci95"] < 0.05 * m["insts_per_rx_pkt"]


def test_check_says_within_noise_where_two_committed_points_differ_by_less_than_their_spread(tmp_path):
    """The 16 KiB and 64 KiB points: throughput differs beyond its spread (a
    verdict), the receiver's L2 misses per packet (27.9 and 27.8) do not."""
    for rd in SIZES.values():
        shutil.copytree(rd.path, tmp_path / rd.path.name)
    rels = check.parse('[[relation]]\nby = "workloads.stream.msg_bytes"\nexpect = [\n'
                       '  "65536.server.stream.throughput_mbps > 16384.server.stream.throughput_mbps",\n'
                       '  "65536.server.stream.l2_misses_per_rx_pkt < 16384.server.stream.l2_misses_per_rx_pkt",\n'
                       ']\n').relations
    runs = runsmod.load(tmp_path)
    assert [[c.result for c in check.compare(rel, runs)] for rel in rels] == \
        [[check.Result.HOLDS], [check.Result.WITHIN_NOISE]]


def test_a_figure_of_windowed_runs_has_their_confidence_intervals_as_error_bars(tmp_path):
    for rd in SIZES.values():
        shutil.copytree(rd.path, tmp_path / rd.path.name)
    runs = runsmod.load(tmp_path)
    xy = xy_plot.resolved(runs, xy_plot.XY("msg_bytes", "throughput_mbps", hosts=("server",)))
    found = xy_plot.points(runs, xy)
    assert [(p.x, p.spread) for p in found] == [
        (k * 1024, (stream(rd, "server")["spread"]["throughput_mbps"]["ci95"],) * 2)
        for k, rd in SIZES.items()]
    fig, _ = xy_plot.figure(runs, xy)
    notes = " ".join(t.get_text() for t in fig.texts).replace("\n", " ")
    assert "its error bar is the 95% confidence interval of its mean" in notes
    plt.close(fig)


def test_the_run_summary_gives_the_throughput_with_its_interval():
    rows = dict(((r[0], r[2]) for r in summary_rows(metrics(STEADY))[1:]))
    ci = stream(STEADY, "server")["spread"]["throughput_mbps"]["ci95"]
    assert rows["server"] == f"{stream(STEADY, 'server')['throughput_mbps']:,.1f} ± {ci:,.1f} Mb/s"
    assert " ± " not in dict(((r[0], r[2]) for r in summary_rows(metrics(WHOLE))[1:]))["server"]


def test_the_long_table_gives_each_windowed_value_its_interval(tmp_path):
    shutil.copytree(STEADY.path, tmp_path / STEADY.path.name)
    _, rows = long_table.long_table(tmp_path)
    by = {(r["host"], r["metric"]): r for r in rows if r["workload"] == "stream"}
    server = stream(STEADY, "server")
    assert by["server", "throughput_mbps"]["ci95"] == server["spread"]["throughput_mbps"]["ci95"]
    # The guest's own figures of warm-up and windows together have none.
    assert by["server", "ctxt_per_pkt"]["ci95"] is None and by["server", "ctxt_per_pkt"]["value"] > 0


def test_the_readme_shows_these_runs():
    text = (REPO / "README.md").read_text()
    assert readme.with_block(text, steady_state.BEGIN, steady_state.END,
                             steady_state.block(FIXTURES)) == text, "run `make docs`"


@pytest.mark.gem5
@pytest.mark.slow
def test_a_windowed_run_on_gem5(gem5_engine, tmp_path: Path):
    """examples/steady-state-gem5.toml, smoke-sized (4 windows of 2 ms), run
    now: every window exact in simulated time and streaming, both ends equal
    on the wire, iperf stopped after the windows and reporting."""
    d = specs.load(REPO / "examples" / "steady-state-gem5.toml").to_dict()
    d["experiment"].update(windows=4, window_ms=2.0, warmup_ms=6.0)
    rd = run.execute(specs.from_dict(d), tmp_path, progress=lambda line: None)
    record = rd.read_run()
    assert record["status"] == "done", record.get("failure")
    assert record["region"]["windows"] == 4
    got = json.loads(rd.metrics_json.read_text())["hosts"]
    client, server = got["client"]["stream"], got["server"]["stream"]
    for m in (client, server):
        assert [w["elapsed_s"] for w in m["per_window"]] == pytest.approx([0.002] * 4, rel=1e-9)
        assert min(w["throughput_mbps"] for w in m["per_window"]) > 100
        assert m["app_throughput_mbps"] > 100
    assert client["throughput_mbps"] == pytest.approx(server["throughput_mbps"], rel=0.02)
