"""A damaged run store (issue 14): a run.json or metrics.json that a power cut
left truncated, empty or binary is `corrupt` in status, skipped with a warning
by collect, report and check, and run again by sweep, which moves it aside.
And the environment refusing a write: one line, exit 2, no half-made run."""

import errno
import json
import os
import threading
from pathlib import Path

import pytest
from conftest import EXAMPLES

from g5net import cli, engines
from g5net.artifacts.images import Image
from g5net.artifacts.kernels import Kernel
from g5net.commands import sweep as sweep_command
from g5net.engines.base import Artifacts, EngineInfo
from g5net.engines.qemu import QemuEngine
from g5net.errors import CorruptRunError, OutputError
from g5net.machine import atomic
from g5net.model import sweep
from g5net.runners import execute as run
from g5net.runners import local
from g5net.runners import plan as planmod
from g5net.runners.plan import planned
from g5net.runs import record as run_record
from g5net.runs import rundir, store, sweepdir
from g5net.runs.sweepdir import PlannedPoint, SweepDir

DAMAGE = {"truncated": b'{"run_id": "ab', "empty": b"", "binary": b"\x00\xff\xfe\x80garbage"}


def _plan(spec_path: Path = EXAMPLES / "sweep-quick.toml") -> sweepdir.Plan:
    s = sweep.load(spec_path)
    points = tuple(planned(p, f"{p.index:02d}" * 32) for p in s.points)
    return sweepdir.Plan(str(spec_path), s.parameters, points)


@pytest.fixture
def sweep_dir(tmp_path):
    sd = SweepDir(tmp_path / "sweep")
    sweepdir.write(sd, _plan())
    return sd


def _commit(sd: SweepDir, p: PlannedPoint, throughput: float = 900.0) -> rundir.RunDir:
    """A done run of `p`, written as run.execute writes one."""
    rd = rundir.begin(sd.store, p.name, p.run_id)
    record = run_record.begin(p.run_id, p.name, p.spec)
    rd.write_json(rd.metrics_json, {"hosts": {"client": {"stream": {"throughput_mbps": throughput}}}})
    rd.write_json(rd.run_json, run_record.finish(record, "done", 1.0))
    return rundir.commit(rd, sd.store, p.name, p.run_id)


def _damaged_sweep(sd: SweepDir, how: str = "truncated") -> sweepdir.Plan:
    """Every point done; point 1's run.json and point 2's metrics.json damaged."""
    plan = sweepdir.read(sd)
    runs = [_commit(sd, p, 900.0 + p.index) for p in plan.points]
    runs[1].run_json.write_bytes(DAMAGE[how])
    runs[2].metrics_json.write_bytes(DAMAGE[how])
    return plan


@pytest.mark.parametrize("how", sorted(DAMAGE))
def test_read_run_names_the_damaged_file(tmp_path, how):
    rd = rundir.RunDir(tmp_path)
    rd.run_json.write_bytes(DAMAGE[how])
    with pytest.raises(CorruptRunError, match=f"^{rd.run_json}: damaged: "):
        rd.read_run()
    assert rd.damage().startswith(f"{rd.run_json}: damaged: ")


@pytest.mark.parametrize("how", sorted(DAMAGE))
def test_status_reports_damaged_runs_as_corrupt(sweep_dir, capsys, how):
    plan = _damaged_sweep(sweep_dir, how)
    assert cli.main(["status", str(sweep_dir.path), "--json"]) == 1
    s = json.loads(capsys.readouterr().out)
    assert s["counts"] == {"corrupt": 2, "done": len(plan.points) - 2}
    assert [p["index"] for p in s["by_status"]["corrupt"]] == [1, 2]


def test_status_of_a_folder_of_runs_reports_corrupt(sweep_dir, capsys):
    _damaged_sweep(sweep_dir)
    assert cli.main(["status", str(sweep_dir.store), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["counts"]["corrupt"] == 2


def test_collect_skips_damaged_runs_with_a_warning(sweep_dir, tmp_path, capsys):
    plan = _damaged_sweep(sweep_dir)
    out = tmp_path / "table.csv"
    assert cli.main(["collect", str(sweep_dir.path), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    runs = [sweep_dir.store / plan.points[i].dir_name for i in (1, 2)]
    assert f"g5net: warning: {runs[0] / 'run.json'}: damaged: " in err
    assert f"g5net: warning: {runs[1] / 'metrics.json'}: damaged: " in err
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + len(plan.points) - 2


def test_report_and_check_work_for_the_rest(sweep_dir, tmp_path, capsys):
    plan = _damaged_sweep(sweep_dir)
    assert cli.main(["report", str(sweep_dir.path), "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.md").is_file()
    assert capsys.readouterr().err.count("run skipped") == 2
    expect = tmp_path / "expect.toml"
    expect.write_text('bounds = ["client.stream.throughput_mbps > 100"]\n')
    rc = cli.main(["check", str(sweep_dir.path), "--expect", str(expect)])
    out, err = capsys.readouterr()
    assert err.count("run skipped") == 2, err
    assert rc == 0, out + err
    assert len(plan.points) == 6


def test_a_single_damaged_run_is_an_error_naming_it(sweep_dir, tmp_path, capsys):
    plan = _damaged_sweep(sweep_dir)
    run_path = sweep_dir.store / plan.points[1].dir_name
    assert cli.main(["report", str(run_path), "--out", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err.startswith(f"g5net report: error: {run_path / 'run.json'}: damaged: ")


def test_sweep_reruns_damaged_points_and_keeps_them_aside(sweep_dir, monkeypatch, capsys):
    """`g5net sweep` on the damaged store: the two damaged points run again, every
    point ends done exactly once, the damaged directories are kept aside."""
    plan = _damaged_sweep(sweep_dir)
    monkeypatch.setattr(planmod, "make", lambda *a, **k: plan)
    ran = []

    def fake_run(sd, todo, jobs, display):
        ran.extend(p.index for p in todo)
        for p in todo:
            _commit(sd, p)

    monkeypatch.setattr(local, "run", fake_run)
    monkeypatch.setattr(local, "default_jobs", lambda todo: 1)
    assert cli.main(["sweep", str(EXAMPLES / "sweep-quick.toml"), "--out", str(sweep_dir.path)]) == 0
    assert ran == [1, 2]
    names = sorted(p.name for p in sweep_dir.store.iterdir())
    dirs = [p.dir_name for p in plan.points]
    assert names == sorted(dirs + [f"{dirs[1]}.corrupt-1", f"{dirs[2]}.corrupt-1"])
    assert all(store.status_of(sweep_dir.store, p) == "done" for p in plan.points)
    assert "damaged run moved aside to" in capsys.readouterr().err
    # The kept copies are no runs of the store.
    assert cli.main(["status", str(sweep_dir.path), "--json"]) == 0


def test_dry_run_shows_corrupt_points_as_to_run(sweep_dir, monkeypatch, capsys):
    plan = _damaged_sweep(sweep_dir)
    monkeypatch.setattr(planmod, "make", lambda *a, **k: plan)
    assert cli.main(["sweep", str(EXAMPLES / "sweep-quick.toml"), "--out", str(sweep_dir.path),
                     "--dry-run", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["state"], r["will_run"]) for r in rows[:3]] == [("done", False), ("corrupt", True),
                                                              ("corrupt", True)]
    # A dry run moves nothing.
    assert not any(".corrupt-" in p.name for p in sweep_dir.store.iterdir())


# ------------------------------------------------ two processes, one run id

def test_two_processes_finishing_one_run_id_leave_one_run(tmp_path):
    store_dir = tmp_path / "runs"
    run_id = "ab" * 32
    begun = [rundir.begin(store_dir, "probe", run_id) for _ in range(8)]
    for i, rd in enumerate(begun):
        rd.write_json(rd.run_json, {"status": "done", "run_id": run_id, "writer": i})
    barrier = threading.Barrier(len(begun))
    errors = []

    def finish(rd):
        barrier.wait()
        try:
            rundir.commit(rd, store_dir, "probe", run_id)
        except OSError as e:  # pragma: no cover - what the test looks for
            errors.append(e)

    threads = [threading.Thread(target=finish, args=(rd,)) for rd in begun]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [p.name for p in store_dir.iterdir()] == [rundir.dir_name("probe", run_id)]
    assert rundir.find(store_dir, "probe", run_id).read_run()["status"] == "done"


def test_commit_retries_when_another_run_lands_first(tmp_path, monkeypatch):
    """The race itself, made certain: the other process renames its run into
    place between our check and our rename."""
    store_dir = tmp_path / "runs"
    run_id = "cd" * 32
    ours, theirs = (rundir.begin(store_dir, "probe", run_id) for _ in range(2))
    for who, rd in (("ours", ours), ("theirs", theirs)):
        rd.write_json(rd.run_json, {"status": "done", "run_id": run_id, "who": who})
    real_replace = os.replace

    def replace_after_theirs(src, dst):
        monkeypatch.setattr(os, "replace", real_replace)
        real_replace(theirs.path, dst)
        real_replace(src, dst)  # ENOTEMPTY, as on a real race

    monkeypatch.setattr(os, "replace", replace_after_theirs)
    final = rundir.commit(ours, store_dir, "probe", run_id)
    assert final.read_run()["who"] == "ours"
    assert [p.name for p in store_dir.iterdir()] == [final.path.name]


# ------------------------------------------------- the environment refuses

class _FakeEngine(QemuEngine):
    def info(self):
        return EngineInfo("qemu", Path("/bin/true"), "0", "0" * 64)

    def run(self, spec, artifacts, rd, progress):  # pragma: no cover - never reached
        raise AssertionError("the run must stop before the engine starts")


def _arts(tmp_path: Path) -> Artifacts:
    k = Kernel("smp", tmp_path / "bz", tmp_path / "vm", tmp_path / "map", "1" * 64)
    return Artifacts({"smp": k}, Image(tmp_path / "img", "2" * 64))


def test_a_full_disk_leaves_no_half_made_run(tmp_path, monkeypatch):
    monkeypatch.setattr(engines, "get", lambda name, options: _FakeEngine())

    def full(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(atomic, "write_bytes", full)
    spec = sweep.load(EXAMPLES / "quickstart.toml").points[0].spec
    out = tmp_path / "results"
    with pytest.raises(OutputError) as e:
        run.execute(spec, out, progress=lambda m: None, arts=_arts(tmp_path))
    assert str(e.value).startswith(f"{out}: cannot write the run: ")
    assert "No space left on device" in str(e.value)
    assert list(out.iterdir()) == []


def test_an_os_error_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    """What any command meets when the system refuses a write: no traceback."""
    def refuse(args):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / "x"))

    monkeypatch.setattr(sweep_command, "main", refuse)
    assert cli.main(["sweep", str(EXAMPLES / "sweep-quick.toml")]) == 2
    assert capsys.readouterr().err == f"g5net sweep: error: {tmp_path / 'x'}: Permission denied\n"


@pytest.mark.parametrize("text", ['{"version": 1}', '[1, 2]', '{"version": 1, "points": [{}]}',
                                  '{"version": 1, "points": 5, "source": "x", "parameters": []}'])
def test_a_damaged_plan_is_one_line(sweep_dir, capsys, text):
    sweep_dir.plan_json.write_text(text)
    assert cli.main(["status", str(sweep_dir.path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"g5net status: error: {sweep_dir.plan_json}: ") and err.count("\n") == 1


def test_a_run_json_without_status_is_corrupt(tmp_path):
    rd = rundir.RunDir(tmp_path)
    rd.run_json.write_text('{"run_id": "ab"}')
    assert rd.damage() == f"{rd.run_json}: damaged: not a run record (no status)"


def test_an_output_folder_that_cannot_be_made_is_an_output_error(tmp_path, monkeypatch):
    """Refused by the system as root too: a folder under a plain file."""
    monkeypatch.setattr(engines, "get", lambda name, options: _FakeEngine())
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "results"
    spec = sweep.load(EXAMPLES / "quickstart.toml").points[0].spec
    with pytest.raises(OutputError) as e:
        run.execute(spec, out, progress=lambda m: None, arts=_arts(tmp_path))
    assert str(e.value) == f"{out}: cannot make a run directory: {out}: Not a directory"


def test_console_of_a_damaged_committed_run_does_not_wait(sweep_dir, capsys):
    plan = _damaged_sweep(sweep_dir)
    rd = rundir.RunDir(sweep_dir.store / plan.points[1].dir_name)
    rd.write_json(rd.spec_json, plan.points[1].spec)
    rd.console("client").write_text("all of it\n")
    assert cli.main(["console", str(rd.path), "--host", "client"]) == 0
    assert capsys.readouterr().out == "all of it\n"
