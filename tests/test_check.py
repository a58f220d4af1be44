import pytest
from test_metrics_fixtures import (
    make_folder,
    make_run,
    make_sweep,
    quickstart_spec,
    spec,
)

from g5net import cli
from g5net.analysis import check
from g5net.errors import CheckError
from g5net.report import runs

REPO_EXPECT = __import__("pathlib").Path(__file__).resolve().parents[1] / "results" / "expectations"


@pytest.fixture(scope="module", params=["sweep", "folder"])
def sweep(request, tmp_path_factory):
    """The same six runs as a sweep directory (`g5net sweep --out`) and as a
    folder of single runs: checks read both alike."""
    make = make_sweep if request.param == "sweep" else make_folder
    return make(tmp_path_factory.mktemp(request.param) / "out")


def _write(tmp_path, text):
    f = tmp_path / "expect.toml"
    f.write_text(text)
    return f


def test_quickstart_expectations_hold_on_a_run(tmp_path, capsys):
    rd = make_run(tmp_path / "store", quickstart_spec())
    rc = cli.main(["check", str(rd.path), "--expect", str(REPO_EXPECT / "quickstart.toml")])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.startswith("0 failed")


def test_bounds_and_relations_on_a_sweep(sweep, tmp_path, capsys):
    f = _write(tmp_path, '''
bounds = ["client.stream.intr_per_pkt < 1000", "ctxt_per_pkt > 0", "sum(time_*_pct) == 100"]
[[relation]]
by = "host.nic.attach"
expect = ["integrated.throughput_mbps >= pcie.throughput_mbps",
          "integrated.*.stream.throughput_mbps > pcie.*.stream.throughput_mbps"]
''')
    assert cli.main(["check", str(sweep), "--expect", str(f)]) == 0
    assert capsys.readouterr().out.startswith("0 failed")


def test_a_false_relation_fails_naming_the_check_and_the_runs(sweep, tmp_path, capsys):
    f = _write(tmp_path, '''
bounds = ["client.stream.throughput_mbps > 0"]
[[relation]]
by = "host.nic.attach"
expect = ["integrated.throughput_mbps < pcie.throughput_mbps"]
''')
    assert cli.main(["check", str(sweep), "--expect", str(f)]) == 1
    fails = [l for l in capsys.readouterr().out.splitlines() if l.startswith("FAIL")]
    # 3 pairs of points (one per message size) x 2 hosts.
    assert len(fails) == 6
    assert all("relation[0].expect[0] (line 5) 'integrated.throughput_mbps < pcie.throughput_mbps'" in l for l in fails)
    assert any("client.stream is 10.752 in" in l for l in fails)


def test_a_false_bound_names_host_workload_value_and_run(sweep, tmp_path, capsys):
    f = _write(tmp_path, 'bounds = ["server.stream.throughput_mbps > 100"]\n')
    assert cli.main(["check", str(sweep), "--expect", str(f)]) == 1
    out = capsys.readouterr().out
    assert "FAIL bounds[0] (line 1) 'server.stream.throughput_mbps > 100': server.stream is 10.24 in t-" in out


def test_a_misspelt_metric_fails_rather_than_passing(sweep, tmp_path, capsys):
    f = _write(tmp_path, 'bounds = ["throughput_mpbs > 0"]\n')
    assert cli.main(["check", str(sweep), "--expect", str(f)]) == 1
    assert "matched no metric in 6 run(s)" in capsys.readouterr().out


def test_a_relation_compares_the_runs_that_have_its_key(tmp_path, capsys):
    """10gbe medium's committed runs: its latency rows run NetPIPE alone, so
    workloads.stream.window_bytes is no parameter of theirs. A relation on it
    compares the stream points that have it; a key no run has is an error."""
    medium = REPO_EXPECT.parents[1] / "studies" / "10gbe" / "results" / "medium"
    folder = runs.load(medium)
    assert {"workloads.stream.window_bytes" in r.params for r in folder} == {True, False}
    f = _write(tmp_path, '[[relation]]\nby = "workloads.stream.window_bytes"\n'
                         'expect = ["262144.server.stream.throughput_mbps > 65536.server.stream.throughput_mbps"]\n')
    assert cli.main(["check", str(medium), "--expect", str(f)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("0 failed, ") and " compared (8 run(s), " in out and not out.startswith("0 failed, 0 compared")
    f.write_text(f.read_text().replace("window_bytes", "window_byte"))
    assert cli.main(["check", str(medium), "--expect", str(f)]) == 2
    assert "no spec key 'workloads.stream.window_byte'" in capsys.readouterr().err


def test_relations_need_two_points(tmp_path, capsys):
    rd = make_run(tmp_path / "store", spec(), status="failed:workload")
    f = _write(tmp_path, '[[relation]]\nby = "host.nic.attach"\nexpect = ["integrated.packets > pcie.packets"]\n')
    assert cli.main(["check", str(rd.path), "--expect", str(f)]) == 1
    out = capsys.readouterr().out
    assert "require_done: " in out and "has status failed:workload" in out
    assert "no two runs differ only in host.nic.attach" in out


@pytest.mark.parametrize("text, message", [
    ('bounds = ["x <"]\n', "bounds[0] (line 1): 'x <' is not 'LEFT OP RIGHT'"),
    ('\nbounds = [\n  "a.b < 3",\n]\n', "bounds[0] (line 3): 'a.b' is not [HOST.WORKLOAD.]METRIC"),
    ('bounds = ["time_*_pct == 100"]\n', "write sum(time_*_pct)"),
    ('bounds = ["packets > ctxt"]\n', "one metric with one number"),
    ('bound = ["packets > 0"]\n', "expect.toml: line 1: bound: unknown key"),
    ('bounds = "packets > 0"\n', "bounds: expected a list of strings"),
    ('[[relation]]\nby = "host.nic.attach"\nexpect = ["packets > 0"]\n', "needs a value of the 'by' key"),
    ('[[relation]]\nexpect = ["a.packets > b.packets"]\n', "relation[0]: needs by ="),
    ('[[relation]]\nby="k"\nexpect = ["a.client.w.x > b.server.w.x"]\n', "same HOST.WORKLOAD"),
    ('bounds = [\n', "not valid TOML"),
    ('require_done = true\n', "nothing to check"),
])
def test_malformed_files_name_the_line_or_key(tmp_path, text, message):
    with pytest.raises(CheckError) as e:
        check.load(_write(tmp_path, text))
    assert message in str(e.value)


def test_malformed_file_exits_2(sweep, tmp_path, capsys):
    f = _write(tmp_path, 'bounds = ["x <"]\n')
    assert cli.main(["check", str(sweep), "--expect", str(f)]) == 2
    assert "expect.toml: bounds[0] (line 1)" in capsys.readouterr().err


def test_sweep_parameters(sweep):
    found = runs.load(sweep)
    assert len(found) == 6  # the .tmp- directory is not a run
    assert set(runs.varying(found)) == {"host.nic.attach", "workloads.stream.msg_bytes",
                                        "workloads.stream.streams"}
    # Streams move with the message size here: not a dimension of its own.
    assert runs.independent(found, "workloads.stream.msg_bytes") == ["host.nic.attach"]


def test_a_relation_scales_its_right_side_by_a_factor(sweep, tmp_path, capsys):
    """`LEFT OP K * RIGHT`: how much more, not only more. The fixture's
    integrated NIC moves 1.0-2.0 times the PCIe NIC's throughput per pair."""
    rs = runs.load(sweep)
    ratios = [c.left / c.right for c in check.compare(check.parse(
        '[[relation]]\nby = "host.nic.attach"\nexpect = ["integrated.throughput_mbps > pcie.throughput_mbps"]'
    ).relations[0], rs)]
    low, high = min(ratios), max(ratios)
    text = '[[relation]]\nby = "host.nic.attach"\nexpect = ["integrated.throughput_mbps {op} {k} * pcie.throughput_mbps"]'
    for op, k, holds in ((">=", low, True), ("<=", high, True), (">", high, False), ("<", low, False)):
        rc = cli.main(["check", str(sweep), "--expect", str(_write(tmp_path, text.format(op=op, k=k)))])
        assert rc == (0 if holds else 1), (op, k, capsys.readouterr().out)
    with pytest.raises(CheckError, match="the factor must be a positive number"):
        check.parse(text.format(op=">", k="-1"))


def test_a_relation_where_compares_only_the_runs_with_those_values(sweep, tmp_path, capsys):
    """`where` keeps a relation to some runs: here one message size of three,
    so one pair of points x 2 hosts fails instead of three pairs."""
    rs = runs.load(sweep)
    size = sorted({r.params["workloads.stream.msg_bytes"] for r in rs})[0]
    text = ('[[relation]]\nby = "host.nic.attach"\n'
            'expect = ["integrated.throughput_mbps < pcie.throughput_mbps"]\n'
            f'where = {{"workloads.stream.msg_bytes" = {size}}}\n')
    assert len(check.compare(check.parse(text).relations[0], rs)) == 2
    assert cli.main(["check", str(sweep), "--expect", str(_write(tmp_path, text))]) == 1
    assert sum(l.startswith("FAIL") for l in capsys.readouterr().out.splitlines()) == 2
    nothing = text.replace(f"= {size}}}", "= 3}")
    assert cli.main(["check", str(sweep), "--expect", str(_write(tmp_path, nothing))]) == 1
    assert "no two runs with workloads.stream.msg_bytes = 3 differ only in host.nic.attach" \
        in capsys.readouterr().out
    with pytest.raises(CheckError, match=r"may have name = \"...\" and where = \{PATH = VALUE"):
        check.parse(text.replace(f'where = {{"workloads.stream.msg_bytes" = {size}}}', 'where = ["x"]'))
