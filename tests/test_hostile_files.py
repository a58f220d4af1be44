"""Hostile files, round two (issue 28): every file g5net reads is a regular
file of a size its kind can have (a device, a FIFO or a symlink to one is
refused at once, naming it); store records and studies of the wrong shape
are damaged files named with the key at fault, never a traceback; a name read
from a file becomes a path only where it is one plain file name."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from g5net import cli
from g5net.errors import CorruptRunError, G5netError, RunnerError, StudyError
from g5net.machine import bounded_read
from g5net.model import specs
from g5net.model.data_paths import child
from g5net.runners.plan import planned
from g5net.runs import record_schema, rundir, sweepdir
from g5net.runs.sweepdir import SweepDir
from g5net.study import builtin

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def within_seconds() -> Iterator[None]:
    """A reader that waits on a FIFO or reads /dev/zero fails the test instead of hanging it."""
    def late(signum, frame):
        raise AssertionError("still reading after 20 s")
    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _zero_link(path: Path) -> Path:
    path.symlink_to("/dev/zero")
    return path


def _fifo_link(path: Path) -> Path:
    _fifo(path.with_name(path.name + ".fifo"))
    path.symlink_to(path.name + ".fifo")
    return path


def _directory(path: Path) -> Path:
    path.mkdir()
    return path


def _huge(path: Path) -> Path:
    with open(path, "wb") as f:  # sparse: no disk is spent
        f.truncate(bounded_read.MAX_RECORD_BYTES + 1)
    return path


SPECIAL: dict[str, Callable[[Path], Path]] = {
    "fifo": _fifo, "symlink to /dev/zero": _zero_link, "symlink to a fifo": _fifo_link,
    "directory": _directory, "larger than a record": _huge}


@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_the_bounded_reader_refuses_what_is_no_regular_file_of_a_record_size(tmp_path, kind):
    path = SPECIAL[kind](tmp_path / "f")
    with pytest.raises(OSError) as e:
        bounded_read.read_bytes(path)
    assert e.value.filename == str(path)


def test_dev_zero_itself_is_refused():
    with pytest.raises(OSError, match="a character device, not a regular file"):
        bounded_read.read_bytes("/dev/zero")


def test_a_symlink_to_a_regular_file_is_read(tmp_path):
    (tmp_path / "real").write_bytes(b"{}")
    (tmp_path / "link").symlink_to("real")
    assert bounded_read.read_bytes(tmp_path / "link") == b"{}"


def _one_line_exit_2(argv: list[str], capsys, names: str) -> str:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and names in err, err
    return err


@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_a_spec_that_is_no_regular_file_is_one_line(tmp_path, capsys, kind):
    path = SPECIAL[kind](tmp_path / "spec.toml")
    _one_line_exit_2(["run", str(path), "--out", str(tmp_path / "out")], capsys, str(path))
    assert not (tmp_path / "out").exists()


def test_a_spec_that_is_dev_zero_is_one_line(tmp_path, capsys):
    _one_line_exit_2(["run", "/dev/zero", "--out", str(tmp_path / "out")], capsys, "/dev/zero")


@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_a_stats_file_that_is_no_regular_file_is_one_line(tmp_path, capsys, kind):
    path = SPECIAL[kind](tmp_path / "stats.txt")
    _one_line_exit_2(["stats", str(path)], capsys, str(path))


@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_an_expectations_file_that_is_no_regular_file_is_one_line(tmp_path, capsys, kind):
    runs = _store(tmp_path, 1)
    path = SPECIAL[kind](tmp_path / "expect.toml")
    _one_line_exit_2(["check", str(runs[0].path), "--expect", str(path)], capsys, str(path))


# ------------------------------------------------------------------ the store

def _store(tmp_path: Path, n: int) -> list[rundir.RunDir]:
    """`n` done runs of the quickstart, as run.execute commits them."""
    from g5net.runs import record as run_record
    store = tmp_path / "runs"
    s = specs.load(EXAMPLES / "quickstart.toml")
    out = []
    for i in range(n):
        rid = f"{i:02d}" * 32
        rd = rundir.begin(store, s.experiment.name, rid)
        record = run_record.begin(rid, s.experiment.name, s.to_dict())
        rd.write_json(rd.metrics_json, {"hosts": {"client": {"stream": {"throughput_mbps": 900.0 + i}}},
                                        "aggregate": {}})
        rd.write_json(rd.run_json, run_record.finish(record, "done", 1.0))
        out.append(rundir.commit(rd, store, s.experiment.name, rid))
    return out


@pytest.mark.parametrize("record", ["run.json", "metrics.json"])
@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_a_record_that_is_no_regular_file_is_a_damaged_run(tmp_path, capsys, kind, record):
    rd = _store(tmp_path, 2)[1]
    (rd.path / record).unlink()
    SPECIAL[kind](rd.path / record)
    assert cli.main(["collect", str(rd.path.parent), "-o", str(tmp_path / "t.csv")]) == 0
    assert f"{rd.path / record}: damaged" in capsys.readouterr().err
    assert rd.damage().startswith(f"{rd.path / record}: damaged: ")


WRONG_RUN = {
    "a list": [1, 2], "status a number": {"status": 1}, "spec a list": {"status": "done", "spec": []},
    "host a string": {"status": "done", "spec": {}, "host": "node"},
    "reasons a string": {"status": "failed:boot", "spec": {}, "failure": {"reasons": "no"}},
    "boards of numbers": {"status": "done", "spec": {}, "boards": {"server": 1}},
}
WRONG_METRICS = {
    "a list": [], "hosts a number": {"hosts": 3}, "a host a list": {"hosts": {"client": [1]}},
    "a workload a number": {"hosts": {"client": {"stream": 7}}},
    "a metric a string": {"hosts": {"client": {"stream": {"throughput_mbps": "fast"}}}},
    "a metric a boolean": {"hosts": {"client": {"stream": {"throughput_mbps": True}}}},
    "aggregate a list": {"hosts": {}, "aggregate": [1]},
    "200000 deep": "[" * 200_000 + "]" * 200_000,
    "40 deep": {"hosts": {"client": {"stream": {"profile": json.loads("[" * 40 + "]" * 40)}}}},
    "a spread a list": {"hosts": {"client": {"stream": {"throughput_mbps": 900.0, "spread": [1]}}}},
    "a spread's sd negative": {"hosts": {"client": {"stream": {
        "throughput_mbps": 900.0, "spread": {"throughput_mbps": {"n": 5, "sd": -1.0, "ci95": 1.0}}}}}},
    "a spread of one window": {"hosts": {}, "aggregate": {"stream": {
        "throughput_mbps_sum": 900.0, "spread": {"throughput_mbps_sum": {"n": 1, "sd": 0.0, "ci95": 0.0}}}}},
    "spreads of different windows": {"hosts": {"client": {"stream": {
        "throughput_mbps": 900.0, "packets": 1e6, "spread": {"throughput_mbps": {"n": 5, "sd": 1.0, "ci95": 1.2},
                                                             "packets": {"n": 4, "sd": 1.0, "ci95": 1.6}}}}}},
    "per_window a table": {"hosts": {"client": {"stream": {"throughput_mbps": 900.0, "per_window": {}}}}},
    "a window a string": {"hosts": {"client": {"stream": {"throughput_mbps": 900.0,
                                                          "per_window": [{"throughput_mbps": "fast"}]}}}},
}


def _damage(rd: rundir.RunDir, record: str, value) -> None:
    text = value if isinstance(value, str) else json.dumps(value)
    (rd.path / record).write_text(text)


@pytest.mark.parametrize("case", [("run.json", k) for k in WRONG_RUN] + [("metrics.json", k) for k in WRONG_METRICS])
def test_records_of_the_wrong_shape_are_skipped_by_every_reader(tmp_path, capsys, case):
    record, what = case
    runs = _store(tmp_path, 2)
    _damage(runs[1], record, (WRONG_RUN if record == "run.json" else WRONG_METRICS)[what])
    store = runs[0].path.parent
    expect = tmp_path / "expect.toml"
    expect.write_text('bounds = ["client.stream.throughput_mbps > 100"]\n')
    for argv in (["collect", str(store), "-o", str(tmp_path / "t.csv")],
                 ["check", str(store), "--expect", str(expect)],
                 ["report", str(store), "--out", str(tmp_path / "report")],
                 ["status", str(store)]):
        assert cli.main(argv) in (0, 1), argv
        err = capsys.readouterr().err
        assert "Traceback" not in err
        if argv[0] != "status":
            assert f"{runs[1].path / record}: damaged" in err, argv
    # The damaged run alone: an error naming it, not a passed check.
    _one_line_exit_2(["check", str(runs[1].path), "--expect", str(expect)], capsys,
                     f"{runs[1].path / record}: damaged: ")


def test_g5net_load_skips_a_damaged_run(tmp_path, capsys):
    import g5net
    runs = _store(tmp_path, 2)
    _damage(runs[1], "metrics.json", WRONG_METRICS["a metric a string"])
    frame = g5net.load(runs[0].path.parent)
    assert set(frame["run"]) == {runs[0].path.name}


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(["hosts", "aggregate", "client", "stream",
                                                       "status", "spec", "throughput_mbps", "x"]),
                                      inner, max_size=3),
                    max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=JSON, metrics=JSON)
def test_any_record_shape_is_read_or_named_damaged(tmp_path_factory, run, metrics):
    """Whatever JSON a run's records hold, a reader gets the run or a
    CorruptRunError naming the file: nothing else."""
    rd = rundir.RunDir(tmp_path_factory.mktemp("run"))
    rd.run_json.write_text(json.dumps(run))
    rd.metrics_json.write_text(json.dumps(metrics))
    from g5net.report.runs import load_run
    from g5net.runs import store
    for read in (load_run, lambda p: store.row(rundir.RunDir(p)), lambda p: rundir.RunDir(p).damage()):
        try:
            read(rd.path)
        except CorruptRunError as e:
            assert str(e).startswith((f"{rd.run_json}: damaged", f"{rd.metrics_json}: damaged"))


def test_the_depth_check_is_iterative():
    assert record_schema.depth(json.loads("[" * 500 + "]" * 500)) == record_schema.MAX_DEPTH + 1


# ------------------------------------------------------------ names as paths

@given(name=st.text(max_size=70))
def test_a_name_from_a_file_is_a_path_inside_its_folder_or_refused(name):
    folder = Path("/srv/out")
    try:
        path = child(folder, name, "figure", StudyError, ".png")
    except StudyError as e:
        assert len(str(e).splitlines()) == 1 and len(str(e)) < 300
        return
    assert path.parent == folder and path.resolve().parent == folder


@pytest.mark.parametrize("name", ["../x", "/tmp/x", "a/b", "..", ".", "x\n", "", "a" * 65, "-rf", ".hidden"])
def test_a_sweep_plan_naming_runs_outside_its_store_is_damaged(tmp_path, name):
    from g5net.model import sweep
    s = sweep.load(EXAMPLES / "sweep-quick.toml")
    points = tuple(planned(p, f"{p.index:02d}" * 32) for p in s.points)
    sd = SweepDir(tmp_path / "sweep")
    sweepdir.write(sd, sweepdir.Plan("x", s.parameters, points))
    data = json.loads(sd.plan_json.read_text())
    data["points"][0]["name"] = name
    sd.plan_json.write_text(json.dumps(data))
    with pytest.raises(RunnerError, match=f"^{sd.plan_json}: "):
        sweepdir.read(sd)


# --------------------------------------------------------------- studies

STUDY = '''title = "t"
paper = "p"
about = "a"

[[figure]]
name = "tput"
title = "Throughput"
paper_ref = "Fig. 1"
x = "host.nic.mtu"
y = "server.stream.throughput_mbps"

[[finding]]
name = "f"
text = "t"
paper = "p"
measure = "server.stream.throughput_mbps"
range = [1, 2]
'''

DAMAGED_STUDIES = {
    "not UTF-8": STUDY.encode() + b'\n# \xff\xfe\n',
    "figure name ../": STUDY.replace('name = "tput"', 'name = "../../escaped"').encode(),
    "figure name absolute": STUDY.replace('name = "tput"', 'name = "/tmp/escaped"').encode(),
    "figure a number": b'title = "t"\npaper = "p"\nabout = "a"\nfigure = [1]\n',
    "figure a table": b'title = "t"\npaper = "p"\nabout = "a"\nfigure = {name = "x"}\n',
    "range of strings": STUDY.replace("range = [1, 2]", 'range = ["a", "b"]').encode(),
    "range mixed": STUDY.replace("range = [1, 2]", 'range = [1, "b"]').encode(),
    "range a number": STUDY.replace("range = [1, 2]", "range = 3").encode(),
    "title a table": STUDY.replace('title = "t"', "title = {a = 1}").encode(),
    "hue a number": STUDY.replace('y = "server', 'hue = 3\ny = "server').encode(),
    "where a list": STUDY.replace('y = "server', 'where = [1]\ny = "server').encode(),
    "deep": b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "not TOML": b"[[figure]\n",
    "a fifo": b"",
}


def _studies(tmp_path: Path, damaged: str) -> Path:
    root = tmp_path / "studies"
    for name in ("good", "bad"):
        (root / name).mkdir(parents=True)
    (root / "good" / "study.toml").write_text(STUDY)
    if damaged == "a fifo":
        _fifo(root / "bad" / "study.toml")
    else:
        (root / "bad" / "study.toml").write_bytes(DAMAGED_STUDIES[damaged])
    return root


@pytest.mark.parametrize("damaged", sorted(DAMAGED_STUDIES))
def test_a_damaged_study_is_one_line_naming_its_file(tmp_path, damaged):
    root = _studies(tmp_path, damaged)
    with pytest.raises(StudyError) as e:
        builtin.load("bad", root)
    assert str(e.value).startswith(str(root / "bad" / "study.toml")) and "\n" not in str(e.value)
    assert builtin.load("good", root).figures[0].name == "tput"


@pytest.mark.parametrize("name", ["../good", "/etc", "good/../good", "..", "", "x\ny"])
def test_a_study_name_is_one_plain_name(tmp_path, name):
    root = _studies(tmp_path, "not UTF-8")
    with pytest.raises(StudyError, match="^no study "):
        builtin.load(name, root)


def test_study_list_lists_the_good_studies_and_names_the_damaged_one(tmp_path):
    root = _studies(tmp_path, "figure name ../")
    env = {**os.environ, "G5NET_STUDIES": str(root), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "g5net.cli", "study", "list"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert done.stdout.startswith("good ")
    [line] = done.stderr.splitlines()
    assert str(root / "bad" / "study.toml") in line and "Traceback" not in done.stderr


def test_study_report_never_writes_outside_out(tmp_path):
    """A figure name that names a path outside --out is refused where the PNG is written, too."""
    from g5net.study import figures
    fig = builtin.Figure(name="../escaped", title="t", paper_ref="", x="host.nic.mtu",
                         y="server.stream.throughput_mbps")
    with pytest.raises(G5netError):
        figures.draw(fig, [], (), tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_a_console_that_is_no_regular_file_is_one_line(tmp_path, capsys, kind):
    rd = _store(tmp_path, 1)[0]
    rd.spec_json.write_text(specs.load(EXAMPLES / "quickstart.toml").to_json())
    SPECIAL[kind](rd.console("client"))
    _one_line_exit_2(["console", str(rd.path), "--host", "client"], capsys, str(rd.console("client")))


@pytest.mark.parametrize("kind", sorted(set(SPECIAL) - {"larger than a record"}))  # a long run's may be
def test_pc_samples_that_are_no_regular_file_are_refused(tmp_path, kind):
    from g5net.stats import pc_samples
    path = SPECIAL[kind](tmp_path / "pc-samples.tsv")
    with pytest.raises(OSError):
        pc_samples.read(path)


@pytest.mark.parametrize("text", ["[1]", '[{"job_id": 3}]', "{", "[" * 100_000, '{"job_id": "1"}'])
def test_a_damaged_slurm_job_list_is_one_line(tmp_path, text):
    from g5net.runners import slurm
    sd = SweepDir(tmp_path / "sweep")
    sd.slurm_jobs.parent.mkdir(parents=True)
    sd.slurm_jobs.write_text(text)
    with pytest.raises(RunnerError, match=f"^{sd.slurm_jobs}: damaged: "):
        slurm.live(sd)
