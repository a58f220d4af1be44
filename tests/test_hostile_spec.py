"""Hostile and damaged specs and sweeps (issue 14): each is refused with one
line that names the key or file, exit status 2, and nothing written."""

import json

import pytest
from conftest import EXAMPLES
from test_spec import MINIMAL as UNNAMED
from test_spec import error

from g5net import cli
from g5net.errors import SpecError
from g5net.model import sweep
from g5net.model import specs

MINIMAL = '[experiment]\nname = "probe"\n' + UNNAMED


def sweep_error(table: str, base: str = MINIMAL) -> str:
    with pytest.raises(SpecError) as e:
        sweep.expand(specs.parse_toml(base + table))
    return str(e.value)


@pytest.mark.parametrize("name", [
    "probe\ntouch x #", "../../x", "/tmp/x", "a/b", "", "x" * 65, "a b", "a;b", "$(id)",
    "'q'", "a,b", "-rf", ".hidden", "a..b", "tab\there", "bell\x07",
])
def test_bad_experiment_names_are_refused(name):
    text = MINIMAL.replace('name = "probe"', f"name = {json.dumps(name)}")
    assert error(text).startswith(f"experiment.name: name {name!r} is not allowed")


@pytest.mark.parametrize("name", ["c,file.locking=off,if=none,id=x", "a b", "x;reboot", "a\nb",
                                  "../up", "x" * 65])
def test_bad_host_and_workload_names_are_refused(name):
    quoted = json.dumps(name)
    hosts = MINIMAL.replace("[hosts.client]", f"[hosts.{quoted}]")
    assert error(hosts).startswith(f"hosts: name {name!r} is not allowed")
    workloads = MINIMAL.replace("[workloads.stream]", f"[workloads.{quoted}]")
    assert error(workloads).startswith(f"workloads: name {name!r} is not allowed")


def test_names_the_examples_use_are_allowed():
    for name in ("study-niagara2-nic-quick", "client-1", "a.b_c-2", "x" * 64):
        specs.loads(MINIMAL.replace('"probe"', f'"{name}"'))


@pytest.mark.parametrize("value", ["1 init=/bin/sh", "1,net.core.x=2", "a=b", "x\ny", "", "'1'"])
def test_sysctl_values_that_would_end_their_word_are_refused(value):
    text = MINIMAL + f'[host.sysctl]\n"net.core.rmem_max" = {json.dumps(value)}\n'
    assert error(text).startswith("hosts.server.sysctl.net.core.rmem_max: expected an integer or one word")


@pytest.mark.parametrize("key", ["net core", "a=b", "../../etc/passwd", "net..core", "x,y", ""])
def test_sysctl_names_that_are_no_proc_sys_path_are_refused(key):
    text = MINIMAL + f'[host.sysctl]\n{json.dumps(key)} = 1\n'
    assert error(text) == (f"hosts.server.sysctl: {key!r} is not a sysctl name (dotted words of "
                           f"letters, digits, '_' and '-', as in net.core.rmem_max)")


def test_sysctl_values_a_study_uses_are_allowed():
    s = specs.loads(MINIMAL + '[host.sysctl]\n"net.core.rmem_max" = 104857600\n'
                   '"net.ipv4.tcp_rmem" = "4096:87380:6291456"\n"net.ipv4.tcp_congestion_control" = "cubic"\n')
    assert s.hosts[0].sysctl["net.ipv4.tcp_rmem"] == "4096:87380:6291456"


@pytest.mark.parametrize("table, key, value, dotted", [
    ("[host.cpu]", "clock_ghz", "nan", "hosts.server.cpu"),
    ("[link]", "delay_us", "inf", "link"),
    ("[link]", "speed_gbps", "-inf", "link"),
    ("[link]", "switch_delay_us", "nan", "link"),
    ("", "duration_s", "inf", "workloads.stream"),
    ("", "udp_mbps", "nan", "workloads.stream"),
])
def test_nan_and_infinity_are_refused(table, key, value, dotted):
    # An empty table: the key goes on in [workloads.stream], the last table.
    text = MINIMAL + f"{table}\n{key} = {value}\n"
    assert error(text) == f"{dotted}.{key}: {float(value)!r} is not a finite number"


@pytest.mark.parametrize("key, value, bound", [
    ("msg_bytes", 2**70, "1..1073741824"), ("window_bytes", 2**40, "0..2147483647"),
    ("bytes", 2**60, "0..9007199254740992"), ("repeats", 10**30, "0..9007199254740992"),
])
def test_integers_have_upper_bounds(key, value, bound):
    assert error(MINIMAL + f"{key} = {value}\n") == \
        f"workloads.stream.{key}: {value} is out of range ({bound})"


@pytest.mark.parametrize("client, message", [
    ('ip = "not-an-ip"', "hosts.client.ip: 'not-an-ip' is not an IPv4 address"),
    ('role = "banana"', "hosts.client.role: 'banana' is not one of 'server', 'client'"),
    ("peer = 42", "hosts.client.peer: expected a string, got 42"),
    ('role = "server"', 'hosts: no host has role = "client" (a server only answers clients)'),
    ("[experiment]\ntimeout_s = 60\nboot_timeout_s = 120",
     "experiment.boot_timeout_s: 120 is longer than experiment.timeout_s 60, which ends the run"),
])
def test_values_once_dropped_without_a_word_are_refused(client, message):
    # In place of the client's role line; a role given twice would be a TOML error.
    keep = "" if client.startswith("role") else 'role = "client"\n'
    assert error(UNNAMED.replace('role = "client"\n', keep + client + "\n")) == message


@pytest.mark.parametrize("key, value", [("ip", '"not-an-ip"'), ("role", '"banana"'), ("peer", "42"),
                                        ("replicas", "2"), ("name", '"x"')])
def test_keys_of_one_host_are_no_defaults(key, value):
    """[host] holds defaults for every host: a key that names one host was dropped there."""
    assert error(MINIMAL + f"[host]\n{key} = {value}\n") == (
        f"host.{key}: names one host, so it is no default for every host; "
        f"set it in a [hosts.<name>] table")


def test_a_date_is_refused_naming_its_key():
    assert error(MINIMAL + "bytes = 1979-05-27\n") == (
        "spec: workloads.stream.bytes: 1979-05-27 is a date or time, which no key takes "
        "(quote it to make it a string)")


def test_deep_nesting_is_a_spec_error():
    assert error("x = " + "[" * 5000 + "]" * 5000) == "spec: not valid TOML: nested too deeply"


def test_a_spec_that_is_not_utf8_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(MINIMAL.replace("probe", "pr\xf6be").encode("latin-1"))
    with pytest.raises(SpecError) as e:
        specs.load(path)
    at = MINIMAL.index("probe") + 2  # the o, one byte in Latin-1
    assert str(e.value) == f"{path}: not UTF-8 text (byte {at}); TOML files are UTF-8"


# ------------------------------------------------------------------ sweeps

SWEPT = '[sweep]\n"workloads.stream.msg_bytes" = [1024, 2048]\n'


@pytest.mark.parametrize("expression, why", [
    ("'x' * 200000000", "the result would be longer than 10000"),
    ("200000000 * 'x'", "the result would be longer than 10000"),
    ("9 ** 64 ** 64 ** 64", "64 ** 64 has more than 256 bits"),
    ("(9 ** 64) ** 64", "** 64 has more than 256 bits"),
    ("int(1e300)", "the result has more than 256 bits"),
    ("2 ** 65", "exponent 65 is larger than 64"),
    ("range(10 ** 18)", "the result is longer than 10000"),
    ("range(1.5)", "'float' object cannot be interpreted as an integer"),
])
def test_expressions_are_bounded_before_they_run(expression, why):
    message = sweep_error(SWEPT + f'[sweep.derive]\n"workloads.stream.window_bytes" = "{expression}"\n')
    assert message.startswith('sweep point 0 (workloads.stream.msg_bytes=1024): '
                              f'sweep.derive."workloads.stream.window_bytes": {expression!r}: ')
    assert message.endswith(why)


def test_a_long_expression_is_refused():
    text = "1" + "+1" * 600
    assert sweep_error(SWEPT + f'[sweep.derive]\n"workloads.stream.window_bytes" = "{text}"\n') == \
        'sweep.derive."workloads.stream.window_bytes": the expression is longer than 1000 characters'


def test_too_many_points_are_refused_before_any_is_built():
    axes = f'[sweep]\n"workloads.stream.msg_bytes" = {list(range(1, 1001))}\n' \
           f'"workloads.stream.streams" = {[1] * 1000}\n'
    assert sweep_error(axes) == "sweep: 1000000 points is more than 10000 " \
                                "(`g5net sweep --max-points N` allows more)"


def test_max_points_is_a_parameter():
    with pytest.raises(SpecError, match="sweep: 2 points is more than 1 "):
        sweep.expand(specs.parse_toml(MINIMAL + SWEPT), max_points=1)


@pytest.mark.parametrize("table, message", [
    ('"workloads.stream.msg_bytes" = [1, 2]\n"workloads.stream.streams" = [1, 2]\n'
     'zip = [[["workloads.stream.msg_bytes"], ["workloads.stream.streams"]]]\n',
     "sweep.zip: expected a list of lists of axis paths, got"),
    ('"workloads.stream.msg_bytes.x" = [1]\n',
     "workloads.stream.msg_bytes is a value, not a table"),
    ('zip = 5\n', "sweep.zip: expected a list of lists of axis paths, got 5"),
    ('derive = [1]\n', 'sweep.derive: expected a table of "path" = "expression", got [1]'),
])
def test_malformed_sweep_tables_are_spec_errors(table, message):
    assert message in sweep_error("[sweep]\n" + table)


@pytest.mark.parametrize("base_key, axis", [("hosts", "hosts.client.replicas"),
                                            ("host", "host.nic.mtu"),
                                            ("workloads", "workloads.stream.msg_bytes")])
def test_an_axis_into_a_scalar_is_a_spec_error(base_key, axis):
    data = specs.parse_toml(MINIMAL)
    data[base_key] = {"client": 5} if base_key == "hosts" else (5 if base_key == "host" else {"stream": 5})
    data["sweep"] = {axis: [1, 2]}
    with pytest.raises(SpecError) as e:
        sweep.expand(data)
    assert "expected a table, got 5" in str(e.value)


def test_hosts_that_are_no_table_with_a_host_axis_is_a_spec_error():
    data = specs.parse_toml(MINIMAL)
    data["hosts"] = 5
    data["sweep"] = {"hosts.client.replicas": [1, 2]}
    with pytest.raises(SpecError, match=r"'hosts.client.replicas': hosts: expected a table, got 5"):
        sweep.expand(data)


# --------------------------------------------------------- the command line

@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """The command runs in an empty folder: anything it writes shows there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("text, message", [
    (MINIMAL.replace('"probe"', '"../../x"'), "experiment.name: name '../../x' is not allowed"),
    (MINIMAL + "duration_s = nan\n", "workloads.stream.duration_s: nan is not a finite number"),
    (MINIMAL + "bytes = 1979-05-27\n", "is a date or time"),
    ("x = " + "[" * 5000 + "]" * 5000, "not valid TOML: nested too deeply"),
])
@pytest.mark.parametrize("command", [["run"], ["sweep"], ["sweep", "--dry-run"]])
def test_cli_refuses_hostile_specs_with_one_line_and_writes_nothing(in_tmp, capsys, text, message,
                                                                   command):
    path = in_tmp / "hostile.toml"
    path.write_text(text)
    assert cli.main([command[0], str(path), *command[1:]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and f"g5net {command[0]}: error: " in err
    assert sorted(p.name for p in in_tmp.iterdir()) == ["hostile.toml"]


def test_cli_refuses_a_spec_that_is_not_utf8(in_tmp, capsys):
    path = in_tmp / "binary.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert cli.main(["sweep", str(path), "--dry-run"]) == 2
    assert capsys.readouterr().err == f"g5net sweep: error: {path}: not UTF-8 text (byte 0); " \
                                      f"TOML files are UTF-8\n"


def test_cli_sweep_max_points_flag(in_tmp, capsys):
    path = in_tmp / "big.toml"
    path.write_text((EXAMPLES / "sweep-quick.toml").read_text())
    assert cli.main(["sweep", str(path), "--dry-run", "--max-points", "2"]) == 2
    assert "points is more than 2 (`g5net sweep --max-points N` allows more)" in capsys.readouterr().err
    assert sorted(p.name for p in in_tmp.iterdir()) == ["big.toml"]


@pytest.mark.parametrize("command", [["run"], ["sweep", "--dry-run"]])
def test_engine_limits_are_checked_before_anything_is_written(in_tmp, capsys, command):
    """QEMU runs at most 32 guests: said before a run directory or plan exists."""
    path = in_tmp / "many.toml"
    path.write_text(MINIMAL.replace("[hosts.client]", "[hosts.client]\nreplicas = 40"))
    assert cli.main([command[0], str(path), *command[1:]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "hosts: the qemu engine runs at most 32 guests (spec has 41)" in err
    assert sorted(p.name for p in in_tmp.iterdir()) == ["many.toml"]
