"""`g5net study save` (g5net/study/results.py): what a study commits names no
machine's folders, and a save that fails leaves the committed results as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from g5net.artifacts import cache
from g5net.errors import G5netError
from g5net.metrics import derive as run_metrics
from g5net.model import specs
from g5net.runs import record as run_record
from g5net.study import results
from g5net.study.builtin import Study
from test_metrics_fixtures import make_run, quickstart_spec

def _strings(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for v in data.values():
            yield from _strings(v)
    elif isinstance(data, list):
        for v in data:
            yield from _strings(v)
    elif isinstance(data, str):
        yield data


def _without_paths(record: dict) -> dict:
    out = json.loads(json.dumps(record))
    del out["engine"]["binary"]
    for artifact in out["artifacts"].values():
        del artifact["path"]
    return out


@pytest.fixture
def gem5_runs(tmp_path: Path, monkeypatch) -> Path:
    """A gem5 run, as g5net run records one: the binary and kernel in g5net's
    cache, the image in a folder of the user's own."""
    monkeypatch.setenv("G5NET_CACHE", str(tmp_path / "cache"))
    ran_on = {"engine": {"name": "gem5", "binary": str(tmp_path / "cache" / "gem5" / "ab12" / "gem5.opt"),
                         "version": "24.0.0.1", "digest": "d" * 64, "args": []},
              "artifacts": {"kernel-up": {"digest": "k" * 64,
                                          "path": str(tmp_path / "cache" / "kernel" / "up-1" / "bzImage")},
                            "image": {"digest": "i" * 64, "path": str(tmp_path / "mine" / "disk.img")}}}
    rd = make_run(tmp_path / "runs", quickstart_spec(), ran_on=ran_on)
    # gem5's statistics, which save derives metrics.json from (empty here: no
    # dump, the guest's figures alone).
    rd.m5out.mkdir()
    rd.stats_txt.touch()
    return tmp_path / "runs"


def _study(tmp_path: Path) -> Study:
    return Study("toy", tmp_path / "studies" / "toy", "Toy", "", "", (), (), ())


def test_saved_records_name_files_in_the_cache_relative_to_it_and_nothing_else(tmp_path, gem5_runs):
    study = _study(tmp_path)
    assert results.save(study, "quick", gem5_runs) == 1
    [saved] = study.results("quick").glob("*/run.json")
    record = json.loads(saved.read_text())
    assert record["engine"]["binary"] == "$G5NET_CACHE/gem5/ab12/gem5.opt"
    assert record["artifacts"]["kernel-up"]["path"] == "$G5NET_CACHE/kernel/up-1/bzImage"
    assert record["artifacts"]["image"]["path"] == "<elsewhere>/disk.img"
    original = json.loads((gem5_runs / saved.parent.name / "run.json").read_text())
    assert _without_paths(record) == _without_paths(original)
    everything = [s for f in study.results("quick").rglob("*.json") for s in _strings(json.loads(f.read_text()))]
    assert not [s for s in everything if s.startswith("/") or str(tmp_path) in s]
    # Saving a portable record again changes nothing.
    assert run_record.portable(record) == record


def test_a_failed_save_leaves_the_committed_results_as_they_were(tmp_path, gem5_runs, monkeypatch):
    study = _study(tmp_path)
    results.save(study, "quick", gem5_runs)
    committed = study.results("quick")
    before = {p.relative_to(committed): p.read_bytes() for p in committed.rglob("*") if p.is_file()}

    def broken(*args, **kwargs):
        raise G5netError("stats.txt unreadable")
    monkeypatch.setattr(run_metrics, "compute", broken)
    with pytest.raises(G5netError):
        results.save(study, "quick", gem5_runs)
    after = {p.relative_to(committed): p.read_bytes() for p in committed.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in study.path.iterdir()) == ["results"]
    assert sorted(p.name for p in (study.path / "results").iterdir()) == ["quick"]


def test_cache_paths_are_portable_once(tmp_path: Path):
    root = tmp_path / "cache"
    assert cache.portable(str(root / "image" / "x" / "disk.img"), root) == "$G5NET_CACHE/image/x/disk.img"
    assert cache.portable(str(tmp_path / "cache-other" / "gem5.opt"), root) == "<elsewhere>/gem5.opt"
    assert cache.portable("$G5NET_CACHE/image/x/disk.img", root) == "$G5NET_CACHE/image/x/disk.img"
    assert cache.portable_text(f"image_file={root}/image/x/disk.img\nobject_file={root}/k/vmlinux\n", root) \
        == "image_file=$G5NET_CACHE/image/x/disk.img\nobject_file=$G5NET_CACHE/k/vmlinux\n"


def test_committed_records_name_no_machine_folders():
    """Every study's committed results and every gem5 fixture, as saved above
    and by scripts/gem5_fixtures.py: no absolute path in a record or config.ini."""
    repo = Path(__file__).resolve().parents[1]
    records = sorted(repo.glob("studies/*/results/*/**/*.json")) + sorted(repo.glob("tests/fixtures/gem5-*/*.json"))
    assert len(records) > 50
    found = {f.relative_to(repo): s for f in records for s in _strings(json.loads(f.read_text()))
             if s.startswith("/")}
    configs = sorted(repo.glob("tests/fixtures/gem5-*/m5out/config.ini"))
    found.update({f.relative_to(repo): line for f in configs for line in f.read_text().splitlines()
                  if line.partition("=")[2].startswith("/")})
    # Every fixture kept with gem5's own files has its config.ini; a per-host
    # run's stats.txt is merged from its processes', each of which had its own.
    with_stats = sorted(s for s in repo.glob("tests/fixtures/gem5-*/m5out/stats.txt")
                        if json.loads((s.parents[1] / "provenance.json").read_text()).get("processes") != "per-host")
    assert [c.parent for c in configs] == [s.parent for s in with_stats] and len(configs) >= 6
    assert found == {}


def test_a_save_that_changes_nothing_keeps_the_date_it_was_saved(tmp_path, gem5_runs):
    """`scripts/study_in_background.sh` saves every few minutes: a save of the
    same runs leaves provenance.json as it was, so it makes no commit; one
    more run dates the save anew."""
    study = _study(tmp_path)
    results.save(study, "quick", gem5_runs)
    provenance = study.results("quick") / results.PROVENANCE
    first = json.loads(provenance.read_text())
    first["saved"] = "2020-01-01T00:00:00+00:00"
    provenance.write_text(json.dumps(first))
    results.save(study, "quick", gem5_runs)
    assert json.loads(provenance.read_text()) == first
    first_run = next(gem5_runs.glob("*/run.json"))
    ran_on = {k: v for k, v in json.loads(first_run.read_text()).items() if k in ("engine", "artifacts")}
    other = quickstart_spec().to_dict()
    other["experiment"]["name"] = "toy-other"
    rd = make_run(gem5_runs, specs.from_dict(other), ran_on=ran_on)
    rd.m5out.mkdir()
    rd.stats_txt.touch()
    results.save(study, "quick", gem5_runs)
    again = json.loads(provenance.read_text())
    assert again["runs"] == 2 and again["saved"] != first["saved"]
