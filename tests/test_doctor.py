"""`g5net doctor` without gem5 and with a fake one."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from g5net import cli

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
    assert out.startswith("gem5       missing  gem5 not found")
    assert "export G5NET_GEM5=/path/to/gem5/build/X86/gem5.opt" in out
    for name in ("qemu", "kernel-smp", "kernel-up", "image", "cache"):
        assert any(line.startswith(name) for line in out.splitlines()), name
    rc, out = doctor(capsys, "--json")
    report = json.loads(out)
    assert report["gem5"]["ok"] is False and "G5NET_GEM5" in report["gem5"]["error"]
    assert set(report["artifacts"]) == {"kernel-smp", "kernel-up", "image"}


def test_doctor_reports_what_gem5_says_about_itself(capsys, monkeypatch, tmp_path):
    fake = tmp_path / "gem5.opt"
    fake.write_text(f"#!{sys.executable}\nprint('G5NET-PROBE ' + {json.dumps(json.dumps(PROBE))})\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("G5NET_GEM5", str(fake))
    _, out = doctor(capsys)
    assert f"gem5       ok  {fake}" in out
    assert ("version 24.0.0.1, ISA x86, classic caches yes, Ruby protocol MESI_Two_Level, "
            "KVM CPU ") in out
    g = json.loads(doctor(capsys, "--json")[1])["gem5"]
    assert (g["ok"], g["binary"], g["protocol"], g["problems"]) == (True, str(fake), "MESI_Two_Level", [])
