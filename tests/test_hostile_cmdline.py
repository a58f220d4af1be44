"""The guest's kernel command line (issue 28): the protocol's words are its
own, so a spec's kernel_args word of one of their keys is refused; and the
whole line fits the engine's buffer (gem5's x86 loader 511 characters,
Linux 2047), checked before anything boots, naming the host."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from g5net import cli, spec
from g5net.engines import qemu
from g5net.engines.gem5 import cmdline
from g5net.errors import SpecError
from g5net.guest import kernel_cmdline
from g5net.model import specs

QUICKSTART = (EXAMPLES / "quickstart.toml").read_text()
CHECKS = {"qemu": qemu.check_spec, "gem5": cmdline.check_cmdlines}
LIMITS = {"qemu": kernel_cmdline.LINUX_MAX_CHARS, "gem5": cmdline.MAX_CMDLINE_CHARS}
WORD = st.text("abcdefghijklmnopqrstuvwxyz0123456789_.,:=/+-", min_size=1, max_size=12)


def _with(kernel_args: list[str] = (), sysctl: dict | None = None, host: str = "client") -> spec.Spec:
    text = QUICKSTART.replace(f"[hosts.{host}]", f"[hosts.{host}]\nkernel_args = {json.dumps(list(kernel_args))}")
    if sysctl:
        text += "\n[host.sysctl]\n" + "".join(f'"{k}" = {json.dumps(v)}\n' for k, v in sysctl.items())
    return specs.loads(text)


@st.composite
def protocol_words(draw) -> str:
    """A word whose key the protocol sets: one of its keys, or any g5net.* key."""
    key = draw(st.sampled_from(sorted(kernel_cmdline.PROTOCOL_KEYS))
               | WORD.filter(lambda w: "=" not in w).map(lambda w: "g5net." + w))
    value = draw(st.none() | WORD)
    return key if value is None else f"{key}={value}"


@settings(max_examples=60, deadline=None)
@given(before=st.lists(WORD.filter(lambda w: not w.startswith("g5net.")
                                   and w.partition("=")[0] not in kernel_cmdline.PROTOCOL_KEYS), max_size=3),
       word=protocol_words(), engine=st.sampled_from(sorted(CHECKS)))
def test_a_protocol_word_in_kernel_args_is_refused_on_every_engine(before, word, engine):
    s = _with([*before, word])
    with pytest.raises(SpecError, match=r"^hosts\.client\.kernel_args: .* g5net's guest protocol sets itself"):
        CHECKS[engine](s)


@pytest.mark.parametrize("word", ["g5net.role=server", "g5net.ip=10.0.0.1/24", "g5net.host=server",
                                  "init=/bin/sh", "root=/dev/sdb", "rw", "console=ttyS1", "panic=0",
                                  "g5net.sysctl=net.core.rmem_max=1", "g5net.anything"])
def test_the_issue_s_words_are_refused_by_g5net_run(tmp_path, capsys, word):
    path = tmp_path / "spec.toml"
    path.write_text(QUICKSTART.replace("[hosts.client]", f'[hosts.client]\nkernel_args = ["{word}"]'))
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("g5net run: error: hosts.client.kernel_args: ") and "\n" not in err
    assert not (tmp_path / "out").exists()


@settings(max_examples=60, deadline=None)
@given(words=st.lists(WORD.filter(lambda w: not w.startswith("g5net.")
                                  and w.partition("=")[0] not in kernel_cmdline.PROTOCOL_KEYS),
                      max_size=60),
       engine=st.sampled_from(sorted(CHECKS)))
def test_a_command_line_is_accepted_exactly_when_it_fits(words, engine):
    s = _with(words)
    line = max(len(cmdline.gem5_cmdline(h, cmdline.SMALLEST_HZ)) if engine == "gem5"
               else len(kernel_cmdline.build(h, "qemu", ("no_timer_check",))) for h in s.hosts)
    if line <= LIMITS[engine]:
        CHECKS[engine](s)
    else:
        with pytest.raises(SpecError, match=rf"^hosts\.client: its kernel command line is {line} characters"):
            CHECKS[engine](s)


def test_a_tuning_spec_that_overflows_gem5_s_loader_is_refused_before_gem5_runs():
    """4 NICs, MTU 9000 and a few sysctls: within Linux's buffer, past gem5's."""
    sysctl = {"net.core.rmem_max": 67108864, "net.core.wmem_max": 67108864,
              "net.ipv4.tcp_rmem": "4096:87380:67108864", "net.ipv4.tcp_wmem": "4096:65536:67108864",
              "net.core.netdev_max_backlog": 250000, "net.ipv4.tcp_congestion_control": "htcp",
              "net.ipv4.tcp_mtu_probing": 1, "net.core.default_qdisc": "fq"}
    text = QUICKSTART.replace("mtu = 1500", "mtu = 9000\ncount = 4")
    text += "\n[host.sysctl]\n" + "".join(f'"{k}" = {json.dumps(v)}\n' for k, v in sysctl.items())
    s = specs.loads(text)
    qemu.check_spec(s)
    with pytest.raises(SpecError, match=r"^hosts\.server: its kernel command line is \d+ characters, "
                                        r"more than the 511 that gem5's x86 loader holds"):
        cmdline.check_cmdlines(s)


def test_linux_s_limit_is_checked_on_qemu():
    s = _with([f"x{i}=" + "y" * 60 for i in range(40)])
    with pytest.raises(SpecError, match=r"more than the 2047 that Linux's command-line buffer holds"):
        qemu.check_spec(s)


def test_every_example_and_study_fits_both_engines():
    from pathlib import Path

    from g5net.model import sweep
    repo = EXAMPLES.parent
    files = [*EXAMPLES.glob("*.toml"), *(repo / "studies").glob("*/quick.toml"),
             *(repo / "studies").glob("*/full.toml")]
    for f in files:
        for p in sweep.load(Path(f), 100_000).points:
            cmdline.check_cmdlines(p.spec)
