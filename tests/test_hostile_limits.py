"""Values that validate but that what runs them cannot represent (issue 28):
a time under one gem5 tick or past its tick counter, more flows than ports,
a dump number or count in digits other than ASCII's, a --slurm-flag that
sbatch would read as one of g5net's own lines; and errors that stay one
short line, however long or odd the value they quote."""

from __future__ import annotations

import json
import re

import pytest
from conftest import EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from g5net import cli, spec
from g5net.errors import RunnerError, SpecError
from g5net.model import specs
from g5net.model.numerals import ascii_int
from g5net.runners import slurm

QUICKSTART = (EXAMPLES / "quickstart.toml").read_text()
PER_HOST = (EXAMPLES / "quickstart-gem5.toml").read_text().replace(
    "[experiment]\n", '[experiment]\nprocesses = "per-host"\n', 1)
TICK_US = spec.GEM5_TICK_US


def _set(text: str, table: str, key: str, value) -> str:
    """`text` with [table] key = value, in place of a value the text had."""
    text = re.sub(rf"^{re.escape(key)} = .*\n", "", text, flags=re.M)
    return text.replace(f"[{table}]\n", f"[{table}]\n{key} = {json.dumps(value)}\n", 1)


TIME_KEYS = [("link", "delay_us"), ("link", "switch_delay_us"), ("host.nic", "pcie_latency_ns"),
             ("experiment", "pc_sample_us")]


@settings(max_examples=120, deadline=None)
@given(where=st.sampled_from(TIME_KEYS),
       value=st.floats(min_value=0, max_value=1e16, allow_nan=False)
       | st.floats(min_value=0, max_value=1e-5))
def test_a_time_gem5_cannot_count_in_ticks_is_refused(where, value):
    table, key = where
    text = QUICKSTART.replace('engine = "qemu"', 'engine = "gem5"')
    if key == "switch_delay_us":
        text = _set(text, "link", "switch", True)
    us = value / 1000 if key.endswith("_ns") else value
    try:
        specs.loads(_set(text, table, key, value))
    except SpecError as e:
        if 0 < us < TICK_US:
            # A sampling period has a shorter bound of its own, checked first.
            assert "under one of gem5's ticks" in str(e) or key == "pc_sample_us"
        elif us > spec.MAX_SIMULATED_US:  # or past a bound of the key's own
            assert "more simulated time than a run may ask of gem5" in str(e) or "out of range" in str(e)
        else:
            assert "gem5's ticks" not in str(e) and "more simulated time" not in str(e)
        return
    assert us == 0 or TICK_US <= us <= spec.MAX_SIMULATED_US
    assert key != "pc_sample_us" or us == 0 or us >= 8

@pytest.mark.parametrize("delay_us, refused", [(2e-6, False), (1.5e-6, True), (1e-6, True)])
def test_a_per_host_quantum_under_one_tick_is_refused(delay_us, refused):
    """Two hosts back to back meet at dist-gem5's switch, half the link's delay
    each way: a delay of 1.5 ps validates, and its hops of 0.75 ps do not."""
    text = PER_HOST.replace("delay_us = 1.0", f"delay_us = {delay_us}")
    if not refused:
        assert specs.loads(text).sync_quantum_us == delay_us / 2
        return
    with pytest.raises(SpecError, match=r"the shortest hop's delay\): 0\.\d+ ps is under one of gem5's ticks"):
        specs.loads(text)


def test_a_sampling_period_past_the_tick_counter_is_refused():
    text = _set(QUICKSTART.replace('engine = "qemu"', 'engine = "gem5"'), "experiment", "pc_sample_us", 1.8e13)
    with pytest.raises(SpecError, match=r"^experiment.pc_sample_us: 1.8e\+13 us is more simulated time"):
        specs.loads(text)


def test_more_flows_than_ports_are_refused():
    text = QUICKSTART.replace('[hosts.client]\nrole = "client"', '[hosts.client]\nrole = "client"\nreplicas = 64')
    text = text.replace("mtu = 1500", "mtu = 1500\ncount = 4")
    for i in range(8):
        text += f'\n[workloads.s{i}]\nkind = "iperf"\nduration_s = 1\ninstances = 16\ndirection = "both"\n'
    with pytest.raises(SpecError, match=r"^workloads: 65856 flows .* at most 60535 flows$"):
        specs.loads(text)


@given(text=st.text(max_size=6))
def test_only_ascii_digits_are_a_number(text):
    number = ascii_int(text)
    assert (number is not None) == (text != "" and all(c in "0123456789" for c in text))
    if number is not None:
        assert number == int(text)


@pytest.mark.parametrize("digits", ["\u0661", "\u00b2", "\uff11", "1\u0663", "\u09e7"])
def test_other_scripts_digits_are_no_dump_number_or_job_count(tmp_path, capsys, digits):
    stats = tmp_path / "stats.txt"
    stats.write_text("")
    with pytest.raises(SystemExit) as e:
        cli.main(["stats", str(stats), "--dump", digits])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        cli.main(["sweep", str(EXAMPLES / "sweep-quick.toml"), "--jobs", digits, "--dry-run"])
    assert e.value.code == 2


@pytest.mark.parametrize("key", ["array", "arr", "a", "ar", "output", "out", "o", "job_name", "job-n",
                                 "j", "error", "err", "wrap"])
def test_a_slurm_flag_sbatch_would_read_as_g5net_s_own_is_refused(key):
    with pytest.raises(RunnerError, match=r"^--slurm-flag .*: sbatch reads it as --(array|output|job-name|error|wrap), "
                                          r"which g5net sets itself$"):
        slurm.check_site_flags({key: "0-3"}, 1)


@pytest.mark.parametrize("value", ["abc", "", "0", "-1", "1.5", "\u0661", "2 3"])
def test_a_count_that_is_none_is_one_line_before_anything_is_planned(tmp_path, capsys, value):
    argv = ["sweep", str(EXAMPLES / "sweep-quick.toml"), "--runner", "slurm", "--dry-run",
            "--out", str(tmp_path / "s"), "--slurm-flag", f"ntasks={value}"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("g5net sweep: error: --slurm-flag ntasks=") and "\n" not in err
    assert not (tmp_path / "s").exists()


def test_site_flags_g5net_leaves_to_the_site_pass():
    slurm.check_site_flags({"partition": "long", "account": "x", "ntasks": "8", "time": "60"}, 4)


# ------------------------------------------------------------- error lines

VALUES = st.one_of(st.text(min_size=1, max_size=200).map(lambda t: t * 30_000),
                   st.text(alphabet="ab\n\r\x00\x1b\u2028 ", min_size=1, max_size=20))
KEYS = [("experiment", "name"), ("experiment", "engine"), ("link", "delay_us"), ("host.nic", "mtu"),
        ("hosts.client", "ip"), ("hosts.client", "kernel"), ("workloads.stream", "kind"),
        ("host", "kernel_args"), ("link", "no_such_key")]


@settings(max_examples=80, deadline=None)
@given(where=st.sampled_from(KEYS), value=VALUES)
def test_an_error_quoting_a_huge_or_odd_value_stays_one_short_line(where, value):
    table, key = where
    text = QUICKSTART if table != "hosts.client" else QUICKSTART.replace("[hosts.client]\n", "[hosts.client]\n", 1)
    try:
        specs.loads(_set(text, table, key, [value] if key == "kernel_args" else value))
    except SpecError as e:
        message = str(e)
        assert "\n" not in message and "\r" not in message and len(message) < 400, message[:500]


@settings(max_examples=60, deadline=None)
@given(key=VALUES)
def test_an_unknown_key_of_any_name_is_one_short_line(key):
    with pytest.raises(SpecError) as e:
        specs.loads(QUICKSTART.replace("[link]\n", f"[link]\n{json.dumps(key)} = 1\n", 1))
    assert "\n" not in str(e.value) and len(str(e.value)) < 400
