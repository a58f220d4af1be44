"""Sweep expansion: axes, zip groups, derived keys, and errors that name the axis or point."""

import tomllib

import pytest
from conftest import EXAMPLES

from g5net.errors import SpecError
from g5net.model import identity, sweep


def _expand(quickstart_text: str, table: str) -> sweep.Sweep:
    return sweep.expand(tomllib.loads(quickstart_text + "\n" + table))


def test_example_has_six_distinct_points():
    s = sweep.load(EXAMPLES / "sweep-quick.toml")
    assert len(s.points) == 6
    assert len({identity.spec_digest(p.spec) for p in s.points}) == 6
    assert s.parameters == ("workloads.stream.msg_bytes", "workloads.stream.streams",
                            "host.nic.mtu", "workloads.stream.window_bytes")
    last = s.points[-1]
    assert last.spec.workloads[0].msg_bytes == 65536 and last.spec.workloads[0].streams == 4
    assert last.spec.workloads[0].window_bytes == 4 * 65536
    assert {h.nic.mtu for h in last.spec.hosts} == {9000}


def test_cartesian_product_last_axis_fastest(quickstart_text):
    s = _expand(quickstart_text, '[sweep]\n"workloads.stream.msg_bytes" = [1, 2]\n'
                                 '"link.delay_us" = [0.5, 1.0, 2.0]')
    assert [(p.params["workloads.stream.msg_bytes"], p.params["link.delay_us"]) for p in s.points] == \
        [(1, 0.5), (1, 1.0), (1, 2.0), (2, 0.5), (2, 1.0), (2, 2.0)]
    assert [p.index for p in s.points] == list(range(6))


def test_nested_tables_name_the_same_axis(quickstart_text):
    s = _expand(quickstart_text, "[sweep.hosts.client.nic]\nmtu = [1500, 9000]")
    assert [p.spec.host("client").nic.mtu for p in s.points] == [1500, 9000]
    assert [p.spec.host("server").nic.mtu for p in s.points] == [1500, 1500]


def test_zip_pairs_values(quickstart_text):
    s = _expand(quickstart_text, '[sweep]\n"workloads.stream.msg_bytes" = [1, 2, 3]\n'
                                 '"host.nic.mtu" = [1500, 9000]\n'
                                 '"workloads.stream.streams" = [4, 5, 6]\n'
                                 'zip = [["workloads.stream.msg_bytes", "workloads.stream.streams"]]')
    pairs = [(p.params["workloads.stream.msg_bytes"], p.params["workloads.stream.streams"],
              p.params["host.nic.mtu"]) for p in s.points]
    assert pairs == [(1, 4, 1500), (1, 4, 9000), (2, 5, 1500), (2, 5, 9000), (3, 6, 1500), (3, 6, 9000)]


def test_derived_keys_see_axes_and_resolved_spec(quickstart_text):
    s = _expand(quickstart_text, '[sweep]\n"workloads.stream.msg_bytes" = [1024, 65536]\n'
                                 '[sweep.derive]\n'
                                 '"workloads.stream.window_bytes" = "max(2 * workloads.stream.msg_bytes, 8192)"\n'
                                 '"hosts.server.sysctl.net.core.rmem_max" = '
                                 '"workloads.stream.window_bytes * 2 if hosts.server.nic.mtu < 9000 else 0"')
    assert [p.spec.workloads[0].window_bytes for p in s.points] == [8192, 131072]
    assert [p.spec.host("server").sysctl for p in s.points] == [{"net.core.rmem_max": 16384},
                                                                 {"net.core.rmem_max": 262144}]


def test_a_derived_list_of_cpus_follows_the_swept_cores(quickstart_text):
    s = _expand(quickstart_text, '[sweep]\n"host.cpu.cores" = [1, 4]\n[sweep.derive]\n'
                                 '"host.nic.rps_cpus" = "range(host.cpu.cores * hosts.server.cpu.threads_per_core)"')
    assert [p.spec.host("server").nic.rps_cpus for p in s.points] == [[0], [0, 1, 2, 3]]


@pytest.mark.parametrize("table, message", [
    ('"workloads.stream.msg_byte" = [1, 2]', "did you mean 'msg_bytes'"),
    ('"workloads.strem.msg_bytes" = [1]', "the spec has no workloads.strem"),
    ('"hosts.client.nic.mtux" = [1500]', "hosts.client.nic has no key 'mtux'"),
    ('"host.role" = ["server"]', "host has no key 'role'"),
    ('"link.speed_gbps.x" = [1]', "link.speed_gbps is a value, not a table"),
    ('"host.nic" = [1]', "names a table, not a key"),
    ('"nic.mtu" = [1500]', "does not start with one of"),
    ('"workloads.stream.msg_bytes" = []', "sweep.\"workloads.stream.msg_bytes\": the axis is empty"),
    ('"workloads.stream.msg_bytes" = 5', "an axis is a list of values"),
    ('"link.delay_us" = [1.0]\n"link.speed_gbps" = [1.0, 2.0]\nzip = [["link.delay_us", "link.speed_gbps"]]',
     "zipped axes must have equal lengths"),
    ('"link.delay_us" = [1.0]\nzip = [["link.delay_us", "link.delay_uss"]]', "is not an axis of this sweep"),
    ('"workloads.stream.msg_bytes" = [1, 0]', "sweep point 1 (workloads.stream.msg_bytes=0): "
                                             "workloads.stream.msg_bytes: 0 is out of range"),
    ('"link.delay_us" = [1.0, 1]', "sweep point 1 (link.delay_us=1) is the same experiment as point 0"),
    ('[sweep.derive]\n"link.delay_us" = "__import__(\'os\')"', "only calls of"),
    ('[sweep.derive]\n"link.delay_us" = "link.x.y"', "'link.x.y' is neither a swept key"),
    ('[sweep.derive]\n"link.delay_us" = "[1]"', "List is not allowed"),
    ('[sweep.derive]\n"link.delay_us" = "1 +"', "is not an expression"),
    ('[sweep.derive]\n"link.delay_us" = "2 ** 1000"', "exponent 1000 is larger than 64"),
    ('"link.delay_us" = [1.0]\n[sweep.derive]\n"link.delay_us" = "2"', "already an axis"),
])
def test_errors_name_the_axis_or_point(quickstart_text, table, message):
    if not table.startswith("[sweep"):
        table = "[sweep]\n" + table
    with pytest.raises(SpecError) as e:
        _expand(quickstart_text, table)
    assert message in str(e.value)


def test_no_sweep_table_is_one_point(quickstart_text):
    s = _expand(quickstart_text, "")
    assert len(s.points) == 1 and s.points[0].params == {}


def test_sweep_command_reports_a_typo_before_anything_runs(quickstart_text, tmp_path, capsys):
    from g5net import cli
    spec = tmp_path / "typo.toml"
    spec.write_text(quickstart_text + '\n[sweep]\n"workloads.stream.msg_bytez" = [1, 2]\n')
    assert cli.main(["sweep", str(spec), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "sweep.\"workloads.stream.msg_bytez\"" in err and "did you mean 'msg_bytes'" in err
    assert not (tmp_path / "out").exists()
