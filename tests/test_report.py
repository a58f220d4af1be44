import dataclasses
import struct

import pytest

from g5net import cli
from g5net.errors import StoreError
from g5net.report.build import build
from test_metrics_fixtures import make_folder, make_run, make_sweep, quickstart_spec


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_sweep_report_has_the_plots_its_parameters_allow(tmp_path, capsys):
    sweep = make_sweep(tmp_path / "sweep")
    out = tmp_path / "report"
    assert cli.main(["report", str(sweep), "--out", str(out)]) == 0
    written = capsys.readouterr().out.split()
    pngs = {p.name for p in out.glob("*.png")}
    # Message size and connections vary; there are no gem5 misses to plot.
    assert pngs == {"bandwidth-cpu-vs-msg-size.png", "ctxt-intr-vs-connections.png", "breakdown.png"}
    figures = {p.replace(".png", ext) for p in pngs for ext in (".png", ".svg", ".pdf")}
    assert {str(out / p) for p in figures} | {str(out / "report.md"), str(out / "report.html")} == set(written)
    for p in pngs:
        w, h = _png_size(out / p)
        assert w > 600 and h > 300
    md = (out / "report.md").read_text()
    assert "varying stream.msg_bytes, stream.streams, nic.attach" in md
    assert "![Bandwidth and CPU utilisation vs message size](bandwidth-cpu-vs-msg-size.png)" in md
    # One row per run and host; the integrated NIC's 5 % shows in the table.
    rows = [l for l in md.splitlines() if l.startswith("| msg_bytes=65536 streams=16 attach=integrated | done | client")]
    assert len(rows) == 1 and "| 688.1 |" in rows[0]
    html = (out / "report.html").read_text()
    assert "<img src='breakdown.png'" in html and html.count("<table>") == 3


def test_single_run_report_is_tables_and_breakdown_bars(tmp_path):
    rd = make_run(tmp_path / "store", quickstart_spec())
    out = tmp_path / "report"
    files = build([rd.path], out)
    assert sorted(p.name for p in files) == ["breakdown.pdf", "breakdown.png", "breakdown.svg",
                                             "report.html", "report.md"]
    md = (out / "report.md").read_text()
    assert "## CPU time breakdown" in md and "## Top kernel functions" in md
    assert md.count(f"| {rd.path.name} | done |") == 4  # 2 hosts x 2 workloads


def test_a_folder_of_single_runs_reports_like_the_sweep_of_the_same_points(tmp_path, capsys):
    assert cli.main(["report", str(make_folder(tmp_path / "results")), "--out", str(tmp_path / "a")]) == 0
    assert cli.main(["report", str(make_sweep(tmp_path / "sweep")), "--out", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    # Each table row's run, status, host, workload and throughput (the /proc
    # counters behind the other columns are this machine's, taken per run).
    folder, sweep = ([row for line in (tmp_path / d / "report.md").read_text().splitlines()
                      if (row := line.split("|")[:6])[2:3] == [" done "]] for d in "ab")
    assert len(folder) == 6 * 2  # runs x hosts
    assert [" msg_bytes=65536 streams=16 attach=integrated ", " done ", " client ", " stream ",
            " 688.1 "] in [row[1:] for row in folder]
    assert folder == sweep
    assert {p.name for p in (tmp_path / "a").glob("*.png")} == {p.name for p in (tmp_path / "b").glob("*.png")}


def test_nothing_to_report_is_an_error(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}: holds no run: not a run directory (no run.json), a sweep directory" in err
    with pytest.raises(StoreError, match="missing: no such directory: give a run directory "
                                         r"\(run.json\), a sweep directory \(sweep.json and runs/\)"):
        build([tmp_path / "missing"], tmp_path / "r")
    (tmp_path / "stats.txt").write_text("")
    with pytest.raises(StoreError, match="stats.txt: not a directory: give a run directory"):
        build([tmp_path / "stats.txt"], tmp_path / "r")


def test_a_sweep_before_its_first_run_has_nothing_to_report_or_check(tmp_path, capsys):
    sweep = make_sweep(tmp_path / "sweep", ran=False)
    expect = tmp_path / "expect.toml"
    expect.write_text('bounds = ["packets > 0"]\n')
    assert cli.main(["report", str(sweep), "--out", str(tmp_path / "r")]) == 2
    assert cli.main(["check", str(sweep), "--expect", str(expect)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"g5net {cmd}: error: {sweep}: the sweep has no run yet "
        f"(`g5net status {sweep}` lists its points)" for cmd in ("report", "check")]
    assert not (tmp_path / "r").exists()


def test_a_workload_that_only_some_points_run_is_no_dimension_of_its_own():
    """A medium scale with O3 and timing points (sockets'; 10gbe's found
    it): NetPIPE runs after the stream only in the consecutive points
    (experiment.workloads), so its keys are absent from the sampled ones;
    which points have them follows from experiment.workloads, and the
    report's table had a column of nulls for each of its 20 keys."""
    from pathlib import Path

    from g5net.report.runs import load, varying
    runs = load(Path(__file__).resolve().parents[1] / "studies" / "sockets" / "results" / "medium")
    latency = sorted({k for r in runs for k in r.params if k.startswith("workloads.latency.")})
    assert len(latency) > 10 and any(k not in r.params for r in runs for k in latency)
    keys = varying(runs)
    assert "experiment.workloads" in keys and not set(latency) & set(keys)
    # Where nothing that varies says which runs have them, their presence is what differs.
    alone = [dataclasses.replace(r, params={k: v for k, v in r.params.items() if k in latency}) for r in runs]
    assert set(varying(alone)) == set(latency)


def test_a_sweep_of_replicas_varies_the_replicas_not_the_hosts_they_became():
    """sockets medium: 1, 2 and 4 clients are `hosts.client.replicas`, which a
    resolved spec has as hosts client-1..client-N of replicas 1. Its table had
    a column of each replica's role, peer and address and none of the clients,
    and the figures and findings by replicas found no run (nor did the quick
    scale's bandwidth figure, which selects one client)."""
    from pathlib import Path

    from g5net.report.runs import load, varying
    from g5net.spec import replica_tables
    assert replica_tables(["server", "client-1", "client-2"]) == {"server": 1, "client": 2}
    assert replica_tables(["server", "client"]) == {"server": 1, "client": 1}
    # Names that no table of replicas gives are tables of their own.
    assert replica_tables(["a", "a-1", "a-2"]) == {"a": 1, "a-1": 1, "a-2": 1}
    assert replica_tables(["c-1", "c-3"]) == {"c-1": 1, "c-3": 1}
    runs = load(Path(__file__).resolve().parents[1] / "studies" / "sockets" / "results" / "medium")
    assert {r.params["hosts.client.replicas"] for r in runs} >= {1, 2}
    keys = varying(runs)
    assert "hosts.client.replicas" in keys
    assert not [k for k in keys if k.startswith(("hosts.client.", "hosts.client-")) and "replicas" not in k]
