"""A study's scales (quick, medium, full), its committed results per scale, a
sweep that takes the points those results hold instead of running them, and
the host hours a dry run estimates. On a study folder of one's own
($G5NET_STUDIES) whose runs are written by the product's writers (the QEMU
end to end: test_study_qemu.py), and on the committed studies. Fast: no run."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from g5net.artifacts.host import REPO
from g5net.engines.gem5 import config_files
from g5net.errors import StudyError
from g5net.metrics import derive as run_metrics
from g5net.model import identity, specs
from g5net.model import sweep as sweepmod
from g5net.runners.plan import planned
from g5net.runs import rundir, store, sweepdir
from g5net.runs.sweepdir import SweepDir
from g5net.study import builtin as catalog
from g5net.study import estimate, report, results
from test_metrics_fixtures import make_run, placement_sweep

# What a gem5 run's record says ran it (runs/record.py): a study commits gem5's runs.
GEM5 = {"engine": {"name": "gem5", "binary": "/opt/gem5/gem5.opt", "version": "24.0.0.1",
                   "digest": "d" * 64, "args": []},
        "artifacts": {"image": {"digest": "i" * 64, "path": "/srv/images/disk.img"}}}
STUDY = """
title = "Toy"
paper = "A. Nobody, 2001"
about = "A toy."
[[finding]]
name = "integrated"
text = "The integrated NIC moves more"
paper = "+5%"
relation = "integrated"
"""
EXPECT = """
[[relation]]
name = "integrated"
by = "host.nic.attach"
expect = ["integrated.server.stream.throughput_mbps > pcie.server.stream.throughput_mbps"]
"""
PAPER = "figure,series,x,y,unit,source\n"


def _study(root: Path, scales: tuple[str, ...] = ("quick", "medium")) -> catalog.Study:
    toy = root / "toy"
    toy.mkdir(parents=True)
    (toy / "study.toml").write_text(STUDY)
    (toy / "paper.csv").write_text(PAPER)
    (toy / "expect.toml").write_text(EXPECT)
    for scale in scales:
        (toy / f"{scale}.toml").write_text((REPO / "examples" / "sweep-quick.toml").read_text())
    return catalog.load("toy", root)


def _sweep(path: Path, finished: int) -> tuple[SweepDir, sweepdir.Plan]:
    """A sweep directory of six points, its first `finished` run on gem5 (with
    gem5's statistics: empty, no dump) and the next still being written, as a
    sweep that is still running leaves it."""
    sd, s = SweepDir(path), placement_sweep()
    plan = sweepdir.Plan("medium.toml", s.parameters,
                         tuple(planned(p, identity.spec_digest(p.spec)) for p in s.points))
    sweepdir.write(sd, plan)
    for p in s.points[:finished]:
        rd = make_run(sd.store, p.spec, ran_on=GEM5)
        rd.m5out.mkdir()
        rd.stats_txt.touch()
    if finished < len(plan.points):
        rundir.begin(sd.store, plan.points[finished].name, plan.points[finished].run_id)
    return sd, plan


def _files(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _cli(studies: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "g5net.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "G5NET_STUDIES": str(studies)})


# ------------------------------------------------------------------- scales

def test_a_study_has_the_scales_it_has_a_spec_of_smallest_first(tmp_path):
    study = _study(tmp_path / "studies", ("full", "medium", "quick"))
    assert catalog.SCALES == ("quick", "medium", "full") and study.scales == list(catalog.SCALES)
    listed = _cli(tmp_path / "studies", tmp_path, "study", "list", "--json")
    assert [s["scales"] for s in json.loads(listed.stdout)] == [["quick", "medium", "full"]]
    helped = _cli(tmp_path / "studies", tmp_path, "study", "run", "--help").stdout
    assert "{quick,medium,full}" in helped and "150 minutes" in helped


def test_each_scale_saves_into_its_own_folder_and_reports_default_to_the_largest_whole_one(tmp_path):
    studies = tmp_path / "studies"
    study = _study(studies)
    quick, _ = _sweep(tmp_path / "quick", 6)
    medium, _ = _sweep(tmp_path / "medium", 4)
    assert results.save(study, "quick", quick.path) == 6
    assert results.save(study, "medium", medium.path) == 4
    # Medium holds 4 of its 6 points (a scale run over several sessions): the
    # whole quick scale stays the one reports show unasked.
    assert results.committed(study) == ["quick", "medium"] and results.largest(study) == "quick"
    made = results.provenance(study, "medium")
    assert (made["scale"], made["runs"], made["points"]) == ("medium", 4, 6)
    assert results.under_way(study, "medium") == (4, 6) and results.under_way(study, "quick") is None
    assert sorted(p.name for p in (study.path / "results").iterdir()) == ["medium", "quick"]

    # `study report` without --scale: the largest whole scale, into report/SCALE.
    done = _cli(studies, tmp_path, "study", "report", "toy")
    assert done.returncode == 0, done.stderr
    assert "Results: studies/toy/results/quick, 6 runs; the committed quick scale, made by" in \
        (study.report_dir("quick") / "report.md").read_text()
    done = _cli(studies, tmp_path, "study", "report", "toy", "--scale", "medium")
    assert done.returncode == 0, done.stderr
    md = (study.report_dir("medium") / "report.md").read_text()
    assert "Results: studies/toy/results/medium, 4 runs; the committed medium scale (4 of its 6 " \
           "points so far), made by gem5 24.0.0.1" in md
    # The README: quick's table, and a line for medium under way.
    block = report.readme_block([study])
    assert "6 runs, quick scale" in block and "The medium scale is under way: 4 of its 6 points" in block

    # g5net.study_results: the largest whole scale, or the one asked for.
    code = "import g5net; print(g5net.study_results('toy')); print(g5net.study_results('toy', 'medium'))"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "G5NET_STUDIES": str(studies)}).stdout.split()
    assert found == [str(study.results("quick")), str(study.results("medium"))]

    # A failed point is not saved: the scale stays under way until it is done.
    failed, _ = _sweep(tmp_path / "medium-failed", 5)
    make_run(failed.store, placement_sweep().points[5].spec, status="failed:engine", ran_on=GEM5)
    assert results.save(study, "medium", failed.path) == 5
    assert results.under_way(study, "medium") == (5, 6)
    assert results.failed(results.provenance(study, "medium")) == 1
    assert "The medium scale is under way: 5 of its 6 points committed, 1 failed (its report says " \
           "why)" in report.readme_block([study])

    # Once medium holds every point, it is the one.
    medium, _ = _sweep(tmp_path / "medium-all", 6)
    assert results.save(study, "medium", medium.path) == 6
    assert results.largest(study) == "medium" and results.under_way(study, "medium") is None


def test_a_save_while_the_sweep_runs_has_the_points_finished_so_far(tmp_path):
    study = _study(tmp_path / "studies")
    sd, plan = _sweep(tmp_path / "sweep", 2)
    assert store.temporaries(sd.store)  # point 2 is being written
    assert results.save(study, "medium", sd.path) == 2
    assert sorted(p.name for p in study.results("medium").iterdir()) == sorted(
        [p.dir_name for p in plan.points[:2]] + [results.PROVENANCE])
    # Once more points finish, saving again replaces the folder whole.
    for p in placement_sweep().points[2:4]:
        make_run(sd.store, p.spec, ran_on=GEM5)
    assert results.save(study, "medium", sd.path) == 4
    assert results.provenance(study, "medium")["runs"] == 4


# ------------------------------------------ resuming from the committed points

def test_results_of_a_kernel_with_other_patches_say_so_in_their_report_and_the_readme(tmp_path):
    studies = tmp_path / "studies"
    study = _study(studies)
    sd, _ = _sweep(tmp_path / "quick", 6)
    results.save(study, "quick", sd.path)
    note = "made on a kernel built from other patches than kernels/patches/ holds now"

    def report_md() -> str:
        done = _cli(studies, tmp_path, "study", "report", "toy")
        assert done.returncode == 0, done.stderr
        return (study.report_dir("quick") / "report.md").read_text()

    # Saved now: today's patches, nothing to say.
    assert results.provenance(study, "quick")["kernel_patches"]
    assert note not in report_md() and note not in report.readme_block([study])
    # Saved before provenance recorded patches (as the quick scales were):
    # still reported (check_current passes them), saying what they ran.
    path = study.results("quick") / results.PROVENANCE
    today = json.loads(path.read_text())
    unrecorded = {k: v for k, v in today.items() if k != "kernel_patches"}
    path.write_text(json.dumps(unrecorded))
    assert f"with configs {today['configs_digest'][:12]}; {note}: to be run again" in report_md()
    said = f"These results were {note}: to be run again, and their figures may change."
    assert said in report.readme_block([study])
    # Recorded on other patches: refused, and the README says the same.
    path.write_text(json.dumps({**today, "kernel_patches": "0" * 64}))
    with pytest.raises(StudyError, match="kernels/patches/ has changed"):
        results.check_current(study, "quick")
    assert said in report.readme_block([study])
    path.write_text(json.dumps(unrecorded))
    assert results.check_current(study, "quick")["runs"] == 6


def test_results_of_superseded_configs_pass_and_say_so_other_configs_are_refused(tmp_path, monkeypatch):
    studies = tmp_path / "studies"
    study = _study(studies)
    sd, _ = _sweep(tmp_path / "quick", 6)
    results.save(study, "quick", sd.path)
    path = study.results("quick") / results.PROVENANCE
    today = json.loads(path.read_text())
    path.write_text(json.dumps({**today, "configs_digest": "1" * 64}))
    with pytest.raises(StudyError, match="made by configs 111111111111, and configs/ is now"):
        results.check_current(study, "quick")
    # Named superseded (a mend whose results are being run again): reported, saying so.
    monkeypatch.setitem(config_files.SUPERSEDED_CONFIGS, "1" * 64, "from before a mend of the toy")
    assert results.check_current(study, "quick")["runs"] == 6
    said = "These results were made on configs from before a mend of the toy: to be run again, " \
        "and their figures may change."
    assert said in report.readme_block([study])


def test_a_sweep_elsewhere_takes_the_committed_points_and_runs_the_rest(tmp_path, capsys, monkeypatch):
    """Four of six points finished on one machine and were saved; on another
    (a sweep directory of its own, nothing in it) the sweep takes those four
    from the committed results: its store, `g5net status` and the sweep's
    choice of points to run count them done."""
    studies = tmp_path / "studies"
    study = _study(studies)
    first, plan = _sweep(tmp_path / "first-machine", 4)
    results.save(study, "medium", first.path)
    committed = _files(study.results("medium"))

    elsewhere = SweepDir(tmp_path / "second-machine")
    sweepdir.write(elsewhere, plan)
    assert results.adopt(study, "medium", elsewhere, plan, dry=True) == {0, 1, 2, 3}
    assert not elsewhere.store.exists()  # a dry run copies nothing
    assert results.adopt(study, "medium", elsewhere, plan) == {0, 1, 2, 3}
    err = capsys.readouterr().err
    assert "4 of 6 points would be taken from the committed results (studies/toy/results/medium)" in err
    assert "4 of 6 points taken from the committed results (studies/toy/results/medium)" in err
    assert [p.index for p in store.to_run(elsewhere, plan, retry_failed=False)] == [4, 5]
    assert [store.status_of(elsewhere.store, p) for p in plan.points] == ["done"] * 4 + [None] * 2
    status = _cli(studies, tmp_path, "status", str(elsewhere.path), "--json")
    assert status.returncode == 1 and json.loads(status.stdout)["counts"] == {"done": 4, "pending": 2}
    # Taken once: a second start finds them in its store.
    assert results.adopt(study, "medium", elsewhere, plan) == set()

    # The other two run here; saving derives their metrics and keeps the four
    # taken runs' committed files as they are (no stats.txt to derive them from).
    for p in placement_sweep().points[4:]:
        rd = make_run(elsewhere.store, p.spec, ran_on=GEM5)
        rd.m5out.mkdir()
        rd.stats_txt.touch()
    derived = []
    compute = run_metrics.compute
    monkeypatch.setattr(run_metrics, "compute", lambda spec, *a: derived.append(spec) or compute(spec, *a))
    assert results.save(study, "medium", elsewhere.path) == 6
    assert len(derived) == 2
    now = _files(study.results("medium"))
    assert {k: v for k, v in now.items() if k in committed and k.name != results.PROVENANCE} == \
        {k: v for k, v in committed.items() if k.name != results.PROVENANCE}
    assert (results.provenance(study, "medium")["runs"], len(now)) == (6, 6 * 3 + 1)


def test_only_finished_runs_of_the_same_id_are_taken(tmp_path, capsys):
    study = _study(tmp_path / "studies")
    first, plan = _sweep(tmp_path / "first", 4)
    results.save(study, "medium", first.path)
    record = study.results("medium") / plan.points[0].dir_name / "run.json"
    record.write_text(json.dumps({**json.loads(record.read_text()), "status": "timeout"}))
    other = study.results("medium") / plan.points[1].dir_name / "run.json"
    other.write_text(json.dumps({**json.loads(other.read_text()), "run_id": "0" * 64}))
    # A run another gem5 binary (say) made: another run id, another directory.
    foreign = study.results("medium") / plan.points[3].dir_name
    record = foreign / "run.json"
    record.write_text(json.dumps({**json.loads(record.read_text()), "run_id": "e" * 64}))
    foreign.rename(foreign.with_name(f"{plan.points[3].name}-{'e' * 12}"))
    elsewhere = SweepDir(tmp_path / "elsewhere")
    assert results.adopt(study, "medium", elsewhere, plan) == {2}
    assert "1 of 6 points taken from the committed results (studies/toy/results/medium); 1 " \
        "committed runs are of no point of this sweep (other run ids: another kernel, " \
        "gem5 binary or configs made them)" in capsys.readouterr().err
    # Without committed results of any scale there is nothing to take, and nothing said.
    bare = _study(tmp_path / "bare")
    assert results.adopt(bare, "quick", SweepDir(tmp_path / "bare-sweep"), plan) == set()
    assert capsys.readouterr().err == ""


def test_a_point_two_scales_share_is_taken_from_the_other_scales_results(tmp_path, capsys):
    """Run ids hash no experiment name: a quick point that is also a medium
    point (the same spec) runs once, and the sweep of either scale takes it
    from the other's committed results, saying so."""
    study = _study(tmp_path / "studies")
    first, plan = _sweep(tmp_path / "first", 4)
    results.save(study, "medium", first.path)
    quick = SweepDir(tmp_path / "quick-sweep")
    sweepdir.write(quick, plan)
    assert results.adopt(study, "quick", quick, plan) == {0, 1, 2, 3}
    assert "4 of 6 points taken from the committed results (studies/toy/results/medium); 4 of them " \
        "from the medium scale's, whose points they are too" in capsys.readouterr().err
    # Saved as the quick scale's, then taken by a medium sweep elsewhere from
    # its own scale first.
    results.save(study, "quick", quick.path)
    assert {d.name for d in study.results("quick").iterdir() if d.is_dir()} == \
        {d.name for d in study.results("medium").iterdir() if d.is_dir()}
    medium = SweepDir(tmp_path / "medium-sweep")
    sweepdir.write(medium, plan)
    assert results.adopt(study, "medium", medium, plan) == {0, 1, 2, 3}
    assert "4 of 6 points taken from the committed results (studies/toy/results/medium, " \
        "studies/toy/results/quick)\n" in capsys.readouterr().err


def test_committed_runs_of_points_the_scale_no_longer_has_are_told_from_those_of_other_ids(tmp_path, capsys):
    """A scale's file edited since its runs (a key set, a sweep value changed)
    leaves runs of points it no longer has: said so, apart from runs of its
    points that another kernel or gem5 binary made."""
    study = _study(tmp_path / "studies")
    first, plan = _sweep(tmp_path / "first", 4)
    results.save(study, "medium", first.path)
    edited = study.results("medium") / plan.points[0].dir_name / "run.json"
    record = json.loads(edited.read_text())
    record["spec"]["hosts"]["server"]["memory_mb"] *= 2
    edited.write_text(json.dumps({**record, "run_id": "a" * 64}))
    foreign = study.results("medium") / plan.points[1].dir_name / "run.json"
    foreign.write_text(json.dumps({**json.loads(foreign.read_text()), "run_id": "e" * 64}))
    for k, (record, digit) in enumerate([(edited, "a"), (foreign, "e")]):
        record.parent.rename(record.parent.with_name(f"{plan.points[k].name}-{digit * 12}"))
    assert results.adopt(study, "medium", SweepDir(tmp_path / "elsewhere"), plan) == {2, 3}
    assert "2 of 6 points taken from the committed results (studies/toy/results/medium); 1 committed " \
        "runs are of points the scale no longer has (its file changed since they ran); 1 committed " \
        "runs are of no point of this sweep (other run ids: another kernel, gem5 binary or configs " \
        "made them)" in capsys.readouterr().err


def test_a_sweep_elsewhere_takes_the_runs_of_its_points_on_another_disk_image(tmp_path, capsys, monkeypatch):
    """Debian updates the guest's packages (libc6, libssl3, ...) between one
    machine's disk image and the next one's, and run ids hash the image: a
    committed run that is the point's but for the image is taken, and said;
    one whose kernel was another is not. Saved again, each keeps its own id."""
    study = _study(tmp_path / "studies")
    engine = {"name": "gem5", "digest": "d" * 64}
    points = placement_sweep().points

    def made_on(image: str, kernel: str = "k" * 64) -> dict:
        return {**GEM5, "identity": identity.record(engine),
                "artifacts": {"kernel-smp": {"digest": kernel, "path": "/srv/bzImage"},
                              "image": {"digest": image, "path": "/srv/disk.img"}}}

    def plan_of(sd: SweepDir, ran: dict[int, dict], image: str) -> sweepdir.Plan:
        ids = [identity.run_id(p.spec, {n: a["digest"] for n, a in
                                        ran.get(p.index, made_on(image))["artifacts"].items()}, engine)
               for p in points]
        plan = sweepdir.Plan("medium.toml", placement_sweep().parameters,
                             tuple(planned(p, i) for p, i in zip(points, ids)))
        sweepdir.write(sd, plan)
        return plan

    first = SweepDir(tmp_path / "first-machine")
    ran = {0: made_on("a" * 64), 1: made_on("a" * 64), 2: made_on("a" * 64, kernel="K" * 64)}
    plan = plan_of(first, ran, "a" * 64)
    for p in points[:3]:
        rd = make_run(first.store, p.spec, ran_on=ran[p.index], run_id=plan.points[p.index].run_id)
        rd.m5out.mkdir()
        rd.stats_txt.touch()
    results.save(study, "medium", first.path)

    elsewhere = SweepDir(tmp_path / "second-machine")
    plan = plan_of(elsewhere, {}, "b" * 64)
    committed = results.adoptable(study, "medium", plan, "b" * 64)
    assert [p.index for p, _ in committed] == [0, 1]
    assert results.adoptable(study, "medium", plan) == []  # the same ids only
    monkeypatch.setattr(results, "_image_digest", lambda: "b" * 64)  # this machine's image
    assert results.adopt(study, "medium", elsewhere, plan) == {0, 1}
    assert "2 of 6 points taken from the committed results (studies/toy/results/medium); 2 of " \
        f"them booted another disk image than this machine's ({'b' * 12}: " in capsys.readouterr().err
    assert [store.status_of(elsewhere.store, p) for p in plan.points] == ["done"] * 2 + [None] * 4
    # A point run here, on this machine's image, beside them.
    rd = make_run(elsewhere.store, points[3].spec, ran_on=made_on("b" * 64), run_id=plan.points[3].run_id)
    rd.m5out.mkdir()
    rd.stats_txt.touch()
    results.save(study, "medium", elsewhere.path)
    images = {}
    for rd in (d for d in study.results("medium").iterdir() if d.is_dir()):
        record = json.loads((rd / "run.json").read_text())
        assert rd.name == rundir.dir_name(record["name"], record["run_id"])
        images[record["run_id"]] = record["artifacts"]["image"]["digest"]
    assert sorted(images.values()) == ["a" * 64] * 2 + ["b" * 64]
    made = results.provenance(study, "medium")
    assert made["disk_images"] == ["a" * 64, "b" * 64]
    assert results.images(made) == f"its runs booted 2 disk images ({'a' * 12}, {'b' * 12}: Debian's " \
        "updates of the guest's packages between machines; each run.json names its own)"


# ------------------------------------------------------- host hours, estimated

def test_the_committed_runs_give_rates_by_cpu_model():
    rates = estimate.measured()
    # The quick scales run the timing CPU alone (O3 is the medium scales', sampled).
    assert rates.runs >= 10 and "timing" in rates.by_model
    for rate in rates.by_model.values():
        # The studies measure their streams as windows: the simulated time
        # before the warm-up is what a windowed point's estimate adds.
        assert rate.sim_ms_per_host_s > 0 and rate.windows_start_s is not None
    assert rates.boots > 0 and all(s > 0 for s in rates.boot_s_per_host.values())


def test_a_cpu_model_no_committed_run_measured_has_no_estimate():
    rates = estimate.measured()
    point = sweepmod.load(catalog.load("netframe").spec("full")).points[0]
    seconds, why = estimate.point_host_s(rates, point.spec)
    assert seconds is not None and seconds > 0 and why == ""
    data = point.spec.to_dict()
    for host in data["hosts"].values():
        host["cpu"]["model"] = "minor"
    assert estimate.point_host_s(rates, specs.from_dict(data)) == \
        (None, "CPU model minor: no committed run measured it")
    # A windowed stream: more windows, more simulated time after its start.
    longer = point.spec.to_dict()
    longer["experiment"]["windows"] *= 2
    assert estimate.point_host_s(rates, specs.from_dict(longer))[0] > seconds
    longer["experiment"]["window_method"] = "sampled"
    assert estimate.point_host_s(rates, specs.from_dict(longer)) == \
        (None, "CPU model timing: no committed run of sampled windows measured it")
    # More hosts, more host time: the rate is per simulated host.
    more = point.spec.to_dict()
    more["hosts"]["client"]["replicas"] = 3
    bigger = specs.from_dict(more)
    assert len(bigger.hosts) > len(point.spec.hosts)
    assert estimate.point_host_s(rates, bigger)[0] > seconds


def test_a_point_takes_the_rates_of_committed_runs_of_its_own_shape():
    rates = estimate.measured()
    point = sweepmod.load(catalog.load("niagara2-nic").spec("quick")).points[0]
    assert ("timing", "16 CPUs a host, PC-sampled") in rates.by_shape  # 2 x 8 threads
    own = estimate.point_host_s(rates, point.spec)[0]
    pooled = estimate.point_host_s(dataclasses.replace(rates, by_shape={}), point.spec)[0]
    assert own and pooled and own != pooled
    # A shape no committed run has takes every run of its CPU model.
    data = point.spec.to_dict()
    data["experiment"]["pc_sample_us"] = 0
    for host in data["hosts"].values():
        host["cpu"]["cores"] = 3
    odd = specs.from_dict(data)
    assert estimate.point_host_s(rates, odd) == estimate.point_host_s(
        dataclasses.replace(rates, by_shape={}), odd)


# NetFrame's full grid plans 1,260 points: a minute of planning on its own.
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "netframe" else n
                                  for n in catalog.names()])
def test_a_full_scale_dry_run_estimates_host_hours_from_the_committed_runs(name, tmp_path):
    """Before anything is built (an empty cache): every point's estimate, its
    basis and the total (the 10GbE and sockets grids' consecutive O3 windows
    at the pace of the committed O3 runs' sampled windows)."""
    env = {**os.environ, "G5NET_CACHE": str(tmp_path / "cache")}
    as_json = subprocess.run([sys.executable, "-m", "g5net.cli", "study", "run", name, "--scale", "full",
                              "--dry-run", "--json", "--out", str(tmp_path / "sweep")],
                             capture_output=True, text=True, env=env, cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    rows = json.loads(as_json.stdout)
    assert rows and all(r["host_hours"] > 0 for r in rows)
    text = subprocess.run([sys.executable, "-m", "g5net.cli", "study", "run", name, "--scale", "full",
                           "--dry-run", "--out", str(tmp_path / "sweep")],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    total = next(line for line in text.stdout.splitlines() if line.startswith("Estimate: "))
    assert float(total.split()[1]) == pytest.approx(sum(r["host_hours"] for r in rows), rel=0.01)
    assert f"for the {len(rows)} points to run" in total
    assert "Host time estimated from " in text.stdout and " committed runs " in text.stdout
    assert "simulated ms per host s" in text.stdout


def test_sampled_points_are_estimated_from_committed_sampled_runs_and_share_their_fast_forward(tmp_path):
    """A committed run of sampled windows records where its host time went
    (timings.sampled); a dry run of points that share a fast-forward (they
    differ in what a window builds afresh) counts it once."""
    studies = tmp_path / "studies"
    study = _study(studies, ())
    sampled_text = (REPO / "examples" / "sampled-gem5.toml").read_text()
    (study.path / "medium.toml").write_text(sampled_text + '\n[sweep]\n"experiment.window_ms" = [5.0, 10.0]\n')
    # What examples/sampled-gem5.toml's run took, as run.json would say: 8
    # windows (10 ms functional, 2 ms detailed warming, 5 ms window) of 75 s
    # each, and a fast-forward of 400 s over 110 simulated ms, 90 of them
    # after the flows connected (warm-up 20 ms, checkpoints 10 ms apart).
    spec = specs.loads(sampled_text)
    rd = make_run(tmp_path / "runs", spec, ran_on=GEM5)
    record = json.loads(rd.run_json.read_text())
    record["timings"].update(wall_s=1000.0, boot_s={}, sampled={
        "fast_forward": {"wall_s": 400.0, "simulated_s": 0.110, "this_run": True},
        "windows_wall_s": [75.0] * 8})
    rd.run_json.write_text(json.dumps(record))
    # A run whose record of them is damaged measures nothing here.
    other = make_run(tmp_path / "runs", specs.loads(sampled_text.replace("window_ms = 5.0", "window_ms = 6.0")),
                     ran_on=GEM5)
    damaged = json.loads(other.run_json.read_text())
    damaged["timings"].update(wall_s=1000.0, sampled={"fast_forward": [400.0], "windows_wall_s": "75"})
    other.run_json.write_text(json.dumps(damaged))
    assert results.save(study, "quick", tmp_path / "runs") == 2

    rates = estimate.measured(studies)
    rate = rates.sampled_by_model["timing"]
    assert rate.runs == 1 and rate.fast_forward_start_s == pytest.approx(0.020)
    assert rate.fast_forward_ms_per_host_s == pytest.approx(110 * 2 / 400)
    assert rate.window_ms_per_host_s == pytest.approx(17 * 2 * 8 / 600)
    # The run itself comes out at what it took.
    assert estimate.point_host_s(rates, spec) == (pytest.approx(1000.0), "")
    # Its detailed part alone: each window's 75 s less its 10 ms of functional
    # warming at the fast-forward's pace (400 s for 110 ms), over 2 + 5 ms.
    detailed_s = 75.0 - 0.010 * 400 / 0.110
    assert rate.detailed_ms_per_host_s == pytest.approx(7 * 2 / detailed_s)
    # A run of consecutive windows of the same spec, on a model no committed
    # consecutive run measured, runs at that pace from the restore: the 20 ms
    # before the flows connected (the fast-forward's), its warm-up and windows.
    consecutive = dataclasses.replace(spec, experiment=dataclasses.replace(
        spec.experiment, window_method="consecutive"))
    windows_s = (0.020 + (spec.experiment.warmup_ms + spec.experiment.windows * spec.experiment.window_ms) * 1e-3)
    assert estimate.point_host_s(rates, consecutive) == \
        (pytest.approx(windows_s * 2 / (rate.detailed_ms_per_host_s * 1e-3)), "")

    env = {**os.environ, "G5NET_STUDIES": str(studies), "G5NET_CACHE": str(tmp_path / "cache")}
    dry = subprocess.run([sys.executable, "-m", "g5net.cli", "study", "run", "toy", "--scale", "medium",
                          "--dry-run", "--json", "--out", str(tmp_path / "sweep")],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    rows = json.loads(dry.stdout)
    # The first point fast-forwards (400 s) and measures 8 windows of 17 ms
    # (600 s); the second takes its fast-forward and measures 8 of 22 ms.
    assert [r["host_hours"] * 3600 for r in rows] == [pytest.approx(1000.0, rel=1e-3),
                                                       pytest.approx(600.0 * 22 / 17, rel=1e-3)]


def test_a_run_of_repeats_without_windows_is_estimated_at_what_it_took(tmp_path):
    """A run of experiment.repeats records its repeats' host and simulated
    seconds summed (runners/execute.py); its regions are one repeat's. A
    point like it takes each repeat again, and a run without windows spends
    simulated time besides its workloads' regions (the job starting, NetPIPE's
    peers connecting), which its estimate counts as the windowed ones do."""
    studies = tmp_path / "studies"
    study = _study(studies, ())
    text = (REPO / "examples" / "quickstart-gem5.toml").read_text()
    data = specs.loads(text).to_dict()
    data["experiment"].update(windows=0, repeats=3, workloads=["latency"])
    spec = specs.from_dict(data)
    (study.path / "quick.toml").write_text(text)
    rd = make_run(tmp_path / "runs", spec, ran_on=GEM5)
    # What 3 repeats of 0.2 simulated s took: 300 host s, NetPIPE's region 0.05 s of each.
    record = json.loads(rd.run_json.read_text())
    record["timings"].update(wall_s=300.0, boot_s={}, simulated_s=0.6)
    rd.run_json.write_text(json.dumps(record))
    rd.metrics_json.write_text(json.dumps({"hosts": {h.name: {"latency": {"elapsed_s": 0.05}} for h in spec.hosts},
                                           "aggregate": {}}))
    assert results.save(study, "quick", tmp_path / "runs") == 1

    rate = estimate.measured(studies).by_model["timing"]
    assert rate.runs == 1 and rate.sim_ms_per_host_s == pytest.approx(0.6 * 2 * 1e3 / 300)
    assert rate.start_s == pytest.approx(0.15) and rate.kind_region_s == {"netpipe": pytest.approx(0.05)}
    assert estimate.point_host_s(estimate.measured(studies), spec) == (pytest.approx(300.0), "")
    data["experiment"]["repeats"] = 1
    assert estimate.point_host_s(estimate.measured(studies), specs.from_dict(data)) == (pytest.approx(100.0), "")
