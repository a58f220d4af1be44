"""`g5net doctor` without gem5 and with a fake one."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from g5net import cli

REPO = Path(__file__).resolve().parents[1]

PROBE = {"version": "24.0.0.1", "isas": ["x86"], "protocol": "MESI_Two_Level",
         "classic_caches": True, "kvm_cpu": True}


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("G5NET_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("G5NET_GEM5", raising=False)
    return tmp_path / "cache"


def doctor(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str]:
    rc = cli.main(["doctor", *args])
    return rc, capsys.readouterr().out


def test_without_gem5_doctor_says_how_to_point_at_one(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # QEMU stays findable, gem5 is not there
    rc, out = doctor(capsys)
    assert rc == 1
    assert out.startswith("gem5          missing  gem5 not found")
    assert "export G5NET_GEM5=/path/to/gem5/build/X86/gem5.opt" in out
    for name in ("qemu", "kernel-smp", "kernel-up", "kernel-smp-o3", "kernel-up-o3", "image", "per-host",
                 "cache"):
        assert any(line.startswith(name) for line in out.splitlines()), name
    rc, out = doctor(capsys, "--json")
    report = json.loads(out)
    assert report["gem5"]["ok"] is False and "G5NET_GEM5" in report["gem5"]["error"]
    assert set(report["artifacts"]) == {"kernel-smp", "kernel-up", "kernel-smp-o3", "kernel-up-o3", "image"}


def test_doctor_reports_what_gem5_says_about_itself(capsys, monkeypatch, tmp_path):
    fake = tmp_path / "gem5.opt"
    fake.write_text(f"#!{sys.executable}\nprint('G5NET-PROBE ' + {json.dumps(json.dumps(PROBE))})\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("G5NET_GEM5", str(fake))
    _, out = doctor(capsys)
    assert f"gem5          ok  {fake}" in out
    assert ("version 24.0.0.1, ISA x86, classic caches yes, Ruby protocol MESI_Two_Level, "
            "KVM CPU ") in out
    g = json.loads(doctor(capsys, "--json")[1])["gem5"]
    assert (g["ok"], g["binary"], g["protocol"], g["problems"]) == (True, str(fake), "MESI_Two_Level", [])


def test_without_gem5_doctor_prints_the_make_gem5_recipe_with_its_time(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    _, out = doctor(capsys)
    recipe = [
        "              to build one (gem5 v24, X86 gem5.opt, about 90 minutes of compilation on "
        "this machine's 2 cores):",
        "                git clone --depth 1 --branch v24.0.0.1 https://github.com/gem5/gem5 ~/gem5",
        f"                make -C {REPO} gem5 GEM5_SRC=~/gem5",
    ]
    lines = out.splitlines()
    assert lines[2:5] == recipe, out
    assert lines[1] == ('              needed for engine = "gem5" runs (examples/*-gem5.toml); '
                        "QEMU runs do without it")
    assert 'needed for specs with kernel = "up"' in out
    report = json.loads(doctor(capsys, "--json")[1])["gem5"]
    assert [f"              {line}" for line in report["recipe"][:3]] == recipe
    # The command it prints is the one the Makefile has: here, on a tree that is not gem5.
    make = recipe[2].split()[:-1] + [f"GEM5_SRC={tmp_path}"]
    r = subprocess.run(make, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and f"{tmp_path} is not a gem5 source tree" in r.stderr


def test_a_gem5_of_another_version_is_unusable_and_doctor_says_how_to_build_v24(capsys, monkeypatch,
                                                                                  tmp_path):
    fake = tmp_path / "gem5.opt"
    probe = {**PROBE, "version": "23.1.0.0"}
    fake.write_text(f"#!{sys.executable}\nprint('G5NET-PROBE ' + {json.dumps(json.dumps(probe))})\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("G5NET_GEM5", str(fake))
    rc, out = doctor(capsys)
    assert rc == 1
    assert f"gem5          unusable  {fake}" in out
    assert "problem: is gem5 23.1.0.0; g5net's configs are written for v24" in out
    assert "git clone --depth 1 --branch v24.0.0.1" in out
    g = json.loads(doctor(capsys, "--json")[1])["gem5"]
    assert g["ok"] is False and g["version"] == "23.1.0.0" and g["recipe"]


@pytest.mark.gem5
def test_doctor_finds_the_real_gem5_is_v24(gem5_engine, capsys, monkeypatch):
    binary = gem5_engine.probe().binary
    monkeypatch.setenv("G5NET_GEM5", str(binary))
    g = json.loads(doctor(capsys, "--json")[1])["gem5"]
    assert g["version"].split(".")[0] == "24", g
    assert (g["ok"], g["problems"], "recipe" in g) == (True, [], False)
    _, out = doctor(capsys)
    assert g["why"].startswith("G5NET_GEM5 names it")
    assert out.startswith(f"gem5          ok  {binary}\n              chosen because: G5NET_GEM5 names it")
    assert f"\n              version {g['version']}, ISA x86" in out
    assert "to build one" not in out


def test_doctor_says_whether_idle_cpus_would_poll_between_per_host_barriers(capsys, monkeypatch):
    monkeypatch.setenv("G5NET_IDLE_POLL", "0")
    _, out = doctor(capsys)
    assert "per-host      runs here: idle CPUs may halt between barriers (G5NET_IDLE_POLL=0)" in out.splitlines()
    monkeypatch.delenv("G5NET_IDLE_POLL")
    report = json.loads(doctor(capsys, "--json")[1])
    assert report["per_host"]["idle_cpus"].startswith(
        "idle CPUs poll between barriers" if os.access("/dev/cpu_dma_latency", os.W_OK)
        else "idle CPUs may halt between barriers, which then wake slower: ")
