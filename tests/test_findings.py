"""A finding's verdict from its comparisons (g5net/study/findings.py), "within
noise" among them, and how a study's summary table shows it."""

from __future__ import annotations

import pytest
from test_check_spread import windowed_runs

from g5net.analysis.check import Result
from g5net.report import runs as runsmod
from g5net.study import builtin as catalog
from g5net.study import findings, report

H, F, N = Result.HOLDS, Result.FAILS, Result.WITHIN_NOISE


@pytest.mark.parametrize("results, verdict", [
    ([H], "yes"), ([H, H], "yes"),
    ([H, F], "partly"), ([H, N], "partly"), ([H, F, N], "partly"),
    ([F], "no"), ([F, F], "no"), ([F, N], "no"),
    ([N], "within noise"), ([N, N], "within noise"),
])
def test_the_verdict_of_a_finding_from_its_comparisons(results, verdict):
    assert findings.verdict_of(results) == verdict
    assert verdict in findings.VERDICTS


# Relations on the windowed runs of test_check_spread: fast holds, close is within noise, slow fails.
EXPECT = """
[[relation]]
by = "host.nic.attach"
name = "{name}"
expect = [{exprs}]
"""
RELATIONS = {
    "faster": ["fast >"],
    "close": ["close >"],
    "some": ["fast >", "close >"],
    "contra": ["slow >", "close >"],
    "alike": ["close =="],
}


def _toy_study(root):
    (root / "toy").mkdir(parents=True)
    (root / "toy" / "study.toml").write_text('title = "t"\npaper = "p"\nabout = "a"\n' + "".join(
        f'[[finding]]\nname = "{name}"\ntext = "{name}"\npaper = "-"\nrelation = "{name}"\n' for name in RELATIONS))
    (root / "toy" / "expect.toml").write_text("".join(EXPECT.format(name=name, exprs=", ".join(
        f'"integrated.server.stream.{metric} {op} pcie.server.stream.{metric}"'
        for metric, op in (e.split() for e in exprs))) for name, exprs in RELATIONS.items()))
    return catalog.load("toy", root)


def test_a_study_summary_shows_within_noise_and_says_what_it_means(tmp_path):
    runs = runsmod.load(windowed_runs(tmp_path / "runs"))
    rows = findings.evaluate(_toy_study(tmp_path / "studies"), runs)
    assert [(r.finding.name, r.verdict, r.within_noise) for r in rows] == [
        ("faster", "yes", 0), ("close", "within noise", 1), ("some", "partly", 1), ("contra", "no", 1),
        ("alike", "yes", 0)]
    close = rows[1]
    assert close.g5net == ("0/1 comparisons hold, 1 within noise, left/right x1 (median); "
                           "e.g. server.stream 951.2 ± 7.9 vs 948.0 ± 7.9")
    assert rows[2].g5net.startswith("1/2 comparisons hold, 1 within noise, ")
    lines = report.summary_table(rows, "quick")
    assert "| close | - | 0/1 comparisons hold, 1 within noise," in lines[3] and "| within noise | - |" in lines[3]
    assert lines[-2:] == ["", report.NOISE_NOTE]
    # Without a comparison within noise the table is as it always was.
    assert report.NOISE_NOTE not in report.summary_table([rows[0], rows[4]], "quick")
    assert rows[0].g5net == "1/1 comparisons hold, left/right x1.06 (median); e.g. server.stream 951.2 ± 7.9 vs 900.0 ± 7.9"


def test_a_run_whose_nics_stalled_is_no_findings_evidence(tmp_path):
    """The two-NIC point of multi-nic medium whose server's NICs stalled
    (tests/fixtures/stalled-nics-windows): its wire figures read 2.6 Gbit/s
    received, more than one NIC's 1.3, so the NIC-count finding would have
    held on the model's defect; it is left out, and the row says so."""
    import json
    import shutil
    from pathlib import Path

    from g5net.metrics import derive
    from g5net.model import specs
    from g5net.runs.rundir import RunDir

    repo = Path(__file__).resolve().parents[1]
    rd = RunDir(tmp_path / "run")
    shutil.copytree(repo / "tests" / "fixtures" / "stalled-nics-windows", rd.path)
    spec = specs.from_dict(json.loads(rd.spec_json.read_text()))
    rd.write_json(rd.metrics_json, derive.compute(spec, json.loads(rd.results_json.read_text()), rd))
    stalled = runsmod.load_run(rd.path)
    assert findings.nic_stalled(stalled) and stalled.hosts["server"]["stream"]["wire_received_mbps"] > 2000
    study = catalog.load("multi-nic")
    quick = runsmod.load(repo / "studies" / "multi-nic" / "results" / "quick")
    assert not any(map(findings.nic_stalled, quick))
    rows = {r.finding.name: r for r in findings.evaluate(study, [stalled])}
    assert (rows["more-nics"].verdict, rows["more-nics"].g5net) == (
        "not measured", "no two runs to compare (1 run left out: some host's NICs stalled, nic_stalled_windows)")
    assert rows["one-nic"].verdict == "not measured"
    # Beside the committed runs it changes no verdict of theirs.
    assert [r.verdict for r in findings.evaluate(study, [*quick, stalled])] == \
        [r.verdict for r in findings.evaluate(study, quick)]


def test_a_magnitude_over_the_runs_its_where_names_shows_one_runs_interval(tmp_path):
    """multi-nic's one-NIC finding is about the x8 slot: its measure reads the
    x8 run alone, with its windows' 95% interval, not a span over every slot."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    study = catalog.load("multi-nic")
    quick = runsmod.load(repo / "studies" / "multi-nic" / "results" / "quick")
    assert sorted(r.params["host.nic.pcie_lanes"] for r in quick) == [1, 1, 1, 2, 8]
    row = {r.finding.name: r for r in findings.evaluate(study, quick)}["one-nic"]
    x8 = next(r for r in quick if r.params["host.nic.pcie_lanes"] == 8)
    mean = x8.hosts["server"]["stream"]["dma_received_mbps"]
    assert row.verdict == "measured" and row.g5net == f"{mean:.0f} ± 543" and 4900 < mean < 5000
    # None of the runs with another slot: said so, naming the values.
    others = [r for r in quick if r.params["host.nic.pcie_lanes"] != 8]
    assert {r.finding.name: r for r in findings.evaluate(study, others)}["one-nic"].g5net == \
        "no run has server.stream.dma_received_mbps among the runs with host.nic.pcie_lanes = 8"
    # A relation names its runs itself: a where beside it is refused.
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "study.toml").write_text(
        'title = "t"\npaper = "p"\nabout = "a"\n[[finding]]\nname = "f"\ntext = "t"\npaper = "-"\n'
        'relation = "r"\nwhere = {"host.nic.mtu" = 9000}\n')
    with pytest.raises(catalog.StudyError, match="finding f: where needs a measure"):
        catalog.load("toy", tmp_path)


def test_a_cpu_busy_in_every_window_is_written_without_a_rounding_interval():
    """multi-nic medium's three NICs in x4 slots: every server CPU is busy in
    every window, so cpu_util_max's interval is the sum's rounding alone, and
    the one-CPU finding shows the two sides as `1`."""
    from pathlib import Path

    from g5net.analysis import check

    repo = Path(__file__).resolve().parents[1]
    medium = runsmod.load(repo / "studies" / "multi-nic" / "results" / "medium")
    x4 = [r for r in medium if r.params["host.nic.count"] == 3 and r.params["host.nic.pcie_lanes"] == 4]
    assert len(x4) == 2
    for run in x4:
        busiest = catalog.measured(run, "server.stream.cpu_util_max")
        assert busiest.mean == pytest.approx(1.0, abs=1e-12) and 0 <= busiest.ci95 < 1e-12
        assert check.fmt(busiest) == "1"
    row = {r.finding.name: r for r in findings.evaluate(catalog.load("multi-nic"), medium)}["one-cpu"]
    assert row.verdict == "partly" and row.g5net.endswith("e.g. server.stream 1 vs 1")


def test_a_relation_compares_the_runs_that_have_its_key():
    """10gbe medium's latency rows run NetPIPE alone: no stream, so no
    workloads.stream.window_bytes among their parameters. The buffers finding
    still compares the two stream points that differ in it, not nothing."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    medium = runsmod.load(repo / "studies" / "10gbe" / "results" / "medium")
    key = "workloads.stream.window_bytes"
    assert any(key not in r.params for r in medium) and sum(key in r.params for r in medium) >= 2
    row = {r.finding.name: r for r in findings.evaluate(catalog.load("10gbe"), medium)}["buffers"]
    assert row.verdict == "yes" and row.g5net.startswith("1/1 comparisons hold")
