"""g5net.load and `g5net collect --long`: the runs' metrics as one long table,
on runs written by the product's own writers (test_metrics_fixtures)."""

import csv
import json
import sys

import pytest
from test_metrics_fixtures import (
    REPO,
    make_folder,
    make_run,
    make_sweep,
    quickstart_spec,
)

import g5net
from g5net import cli
from g5net.analysis.long_table import combined_name
from g5net.errors import ReportError
from g5net.metrics.units import BY_NAME, SOURCES

PARAMS = ["host.nic.attach", "workloads.stream.msg_bytes", "workloads.stream.streams"]


def _metrics_of(run_dir):
    """(host, workload, metric) -> value: every number of the run's metrics.json."""
    m = json.loads((run_dir / "metrics.json").read_text())
    tables = {**m["hosts"], "aggregate": m.get("aggregate", {})}
    return {(h, w, combined_name(k) if h == "aggregate" else k): v
            for h, wls in tables.items() for w, ms in wls.items()
            for k, v in ms.items() if isinstance(v, (int, float))}


def test_a_sweep_loads_long_with_its_parameters_and_units(tmp_path):
    sweep = make_sweep(tmp_path / "sweep")
    df = g5net.load(sweep)
    assert list(df.columns) == ["run", "status", *PARAMS, "host", "workload", "metric", "value", "ci95", "unit"]
    runs = sorted(p for p in (sweep / "runs").iterdir() if not p.name.startswith("."))
    assert sorted(df["run"].unique()) == [p.name for p in runs] and len(runs) == 6
    expected = {(p.name, *k): v for p in runs for k, v in _metrics_of(p).items()}
    got = {(r.run, r.host, r.workload, r.metric): r.value for r in df.itertuples()}
    assert got == expected
    assert df["unit"].notna().all()
    one = df[(df["host.nic.attach"] == "integrated") & (df["workloads.stream.msg_bytes"] == 65536)
             & (df.host == "client") & (df.metric == "throughput_mbps")]
    assert len(one) == 1 and one.iloc[0].unit == "Mbit/s" and one.iloc[0].value == pytest.approx(688.128)
    # The clients together, under the clients' own metric names (metrics.json's *_sum).
    assert set(df[df.host == "aggregate"].metric) == {"clients", "throughput_mbps",
                                                      "sent_mbps", "received_mbps"}


def test_the_wide_form_has_one_row_per_run_host_and_workload(tmp_path):
    sweep = make_sweep(tmp_path / "sweep")
    long, wide = g5net.load(sweep), g5net.load(sweep, wide=True)
    assert len(wide) == 6 * 3  # runs x (server, client, aggregate) x one workload
    assert list(wide.columns[:7]) == ["run", "status", *PARAMS, "host", "workload"]
    assert wide.columns[7] == "throughput_mbps"
    assert wide.attrs["units"]["cpu_util"] == "fraction"
    for r in long.sample(20, random_state=1).itertuples():
        cell = wide[(wide.run == r.run) & (wide.host == r.host)][r.metric]
        assert cell.item() == r.value


def test_a_folder_of_runs_has_its_varying_keys_and_one_run_none(tmp_path):
    folder = g5net.load(make_folder(tmp_path / "results"))
    sweep = g5net.load(make_sweep(tmp_path / "sweep"))
    assert sorted(folder.columns) == sorted(sweep.columns)
    assert len(folder) == len(sweep)
    rd = make_run(tmp_path / "one", quickstart_spec())
    one = g5net.load(rd.path)
    assert list(one.columns) == ["run", "status", "host", "workload", "metric", "value", "ci95", "unit"]
    assert set(one.workload) == {"stream", "latency"}
    assert one[one.metric == "latency_us"].unit.unique().tolist() == ["us"]
    assert one[one.metric == "time_copy_pct"].unit.unique().tolist() == ["%"]


def test_collect_long_writes_the_same_table(tmp_path, capsys):
    sweep = make_sweep(tmp_path / "sweep")
    out = tmp_path / "long.csv"
    assert cli.main(["collect", str(sweep), "-o", str(out), "--long"]) == 0
    df = g5net.load(sweep)
    assert f"{out}: {len(df)} rows, {len(df.columns)} columns" in capsys.readouterr().err
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(df.columns)
    assert [(r["run"], r["host"], r["metric"], float(r["value"]), r["unit"]) for r in rows] == \
        list(zip(df.run, df.host, df.metric, df.value, df.unit))


def test_without_pandas_load_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ReportError, match=r"needs pandas: pip install 'g5net\[pandas\]'"):
        g5net.load(make_run(tmp_path, quickstart_spec()).path)


def test_every_metric_a_run_writes_has_a_unit_and_a_source(tmp_path):
    """The catalogue covers metrics.json: QEMU-style runs with a profile, and a
    real gem5 run's (tests/fixtures)."""
    names = {k for _, _, k in _metrics_of(make_run(tmp_path, quickstart_spec()).path)}
    names |= {k for _, _, k in _metrics_of(REPO / "tests" / "fixtures" / "gem5-quickstart")}
    missing = sorted(n for n in names if n not in BY_NAME)
    assert not missing, ("define these beside the code that computes them "
                         f"(g5net/metrics/{{guest,gem5,profile,aggregate}}.py): {missing}")
    assert all(m.source in SOURCES and m.unit and m.description for m in BY_NAME.values())
