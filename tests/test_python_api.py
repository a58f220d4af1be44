"""The Python API on committed results: docs/python.md's example as it
stands, NetPIPE curves, a run's gem5 statistics, nested folders, the
aggregate host under the clients' metric names."""

import json
import re
import runpy

import pytest

import g5net
from g5net import home
from g5net.errors import StudyError

REPO = home.REPO
FIXTURE = REPO / "tests" / "fixtures" / "gem5-quickstart"

pytest.importorskip("pandas", reason="the Python API's tables are pandas DataFrames")


def test_the_documented_example_runs_as_written(tmp_path, monkeypatch, capsys):
    doc = (REPO / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert blocks, "docs/python.md has no python example"
    script = tmp_path / "example.py"
    script.write_text("\n".join(blocks))
    monkeypatch.chdir(REPO)
    runpy.run_path(str(script))
    out = capsys.readouterr().out
    assert "integrated" in out and "msg_bytes" in out


def test_the_netpipe_curve_has_one_row_per_message_size_as_results_json_holds_it():
    curves = g5net.load_curves(FIXTURE)
    points = json.loads((FIXTURE / "results.json").read_text())["client"]["workloads"]["latency"]["points"]
    client = curves[(curves.host == "client") & (curves.workload == "latency")]
    assert len(client) == len(points) == 24
    assert client.msg_bytes.tolist() == [p["bytes"] for p in points]
    assert client.latency_us.tolist() == [p["latency_us"] for p in points]
    assert client.throughput_mbps.tolist() == [p["mbps"] for p in points]
    # The smallest message's latency is the one metric metrics.json keeps of the curve.
    m = json.loads((FIXTURE / "metrics.json").read_text())["hosts"]["client"]["latency"]
    assert client.latency_us.iloc[0] == m["latency_us"]


def test_a_damaged_curve_is_skipped_naming_the_file(tmp_path, capsys):
    import shutil
    shutil.copytree(FIXTURE, tmp_path / "run")
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    results["client"]["workloads"]["latency"]["points"][3] = {"bytes": "many"}
    (tmp_path / "run" / "results.json").write_text(json.dumps(results))
    assert g5net.load_curves(tmp_path).empty
    assert "results.json: damaged: client.latency.points is not a list" in capsys.readouterr().err


def test_a_runs_statistics_have_every_dump_with_its_workload_and_host():
    stats = g5net.load_stats(FIXTURE)
    spec = json.loads((FIXTURE / "run.json").read_text())["spec"]
    assert list(stats.columns) == ["dump", "workload", "host", "name", "value", "unit", "description"]
    workloads = list(spec["workloads"])
    dumps = stats.groupby("dump").workload.first()
    assert dumps.iloc[:len(workloads)].tolist() == workloads
    assert set(stats.host.dropna()) == set(spec["hosts"])
    ticks = stats[(stats.name == "simTicks") & (stats.dump == 0)]
    assert len(ticks) == 1 and ticks.unit.item() == "Tick" and ticks.host.isna().item()
    assert ticks.value.item() > 0


def test_a_folder_is_read_at_any_depth():
    everything = g5net.load(REPO / "studies")
    expected = {p.parent.name for p in (REPO / "studies").glob("*/results/*/*/run.json")}
    assert set(everything.run) == expected and len(expected) > 10


def test_the_aggregate_host_has_the_clients_metric_names_in_the_wide_form():
    wide = g5net.load(g5net.study_results("niagara2-nic"), wide=True)
    agg = wide[(wide.host == "aggregate") & (wide.workload == "stream")]
    client = wide[(wide.host == "client") & (wide.workload == "stream")]
    assert agg.throughput_mbps.notna().all()
    # One client per run: the sum over the clients is that client's figure.
    assert sorted(agg.throughput_mbps) == sorted(client.throughput_mbps)
    assert "throughput_mbps_sum" not in wide.columns


def test_an_unknown_study_names_the_ones_there_are():
    with pytest.raises(StudyError, match="niagara2-nic"):
        g5net.study_results("no-such-study")
