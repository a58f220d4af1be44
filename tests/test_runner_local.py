"""The local pool's own duties, with real worker processes: a worker that dies
or hangs is recorded and the pool goes on; nothing half-made is left behind."""

import dataclasses
import io
import time

import pytest
from conftest import EXAMPLES

from g5net.model import sweep
from g5net.runners import local
from g5net.runners.display import Display
from g5net.runners.plan import planned
from g5net.runs import store, sweepdir
from g5net.runs.sweepdir import SweepDir


def _sweep_dir(tmp_path, count: int, **changes) -> tuple[SweepDir, sweepdir.Plan]:
    s = sweep.load(EXAMPLES / "sweep-quick.toml")
    points = tuple(dataclasses.replace(planned(p, f"{p.index:02d}" * 32), **changes)
                   for p in s.points[:count])
    sd = SweepDir(tmp_path / "sweep")
    plan = sweepdir.Plan("test", s.parameters, points)
    sweepdir.write(sd, plan)
    return sd, plan


def _run(sd: SweepDir, plan: sweepdir.Plan, jobs: int) -> list[local.Finished]:
    return local.run(sd, list(plan.points), jobs, Display(len(plan.points), jobs, io.StringIO()))


def test_dead_workers_are_recorded_and_the_pool_goes_on(tmp_path):
    # A spec the worker cannot load: it exits with an error before any run.
    sd, plan = _sweep_dir(tmp_path, 3, spec={"experiment": {"bogus": 1}, "hosts": {}})
    finished = _run(sd, plan, jobs=2)
    assert sorted(f.point.index for f in finished) == [0, 1, 2]
    assert {f.status for f in finished} == {"failed:internal"}
    for p in plan.points:
        record = store.find(sd.store, p).read_run()
        assert "worker exited with status 2" in record["failure"]["reasons"][0]
        assert "experiment.bogus: unknown key" in record["failure"]["reasons"][1]
        assert sd.point_log(p.index).exists()
    assert store.temporaries(sd.store) == []
    assert store.to_run(sd, plan, retry_failed=False) == []
    assert store.to_run(sd, plan, retry_failed=True) == list(plan.points)


def test_hung_worker_is_killed_at_its_time_limit(tmp_path):
    sd, plan = _sweep_dir(tmp_path, 2)
    plan = dataclasses.replace(plan, points=tuple(
        dataclasses.replace(p, resources=dataclasses.replace(p.resources, time_s=0)) for p in plan.points))
    finished = _run(sd, plan, jobs=2)
    assert {f.status for f in finished} == {"timeout"}
    assert all(f.wall_s < local.STOP_GRACE_S for f in finished)
    record = store.find(sd.store, plan.points[0]).read_run()
    assert "killed" in record["failure"]["reasons"][0]
    assert store.temporaries(sd.store) == []


@pytest.mark.slow
def test_first_workers_start_apart(tmp_path, monkeypatch):
    # Real points, stopped at their time limit before any of them finishes.
    sd, plan = _sweep_dir(tmp_path, 2)
    limit_s = local.RAMP_S + 2
    plan = dataclasses.replace(plan, points=tuple(
        dataclasses.replace(p, resources=dataclasses.replace(p.resources, time_s=limit_s))
        for p in plan.points))
    launched = []
    launch = local._launch

    def timed_launch(sd, point):
        launched.append(time.monotonic())
        return launch(sd, point)
    monkeypatch.setattr(local, "_launch", timed_launch)
    finished = _run(sd, plan, jobs=2)
    assert {f.status for f in finished} == {"timeout"}
    assert local.RAMP_S <= launched[1] - launched[0] < limit_s


def test_default_jobs_respects_cores_and_memory(tmp_path, monkeypatch):
    sd, plan = _sweep_dir(tmp_path, 1)
    monkeypatch.setattr(local, "_available_mb", lambda: 100_000)
    assert local.default_jobs(list(plan.points)) == len(local.os.sched_getaffinity(0))
    monkeypatch.setattr(local, "_available_mb", lambda: 1500)  # one 1024 MiB point fits
    assert local.default_jobs(list(plan.points)) == 1


@pytest.mark.parametrize("tty", [False, True])
def test_display_counts(tty):
    out = io.StringIO()
    out.isatty = lambda: tty
    d = Display(6, 2, out)
    d.finished(10.0)
    d.update({"done": 1, "failed:boot": 1, "running": 2, "pending": 2}, final=True)
    text = out.getvalue()
    assert "1/6 done, 1 failed, 2 running, 2 waiting" in text
    assert "left" in text
