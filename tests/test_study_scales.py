"""A study's scales (quick, medium, full) and its committed results per
scale. On a study folder of one's own ($G5NET_STUDIES) whose runs are
written by the product's writers (the QEMU end to end: test_study_qemu.py).
Fast: no run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from g5net.artifacts.host import REPO
from g5net.model import identity
from g5net.runners.plan import planned
from g5net.runs import rundir, store, sweepdir
from g5net.runs.sweepdir import SweepDir
from g5net.study import builtin as catalog
from g5net.study import results
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


def test_each_scale_saves_into_its_own_folder_and_reports_default_to_the_largest(tmp_path):
    studies = tmp_path / "studies"
    study = _study(studies)
    quick, _ = _sweep(tmp_path / "quick", 6)
    medium, _ = _sweep(tmp_path / "medium", 4)
    assert results.save(study, "quick", quick.path) == 6
    assert results.save(study, "medium", medium.path) == 4
    assert results.committed(study) == ["quick", "medium"] and results.largest(study) == "medium"
    made = results.provenance(study, "medium")
    assert (made["scale"], made["runs"], made["points"]) == ("medium", 4, 6)
    assert sorted(p.name for p in (study.path / "results").iterdir()) == ["medium", "quick"]

    # `study report` without --scale: the largest committed scale, into report/SCALE.
    done = _cli(studies, tmp_path, "study", "report", "toy")
    assert done.returncode == 0, done.stderr
    md = (study.report_dir("medium") / "report.md").read_text()
    assert "Results: studies/toy/results/medium, 4 runs; the committed medium scale (4 of its 6 " \
           "points so far), made by gem5 24.0.0.1" in md
    done = _cli(studies, tmp_path, "study", "report", "toy", "--scale", "quick")
    assert done.returncode == 0, done.stderr
    assert "Results: studies/toy/results/quick, 6 runs; the committed quick scale, made by" in \
        (study.report_dir("quick") / "report.md").read_text()

    # g5net.study_results: the largest committed scale, or the one asked for.
    code = "import g5net; print(g5net.study_results('toy')); print(g5net.study_results('toy', 'quick'))"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "G5NET_STUDIES": str(studies)}).stdout.split()
    assert found == [str(study.results("medium")), str(study.results("quick"))]


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
