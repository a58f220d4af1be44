"""The guest's tools: m5's gem5 x86 pseudo-instruction encoding and its
harmlessness off gem5; nicreg's refusals (its register writes are the QEMU and
gem5 runs' to show: tests/test_multinic_qemu.py, the gem5-udp-wthresh fixture)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from g5net.artifacts import guest_tools


@pytest.fixture(scope="module")
def m5(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("m5") / "m5"
    guest_tools.compile_tool(guest_tools.TOOLS["sbin/m5"], path)
    return path


@pytest.mark.parametrize("function", [0x21, 0x40, 0x41, 0x43, 0x4F, 0x50],
                         ids=["exit", "resetstats", "dumpstats", "checkpoint", "writefile",
                              "readfile"])
def test_binary_holds_each_pseudo_instruction(m5, function):
    # 0x0F 0x04, then the function number as a little-endian 16-bit immediate.
    assert bytes([0x0F, 0x04, function, 0x00]) in m5.read_bytes()


def test_static(m5):
    from g5net.artifacts.elf import dependencies
    deps = dependencies(m5)
    assert deps.interpreter is None and deps.needed == ()


@pytest.mark.parametrize("command", [["resetstats"], ["dumpstats", "0", "0"], ["checkpoint"],
                                     ["writefile", "/etc/hostname"]])
def test_off_gem5_statistics_commands_do_nothing(m5, command):
    # This host's /proc/cmdline has no g5net.engine=gem5: the opcode must not run
    # (it would be SIGILL here).
    r = subprocess.run([m5, *command], capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_bad_usage(m5):
    r = subprocess.run([m5, "dumpstats", "soon"], capture_output=True, text=True)
    assert r.returncode == 2 and "not a number" in r.stderr
    r = subprocess.run([m5, "frobnicate"], capture_output=True, text=True)
    assert r.returncode == 2 and "unknown command: frobnicate" in r.stderr
    r = subprocess.run([m5, "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "m5 readfile" in r.stdout


@pytest.fixture(scope="module")
def nicreg(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nicreg") / "nicreg"
    guest_tools.compile_tool(guest_tools.TOOLS["sbin/nicreg"], path)
    return path


@pytest.mark.parametrize("args, error", [
    ([], "usage: nicreg IFACE OFFSET [VALUE [MASK]]"),
    (["eth0", "0x2829"], "nicreg: OFFSET 0x2829 is not 4-byte aligned"),
    (["eth0", "RXDCTL"], "nicreg: OFFSET: not a 32-bit number: RXDCTL"),
    (["eth0", "0x2828", "0x100000000"], "nicreg: VALUE: not a 32-bit number: 0x100000000"),
])
def test_nicreg_refuses_what_it_cannot_write_before_touching_a_device(nicreg, args, error):
    r = subprocess.run([nicreg, *args], capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr.strip()) == (2, "", error)


def test_nicreg_names_the_bar_it_cannot_open(nicreg):
    r = subprocess.run([nicreg, "g5net-none", "0x2828"], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.startswith("/sys/class/net/g5net-none/device/resource0: ")
