"""Status and collect over a sweep directory whose runs are written the way
run.execute writes them (temporary name, then rename into place)."""

import csv
import json

import pytest
from conftest import EXAMPLES

from g5net import cli
from g5net.model import sweep
from g5net.runners.plan import planned
from g5net.runs import record as run_record
from g5net.runs import rundir, store, sweepdir
from g5net.runs.sweepdir import PlannedPoint, SweepDir


@pytest.fixture(autouse=True)
def only_store_commands(monkeypatch):
    # status and collect must work where no engine or artifact is installed (a
    # laptop reading a cluster's results): build the CLI with them alone.
    monkeypatch.setattr(cli, "COMMANDS", ("status", "collect"))


@pytest.fixture
def sweep_dir(tmp_path):
    s = sweep.load(EXAMPLES / "sweep-quick.toml")
    points = tuple(planned(p, f"{p.index:02d}" * 32) for p in s.points)
    sd = SweepDir(tmp_path / "sweep")
    sweepdir.write(sd, sweepdir.Plan("examples/sweep-quick.toml", s.parameters, points))
    return sd


def _commit(sd: SweepDir, p: PlannedPoint, status: str, throughput: float | None = None) -> None:
    rd = rundir.begin(sd.store, p.name, p.run_id)
    record = run_record.begin(p.run_id, p.name, p.spec)
    record["engine"] = {"version": "7.2"}
    rd.write_json(rd.run_json, run_record.finish(record, status, 12.5))
    if throughput is not None:
        rd.write_json(rd.metrics_json, {"hosts": {"client": {"stream": {"throughput_mbps": throughput}}}})
        rd.write_json(rd.results_json, {"client": {"role": "client", "job_rc": 0}})
    rundir.commit(rd, sd.store, p.name, p.run_id)


def _status_json(sd: SweepDir, capsys) -> dict:
    rc = cli.main(["status", str(sd.path), "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_status_counts_points_and_lists_run_dirs(sweep_dir, capsys):
    plan = sweepdir.read(sweep_dir)
    _commit(sweep_dir, plan.points[0], "done", 900.0)
    _commit(sweep_dir, plan.points[1], "done", 910.0)
    _commit(sweep_dir, plan.points[2], "failed:boot")
    # A run in the making, or the remains of a killed worker: never a result.
    rundir.begin(sweep_dir.store, plan.points[3].name, plan.points[3].run_id)
    rc, s = _status_json(sweep_dir, capsys)
    assert rc == 1
    assert s["points"] == 6
    assert s["counts"] == {"done": 2, "failed:boot": 1, "pending": 3}
    assert [p["index"] for p in s["by_status"]["done"]] == [0, 1]
    assert s["by_status"]["done"][0]["run_dir"] == str(sweep_dir.store / plan.points[0].dir_name)
    assert s["by_status"]["pending"][0]["run_dir"] is None
    assert store.to_run(sweep_dir, plan, retry_failed=False) == list(plan.points[3:])
    assert store.to_run(sweep_dir, plan, retry_failed=True) == list(plan.points[2:])


def test_collect_one_row_per_run(sweep_dir, tmp_path, capsys):
    plan = sweepdir.read(sweep_dir)
    _commit(sweep_dir, plan.points[0], "done", 900.0)
    _commit(sweep_dir, plan.points[4], "timeout")
    out = tmp_path / "t.csv"
    assert cli.main(["collect", str(sweep_dir.path), "-o", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["point"] for r in rows] == ["0", "4"]
    assert rows[0]["metrics.client.stream.throughput_mbps"] == "900.0"
    assert rows[1]["metrics.client.stream.throughput_mbps"] == ""
    assert rows[1]["sweep.workloads.stream.msg_bytes"] == "65536"
    assert rows[1]["sweep.workloads.stream.window_bytes"] == "262144"
    assert rows[1]["spec.hosts.client.nic.mtu"] == "1500"
    assert rows[0]["spec.hosts.client.nic.irq_cpus"] == "[]"
    assert rows[0]["run.engine_version"] == "7.2"
    header = list(rows[0])
    assert header[:4] == ["point", "run_id", "status", "run_dir"]
    groups = [h.split(".")[0] for h in header[4:]]
    assert groups == sorted(groups, key=["sweep", "spec", "metrics", "results", "run"].index)


def test_collect_parquet_matches_csv(sweep_dir, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    plan = sweepdir.read(sweep_dir)
    for p in plan.points:
        _commit(sweep_dir, p, "done", 100.0 + p.index)
    assert cli.main(["collect", str(sweep_dir.path), "-o", str(tmp_path / "t.parquet")]) == 0
    assert cli.main(["collect", str(sweep_dir.path), "-o", str(tmp_path / "t.csv")]) == 0
    table = pq.read_table(tmp_path / "t.parquet")
    rows = list(csv.DictReader((tmp_path / "t.csv").open()))
    assert table.column_names == list(rows[0])
    assert table.column("metrics.client.stream.throughput_mbps").to_pylist() == [100.0 + i for i in range(6)]
    assert table.column("run_id").to_pylist() == [p.run_id for p in plan.points]


def test_status_of_a_folder_without_runs_names_it(tmp_path, capsys):
    assert cli.main(["status", str(tmp_path)]) == 2
    assert f"{tmp_path}: holds no run: not a run directory" in capsys.readouterr().err


def test_status_and_collect_of_a_folder_of_runs_and_of_one_run(sweep_dir, tmp_path, capsys):
    """results/ after several `g5net run`: the same runs, no plan."""
    plan = sweepdir.read(sweep_dir)
    _commit(sweep_dir, plan.points[0], "done", 900.0)
    _commit(sweep_dir, plan.points[4], "timeout")
    folder = sweep_dir.store
    rc, s = _status_json(SweepDir(folder), capsys)
    assert rc == 1 and s["sweep"] is None and s["points"] == 2
    assert s["counts"] == {"done": 1, "timeout": 1}
    assert s["by_status"]["done"][0]["run_dir"] == str(folder / plan.points[0].dir_name)
    one = folder / plan.points[0].dir_name
    rc, s = _status_json(SweepDir(one), capsys)
    assert rc == 0 and s["counts"] == {"done": 1}
    assert cli.main(["collect", str(folder), "-o", str(tmp_path / "t.csv")]) == 0
    rows = list(csv.DictReader((tmp_path / "t.csv").open()))
    # By run directory name, with no point index.
    assert sorted(r["status"] for r in rows) == ["done", "timeout"]
    assert [r["point"] for r in rows] == ["", ""]
    assert [r["run_dir"] for r in rows] == sorted(r["run_dir"] for r in rows)
    assert {r["run_dir"] for r in rows} == {plan.points[0].dir_name, plan.points[4].dir_name}
    assert all(r["spec.hosts.client.nic.mtu"] == "1500" for r in rows)
    assert not any(h.startswith("sweep.") for h in rows[0])


def test_unknown_table_format(sweep_dir, tmp_path, capsys):
    _commit(sweep_dir, sweepdir.read(sweep_dir).points[0], "done", 1.0)
    assert cli.main(["collect", str(sweep_dir.path), "-o", str(tmp_path / "t.xlsx")]) == 2
    assert "unknown table format '.xlsx'" in capsys.readouterr().err
