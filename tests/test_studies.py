"""Every study folder is consistent with the code as it is: each scale's sweep
expands to valid specs, each expected relation compares values its sweep
takes, each finding names a relation that exists, and the committed results,
report and README summary agree with each other and with configs/. Fast: no run."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from test_report_figures import server_stream, windowed_study

from g5net.analysis import check
from g5net.artifacts import kernels
from g5net.artifacts.host import REPO
from g5net.engines.gem5.config_files import SUPERSEDED_CONFIGS, configs_digest
from g5net.errors import StudyError
from g5net.model import identity, specs, sweep
from g5net.report import runs as runsmod
from g5net.report.runs import fmt_value
from g5net.runs.rundir import RunDir
from g5net.study import builtin as catalog
from g5net.study import findings, report, results

STUDIES = catalog.names()


def test_there_are_five_studies():
    assert len(STUDIES) == 5, STUDIES


@pytest.mark.parametrize("name", STUDIES)
def test_each_scale_expands_and_each_relation_compares_swept_values(name):
    """A relation or figure whose key or values a scale does not sweep is not
    tested or drawn at that scale (the quick Niagara 2 study has one connection
    count); some scale must sweep them."""
    study = catalog.load(name)
    relations = check.load(study.expect).relations
    taken: dict[str, set[str]] = {}
    for scale in study.scales:
        for p in sweep.load(study.spec(scale)).points:
            for key, value in p.params.items():
                taken.setdefault(key, set()).add(fmt_value(value))
    for r in relations:
        assert r.by in taken, f"{name}: relation {r.name!r} is by {r.by}, swept by no scale"
        for label in (r.left_label, r.right_label):
            assert label in taken[r.by], f"{name}: relation {r.name!r}: {r.by} never takes {label!r} ({taken[r.by]})"
    for f in study.figures:
        assert f.x in taken, f"{name}: figure {f.name!r} plots against {f.x}, swept by no scale"


# How many of each quick scale's points are points of its medium scale: run
# ids hash no experiment name, so these are run once for both (results.adopt).
# multi-nic's fifth is one NIC in an x8 slot on the timing CPU (medium's x8 is
# on O3); 10gbe's quick knobs are on the timing CPU, medium's on O3.
QUICK_IN_MEDIUM = {"10gbe": (0, 8), "multi-nic": (4, 5), "netframe": (8, 8), "sockets": (7, 7),
                   "niagara2-nic": (3, 3)}


@pytest.mark.parametrize("name", STUDIES)
def test_quick_scales_are_made_of_medium_points(name):
    study = catalog.load(name)
    quick, medium = ({identity.spec_digest(p.spec) for p in sweep.load(study.spec(s)).points}
                     for s in ("quick", "medium"))
    assert (len(quick & medium), len(quick)) == QUICK_IN_MEDIUM[name]


@pytest.mark.parametrize("name", STUDIES)
def test_each_finding_names_a_relation_that_exists(name):
    study = catalog.load(name)
    relations = {r.name for r in check.load(study.expect).relations}
    for finding in study.findings:
        assert not finding.relation or finding.relation in relations, (name, finding.name)


# ----------------------------------------------- the committed results
# Each study's scales that have results, run on gem5 by the committed code and
# saved with `g5net study save NAME --scale SCALE` into studies/NAME/results/SCALE:
# current with configs/, reported as committed, and their findings honest
# about what did not reproduce.

COMMITTED = [(n, scale) for n in STUDIES for scale in results.committed(catalog.load(n))]


def test_every_study_has_its_quick_results_committed():
    assert {n for n, scale in COMMITTED if scale == "quick"} == set(STUDIES)


def _committed(name: str, scale: str) -> tuple[catalog.Study, list]:
    study = catalog.load(name)
    results.check_current(study, scale)  # StudyError (stale or missing) says what to run
    return study, runsmod.load(study.results(scale))


@pytest.mark.parametrize("name, scale", COMMITTED)
def test_committed_results_are_points_of_their_scale_done_by_the_current_configs(name, scale):
    """Every committed scale is current with configs/ (`make test` fails where
    configs changed since) and holds at least the points finished when it was
    saved (a scale interrupted on one machine resumes on another from them)."""
    study, runs = _committed(name, scale)
    made = results.provenance(study, scale)
    assert made["scale"] == scale and made["gem5_version"]
    points = sweep.load(study.spec(scale)).points
    assert made["runs"] == len(runs) and made.get("points", len(points)) == len(points)
    assert 0 < len(runs) <= len(points)
    assert {r.status for r in runs} == {"done"}
    # Named by the scale's experiment, or another scale's that had the point first (adopt).
    names = {sweep.load(study.spec(s)).points[0].spec.experiment.name for s in study.scales}
    assert {r.name.rsplit("-", 1)[0] for r in runs} <= names
    # Each ran a point as the scale's TOML writes it now (as run ids weigh a
    # spec: a key added since, at the value every run had before, is no change):
    # an edited scale has its changed points run again, which `g5net study run`
    # would not take from here.
    written = {identity.spec_digest(p.spec) for p in points}
    for r in runs:
        ran = identity.spec_digest(specs.from_dict(RunDir(r.path).read_run()["spec"]))
        assert ran in written, f"{r.path} ran a point that {study.spec(scale)} no longer has: run the scale again"


def test_every_superseded_configs_digest_still_has_results_being_run_again():
    """A digest SUPERSEDED_CONFIGS keeps current is held by a committed study
    scale or fixture still to be run again; once none holds it, its entry goes,
    and with it what let those results pass."""
    made = {json.loads(p.read_text())["configs_digest"]
            for p in [*REPO.glob("studies/*/results/*/provenance.json"),
                      *REPO.glob("tests/fixtures/gem5-*/provenance.json")]}
    for digest in SUPERSEDED_CONFIGS:
        assert digest in made, f"no committed result has configs {digest[:12]} any more: " \
            "take it out of SUPERSEDED_CONFIGS (g5net/engines/gem5/config_files.py)"


@pytest.mark.parametrize("name, scale", COMMITTED)
def test_superseded_results_say_so_in_their_report(name, scale):
    """A scale made by configs a mend superseded says so where it is read."""
    study = catalog.load(name)
    made = results.provenance(study, scale)
    report = (REPO / "studies" / name / "report" / scale / "report.md").read_text()
    said = results.superseded(made)
    assert (said is not None and said in report) == (made["configs_digest"] in SUPERSEDED_CONFIGS)


@pytest.mark.parametrize("name, scale", COMMITTED)
def test_committed_results_booted_kernels_of_todays_patches(name, scale):
    """A kernel patch changes what a guest does as much as a config does: a
    scale saved before kernels/patches last changed is to be run again
    (results.check_current refuses it once it records its patches)."""
    study = catalog.load(name)
    provenance = results.provenance(study, scale)
    now = kernels.current_patches_digest()
    assert provenance.get("kernel_patches") == now, \
        f"{name} {scale}: kernels/patches changed since it was saved: run the scale again"
    # Its O3 hosts, if any, booted the O3 builds, with kernels/patches-o3 too.
    on_o3 = any(kernels.boots_o3(h)
                for r in study.results(scale).glob("*/run.json")
                for h in specs.from_dict(json.loads(r.read_text())["spec"]).hosts)
    assert provenance.get("kernel_patches_o3") == (kernels.current_o3_patches_digest() if on_o3 else None), \
        f"{name} {scale}: its O3 hosts' kernel patches are not today's: run the scale again"


@pytest.mark.parametrize("name, scale", COMMITTED)
def test_the_check_file_passes_on_every_reproduced_finding_and_fails_on_the_rest(name, scale):
    """A finding not reproduced says why (its `why`, written from the measured
    values); the expect.toml relations of reproduced findings pass `g5net check`,
    those of the rest fail it or are within noise."""
    study, runs = _committed(name, scale)
    expectations = check.load(study.expect)
    for row in findings.evaluate(study, runs):
        if row.verdict in ("no", "partly", "within noise", "not measured"):
            assert row.finding.why_at(scale), f"{name}: finding {row.finding.name} is {row.verdict!r} " \
                                              f"at {scale} scale: say why"
        if not row.finding.relation:
            continue
        # A relation's lines whose values this scale sweeps (the slot's x1 and x2
        # may be the medium scale's, its x4 and x8 the quick scale's).
        cited = [r for r in expectations.relations if r.name == row.finding.relation
                 and any(r.by in run.params for run in runs) and check.compare(r, runs)]
        if not cited:  # a key only a larger scale has
            assert row.verdict == "not measured", row.finding.name
            continue
        outcome = check.evaluate(dataclasses.replace(expectations, relations=tuple(cited)), runs)
        assert bool(outcome.failures or outcome.within_noise) == (row.verdict != "yes"), \
            (row.finding.name, outcome.failures, outcome.within_noise)


# A measured figure as the findings' prose writes it: "10083 ± 4", "4,876 ± 1.7".
_WRITTEN = re.compile(r"(\d[\d,]*(?:\.\d+)?) ± (\d[\d,]*(?:\.\d+)?)")
# A metric's value as prose writes it: as stored, Mbit/s as Gbit/s, a fraction as percent.
_PROSE_SCALES = (1, 1e-3, 100)


@pytest.mark.parametrize("name, scale", COMMITTED)
def test_a_findings_prose_quotes_the_committed_results(name, scale):
    """A `why` is written by hand from the measured values: once its scale is
    run again, a why that quotes none of the new results is stale. Some figures
    are rightly from elsewhere (an earlier kernel's run, a probe), so each why
    that quotes figures with an interval must quote at least one of a
    committed run's metrics at its scale. A scale under way (run again over
    several sessions, its points committed as they finish) is exempt: its
    report marks its whys as written on earlier results (the test below)."""
    study, runs = _committed(name, scale)
    if results.under_way(study, scale):
        pytest.skip(f"{name} {scale} is under way: its whys are marked as of its earlier results")
    workloads = [m for run in runs for m in [*(w for h in run.hosts.values() for w in h.values()),
                                             *run.aggregate.values()]]
    figures = [(v, m["spread"][k]["ci95"]) for m in workloads
               for k, v in m.items() if k in m.get("spread", {}) and isinstance(v, (int, float))]
    for f in study.findings:
        quoted = _WRITTEN.findall(f.why_at(scale))
        found = [(a, b) for a, b in quoted
                 if any(_near(a, v * s) and _near(b, ci * s) for v, ci in figures for s in _PROSE_SCALES)]
        assert found or not quoted, f"{name} {scale}: finding {f.name}'s why quotes {len(quoted)} figures " \
                                    f"({', '.join(' ± '.join(q) for q in quoted[:3])}, ...), none of them " \
                                    f"a committed run's: write it again from the results"


def test_a_scale_under_way_marks_its_whys_as_of_earlier_results(tmp_path):
    """Run again over several sessions, a scale commits its points as they
    finish, and its hand-written whys then quote results it may no longer
    hold: its report says so of each of its own whys (not of a why every
    scale shares, "not modelled"), and the mark goes once every point is
    committed. On netframe quick's committed runs, saved as 5 of 8 points."""
    study, runs = _committed("netframe", "quick")
    made = results.provenance(study, "quick")
    own = [f.why_at("quick") for f in study.findings if "quick" in dict(f.why)]
    shared = [f.why_at("quick") for f in study.findings if f.why_at("quick") and "quick" not in dict(f.why)]
    assert own and shared
    mark = "(Written on this scale's earlier results; 5 of its 8 points run since.) "
    for provenance, marked in (({**made, "runs": 5, "points": 8}, True), (made, False)):
        report.write(study, runs, "here", provenance, tmp_path)
        text = (tmp_path / report.REPORT).read_text()
        assert all(((mark + w) in text) == marked for w in own), provenance
        assert not any((mark + w) in text for w in shared)
        assert text.count("Written on this scale's earlier results") == (len(own) if marked else 0)


def _near(written: str, value: float) -> bool:
    """Whether `value` rounds to the figure `written` to its last place."""
    places = len(written.partition(".")[2])
    return abs(float(written.replace(",", "")) - value) <= 0.5 * 10 ** -places + 1e-9


@pytest.mark.parametrize("name, scale", COMMITTED)
def test_the_committed_report_is_the_report_of_the_committed_results(name, scale, tmp_path):
    study, runs = _committed(name, scale)
    report.write(study, runs, results.label(study, scale), results.provenance(study, scale), tmp_path)
    committed = study.report_dir(scale) / report.REPORT
    assert committed.read_text() == (tmp_path / report.REPORT).read_text(), \
        f"{committed} is out of date: run `g5net study report {name} --scale {scale}`"
    for png in tmp_path.glob("*.png"):
        assert (study.report_dir(scale) / png.name).is_file(), f"{study.report_dir(scale) / png.name} is missing"


def test_results_and_reports_are_kept_per_scale():
    """No run directory or report outside a scale's folder (the layout before scales)."""
    for name in STUDIES:
        study = catalog.load(name)
        for kept in ("results", "report"):
            folder = study.path / kept
            assert {p.name for p in folder.iterdir()} <= set(catalog.SCALES), folder


def test_the_readme_summarises_every_study_from_its_committed_results():
    readme = REPO / "README.md"
    block = report.readme_block([catalog.load(n) for n in STUDIES])
    assert report.with_readme_block(readme.read_text(), block) == readme.read_text(), \
        "README.md's study summaries are out of date: run `make docs`"


@pytest.mark.parametrize("finding, error", [
    ('measure = "server.stream"', "measure = 'server.stream' is not HOST.WORKLOAD.METRIC"),
    ('measure = "server.stream.x"\nrelation = "r"', "a relation or a measure, not both"),
    ('range = [1, 2]', "range needs a measure"),
    ('measure = "server.stream.x"\nrange = [2, 1]', "range: expected [LOW, HIGH], two numbers"),
])
def test_a_malformed_finding_is_named(tmp_path, finding, error):
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "study.toml").write_text(
        f'title = "t"\npaper = "p"\nabout = "a"\n[[finding]]\nname = "f"\ntext = "t"\npaper = "p"\n{finding}\n')
    with pytest.raises(StudyError, match=re.escape(error)):
        catalog.load("toy", tmp_path)


def test_a_finding_says_why_at_each_scale(tmp_path):
    (tmp_path / "toy").mkdir()
    head = 'title = "t"\npaper = "p"\nabout = "a"\n[[finding]]\nname = "f"\ntext = "t"\npaper = "p"\n'
    (tmp_path / "toy" / "study.toml").write_text(head + 'why = {quick = "one connection", medium = "32"}\n')
    f = catalog.load("toy", tmp_path).findings[0]
    assert (f.why_at("quick"), f.why_at("medium"), f.why_at("full")) == ("one connection", "32", "")
    (tmp_path / "toy" / "study.toml").write_text(head + 'why = "at every scale"\n')
    assert catalog.load("toy", tmp_path).findings[0].why_at("full") == "at every scale"
    (tmp_path / "toy" / "study.toml").write_text(head + 'why = {large = "x"}\n')
    with pytest.raises(StudyError, match=re.escape("why: expected a string, or a table of scale = string "
                                                   "(scales: quick, medium, full), got")):
        catalog.load("toy", tmp_path)


def test_a_table_names_metrics_and_a_where_names_values(tmp_path):
    (tmp_path / "toy").mkdir()
    head = 'title = "t"\npaper = "p"\nabout = "a"\n'
    (tmp_path / "toy" / "study.toml").write_text(head + '[[table]]\nname = "t"\ntitle = "T"\ncolumns = ["cpu_util"]\n')
    with pytest.raises(StudyError, match=re.escape("columns: expected a list of HOST.WORKLOAD.METRIC")):
        catalog.load("toy", tmp_path)
    (tmp_path / "toy" / "study.toml").write_text(
        head + '[[table]]\nname = "t"\ntitle = "T"\ncolumns = ["a.b.c"]\nwhere = {"host.nic.mtu" = [1]}\n')
    with pytest.raises(StudyError, match=re.escape("table t: where: host.nic.mtu = [1]")):
        catalog.load("toy", tmp_path)


def _study_cli(studies, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "g5net.cli", "study", *args], capture_output=True,
                          text=True, env={**os.environ, "G5NET_STUDIES": str(studies)}, cwd=REPO)


def test_bad_names_scales_and_stale_results_say_what_to_do(tmp_path):
    studies = tmp_path / "studies"
    shutil.copytree(REPO / "studies" / "10gbe", studies / "10gbe",
                    ignore=shutil.ignore_patterns("results", "report"))
    unknown = _study_cli(studies, "run", "10gb")
    assert unknown.returncode == 2 and "no study '10gb' (have: 10gbe;" in unknown.stderr
    no_scale = _study_cli(studies, "report", "10gbe")
    assert no_scale.returncode == 2 and "study 10gbe has no committed results yet: run " \
        "`g5net study run 10gbe --scale quick`, then `g5net study save 10gbe --scale quick`" in no_scale.stderr
    # Results recorded as made by other configs than today's.
    committed = studies / "10gbe" / "results" / "quick"
    committed.mkdir(parents=True)
    (committed / results.PROVENANCE).write_text(json.dumps(
        {"study": "10gbe", "scale": "quick", "gem5_version": ["24.0.0.1"], "configs_digest": "0" * 64,
         "runs": 7}))
    stale = _study_cli(studies, "report", "10gbe")
    assert stale.returncode == 2 and "its committed quick results were made by configs 000000000000, " \
        "and configs/ is now " in stale.stderr and "rerun `g5net study run 10gbe --scale quick`, then " \
        "`g5net study save 10gbe --scale quick`" in stale.stderr
    # Results sampled by another configs/g5net_sampled.py, or whose kernels
    # had other patches, than today's.
    for field, said in (("sampled_config_digest", "configs/g5net_sampled.py, which sampled them, has changed"),
                        ("kernel_patches", "kernels/patches/ has changed"),
                        ("kernel_patches_o3", "kernels/patches-o3/, which their O3 hosts' kernels had, "
                                              "has changed")):
        (committed / results.PROVENANCE).write_text(json.dumps(
            {"study": "10gbe", "scale": "quick", "gem5_version": ["24.0.0.1"],
             "configs_digest": configs_digest(), field: "0" * 64, "runs": 7}))
        changed = _study_cli(studies, "report", "10gbe")
        assert changed.returncode == 2 and f"{said}: rerun `g5net study run 10gbe --scale quick`" \
            in changed.stderr, field
    # A scale without committed results, where another has them.
    no_full = _study_cli(studies, "report", "10gbe", "--scale", "full")
    assert no_full.returncode == 2 and "study 10gbe has no committed results at scale full yet (it " \
        "has: quick): run `g5net study run 10gbe --scale full`, then `g5net study save 10gbe " \
        "--scale full`" in no_full.stderr
    (studies / "10gbe" / "full.toml").unlink()
    (studies / "10gbe" / "medium.toml").unlink()
    gone = _study_cli(studies, "run", "10gbe", "--scale", "full", "--dry-run")
    assert gone.returncode == 2 and "study 10gbe has no scale 'full' (it has: quick)" in gone.stderr
    medium = _study_cli(studies, "run", "10gbe", "--scale", "medium", "--dry-run")
    assert medium.returncode == 2 and "study 10gbe has no scale 'medium' (it has: quick)" in medium.stderr


def test_a_table_gives_a_windowed_value_with_its_interval_and_a_value_measured_once_alone(tmp_path):
    study, runs = windowed_study(tmp_path)
    lines = report.table_lines(study.tables[0], runs)
    head, _, *rows, blank, note = lines
    columns = [c.strip() for c in head.strip("|").split("|")]
    cells = [dict(zip(columns, (c.strip() for c in row.strip("|").split("|")))) for row in rows]
    by = {(c["windows"], c["stream.msg_bytes"]): c for c in cells}
    windowed, once = server_stream("steady-state"), server_stream("whole-life")
    # 2241.1 ± 93.2: both to the half-width's second significant digit.
    mean, half_width = by["8", "131072"]["server.stream.throughput_mbps"].split(" ± ")
    assert float(mean) == pytest.approx(windowed["throughput_mbps"], abs=0.5)
    assert float(half_width) == pytest.approx(windowed["spread"]["throughput_mbps"]["ci95"], abs=0.5)
    # A guest metric over the whole stream has no spread, nor has a run measured once.
    assert float(by["8", "131072"]["server.stream.ctxt_per_pkt"]) == pytest.approx(windowed["ctxt_per_pkt"], rel=1e-3)
    assert float(by["0", "131072"]["server.stream.throughput_mbps"]) == pytest.approx(once["throughput_mbps"], rel=1e-3)
    assert (blank, note) == ("", report.SPREAD_NOTE)
