"""Property tests (issue 14): random and mutated input to the spec loader, the
sweep expander and the stats parser either loads or raises g5net's own error
(g5net/errors.py) - never another exception, never a hang. Each example has a
deadline; the file runs in well under 30 s."""

import copy
import os
import string

from conftest import EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from g5net.errors import G5netError, SpecError, StatsParseError
from g5net.model import sweep
from g5net.model import specs
from g5net.stats import iter_dumps
from g5net.stats.parse import BEGIN, END, _parse

QUICKSTART = (EXAMPLES / "quickstart.toml").read_text()
BASE = specs.parse_toml(QUICKSTART)
# No database folder in the checkout; a deadline per example (ms) that a loaded
# machine still meets, while a hang or a runaway expansion does not.
# G5NET_HYPOTHESIS_EXAMPLES=5000 searches harder, for a while.
PROPERTY = settings(max_examples=int(os.environ.get("G5NET_HYPOTHESIS_EXAMPLES", 120)),
                    deadline=2000, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-2**80, max_value=2**80)
           | st.floats() | st.text(max_size=20))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
# Keys a spec has, so that random values reach validation and not only the unknown-key check.
SPEC_PATHS = [("experiment", k) for k in ("name", "engine", "timeout_s", "boot_timeout_s", "icount")] \
    + [("host", k) for k in ("memory_mb", "kernel", "sysctl", "kernel_args", "link", "role", "ip")] \
    + [("host", "nic", k) for k in ("count", "mtu", "offloads", "irq_cpus", "attach", "dca")] \
    + [("host", "cpu", k) for k in ("cores", "threads_per_core", "clock_ghz", "preset")] \
    + [("hosts", "client", k) for k in ("peer", "ip", "replicas", "role", "link")] \
    + [("link", k) for k in ("speed_gbps", "delay_us", "switch", "switch_delay_us")] \
    + [("workloads", "stream", k) for k in ("kind", "msg_bytes", "duration_s", "client_cpus",
                                            "direction", "instances", "file_bytes", "bytes")]
paths = st.sampled_from(SPEC_PATHS) | st.lists(st.text(max_size=8), min_size=1, max_size=3).map(tuple)


def _put(data: dict, path: tuple, value) -> dict:
    out = copy.deepcopy(data)
    node = out
    for k in path[:-1]:
        nxt = node.get(k) if isinstance(node, dict) else None
        if not isinstance(nxt, dict):
            nxt = {}
            node[k] = nxt
        node = nxt
    node[path[-1]] = value
    return out


def _loads_or_spec_error(load) -> None:
    try:
        load()
    except SpecError:
        pass


@PROPERTY
@given(st.lists(st.tuples(paths, values), min_size=1, max_size=4))
def test_from_dict_takes_any_values(changes):
    data = BASE
    for path, value in changes:
        data = _put(data, path, value)
    _loads_or_spec_error(lambda: specs.from_dict(data))


@PROPERTY
@given(st.data())
def test_loads_takes_mutated_text(data):
    text = QUICKSTART
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 20))
        insert = data.draw(st.text(alphabet=string.printable + "\x00\u00e9\u0661[]{}=\"'", max_size=12))
        text = text[:at] + insert + text[at + cut:]
    _loads_or_spec_error(lambda: specs.loads(text))


# ------------------------------------------------------------------ sweeps

AXIS_PATHS = ["workloads.stream.msg_bytes", "workloads.latency.max_bytes", "host.nic.mtu",
              "host.cpu.cores", "hosts.client.replicas", "link.speed_gbps", "experiment.name",
              "host.sysctl.net.core.rmem_max", "hosts.nobody.x", "workloads", "zip", "derive"]
axis_values = st.lists(scalars | st.lists(scalars, max_size=2), max_size=4) | scalars
atoms = st.sampled_from(["1", "2", "0", "-1", "1.5", "'x'", "True", "workloads.stream.msg_bytes",
                         "host.nic.mtu", "nowhere.at.all", "64", "1e308", "10**64"])
expressions = st.recursive(
    atoms,
    lambda e: st.tuples(e, st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "<", "and", "or"]), e)
    .map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    | e.map(lambda x: f"-{x}") | e.map(lambda x: f"int({x})") | e.map(lambda x: f"max({x}, 1)"),
    max_leaves=8)
sweep_tables = st.fixed_dictionaries(
    {}, optional={"axes": st.dictionaries(st.sampled_from(AXIS_PATHS) | st.text(max_size=12),
                                          axis_values, max_size=3),
                  "zip": st.lists(st.lists(st.sampled_from(AXIS_PATHS) | scalars, max_size=3), max_size=2)
                  | scalars,
                  "derive": st.dictionaries(st.sampled_from(AXIS_PATHS), expressions | scalars, max_size=2)
                  | scalars})


@PROPERTY
@given(sweep_tables)
def test_expand_takes_any_sweep_table(table):
    data = copy.deepcopy(BASE)
    data["sweep"] = {**table.pop("axes", {}), **table}
    _loads_or_spec_error(lambda: sweep.expand(data, max_points=64))


@PROPERTY
@given(expressions)
def test_derived_expressions_are_bounded(expression):
    data = copy.deepcopy(BASE)
    data["sweep"] = {"workloads.stream.msg_bytes": [1024],
                     "derive": {"workloads.stream.window_bytes": expression}}
    _loads_or_spec_error(lambda: sweep.expand(data))


# ------------------------------------------------------------------ stats

stat_tokens = st.sampled_from(["a.b", "x::0", "1", "-1", "1.5", "nan", "-inf", "12%", "1_0", "\u0661",
                               "#", "# words", BEGIN, END, "", " ", "9" * 30, "1e400", "--", "%"])
stat_lines = st.lists(stat_tokens, max_size=5).map(" ".join) | st.sampled_from([BEGIN, END]) \
    | st.text(max_size=30)


@PROPERTY
@given(st.lists(stat_lines, max_size=30))
def test_stats_parser_takes_any_lines(lines):
    try:
        dumps = list(_parse(iter(line + "\n" for line in lines), "stats.txt"))
    except StatsParseError as e:
        assert str(e).startswith("stats.txt:")
        return
    for d in dumps:
        for name, stat in d.items():
            assert isinstance(stat.value, (int, float)), (name, stat)


@PROPERTY
@given(st.binary(max_size=300))
def test_iter_dumps_takes_any_bytes(tmp_path_factory, blob):
    path = tmp_path_factory.getbasetemp() / "random-stats.txt"
    path.write_bytes(blob)
    try:
        list(iter_dumps(path))
    except StatsParseError:
        pass


def test_the_errors_are_g5nets_own():
    """What the properties accept is the project's hierarchy, not a stand-in."""
    assert issubclass(SpecError, G5netError) and issubclass(StatsParseError, G5netError)
