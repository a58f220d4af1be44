"""Generated scripts and command lines under hostile text (issue 14): the spec
refuses unsafe names, and every writer quotes for its own language anyway."""

import dataclasses
import subprocess
from pathlib import Path

import pytest
from conftest import EXAMPLES

from g5net import spec
from g5net.artifacts.images import Image
from g5net.artifacts.kernels import Kernel
from g5net.engines import qemu
from g5net.engines.base import Artifacts, EngineInfo
from g5net.errors import RunnerError
from g5net.guest.kernel_cmdline import build as kernel_cmdline
from g5net.model import sweep
from g5net.model import specs
from g5net.runners import slurm
from g5net.runners.plan import planned
from g5net.runs.sweepdir import PlannedPoint, SweepDir

HOSTILE = ["a\nb", "x'y", 'x"y', "$(touch pwned)", "`id`", "a,b", "a b", "a;b", "a\rb", "\\"]


def _points() -> list[PlannedPoint]:
    s = sweep.load(EXAMPLES / "sweep-quick.toml")
    return [planned(p, "0" * 64) for p in s.points]


def _bash_n(script: str, tmp_path: Path) -> None:
    path = tmp_path / "job.sbatch"
    path.write_text(script)
    out = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("text", HOSTILE)
def test_spec_refuses_hostile_names(text):
    base = (EXAMPLES / "quickstart.toml").read_text()
    data = specs.parse_toml(base)
    data["experiment"]["name"] = text
    with pytest.raises(spec.SpecError, match=r"^experiment\.name: name "):
        specs.from_dict(data)


@pytest.mark.parametrize("text", [t for t in HOSTILE if "\n" not in t and "\r" not in t])
def test_slurm_script_quotes_paths_and_site_flags(text, tmp_path):
    """A sweep folder and site flags may hold any printable text: quoted, the
    script is valid bash and has exactly the lines it has for plain text."""
    plain = slurm.render(SweepDir(Path("/s")), _points(), 2, {"comment": "plain"}, python="/py")
    script = slurm.render(SweepDir(Path(f"/s/{text}")), _points(), 2, {"comment": text},
                          python=f"/opt/{text}/python")
    _bash_n(script, tmp_path)
    assert len(script.splitlines()) == len(plain.splitlines())
    assert [line.split("=")[0] for line in script.splitlines() if line.startswith("#SBATCH")] == \
        [line.split("=")[0] for line in plain.splitlines() if line.startswith("#SBATCH")]


@pytest.mark.parametrize("text", ["a\nb", "a\rb", "x\x1b[2J"])
def test_slurm_script_refuses_line_breaks(text):
    with pytest.raises(RunnerError, match="holds a line break or control character"):
        slurm.render(SweepDir(Path(f"/s/{text}")), _points(), None, {})
    with pytest.raises(RunnerError, match=r"^sbatch flag comment: .* holds a line break"):
        slurm.render(SweepDir(Path("/s")), _points(), None, {"comment": text})
    # The name reaches the script's comment line: refused even past the spec.
    point = dataclasses.replace(_points()[0], name=f"probe{text}touch x #")
    with pytest.raises(RunnerError, match="^experiment.name: "):
        slurm.render(SweepDir(Path("/s")), [point], None, {})


@pytest.mark.parametrize("key", ["a b", "x=y", "p\nq", "$(id)", "-x"])
def test_sbatch_flag_names_are_words(key):
    with pytest.raises(RunnerError, match="a flag name is letters, digits and '-'"):
        slurm.sbatch_flag(key, "1")


def _split_options(value: str) -> list[str]:
    """A QEMU option list split where QEMU splits it: at a comma that is not doubled."""
    parts, cur, i = [], "", 0
    while i < len(value):
        if value[i] == ",":
            if value[i + 1:i + 2] == ",":
                cur += ","
                i += 2
                continue
            parts.append(cur)
            cur = ""
        else:
            cur += value[i]
        i += 1
    return parts + [cur]


def test_qemu_drive_values_double_commas(tmp_path, monkeypatch):
    monkeypatch.setattr(qemu.QemuEngine, "info",
                        lambda self: EngineInfo("qemu", Path("/usr/bin/qemu"), "8", "0" * 64))
    s = specs.load(EXAMPLES / "quickstart.toml")
    folder = tmp_path / "a,file.locking=off,if=none"
    kern = Kernel("smp", folder / "bz", folder / "vm", folder / "map", "1" * 64)
    arts = Artifacts({"smp": kern, "up": kern}, Image(folder / "disk.img", "2" * 64))
    cmd = qemu.QemuEngine()._command(s, arts, s.hosts[0], 0, folder / "job.img", [])
    drives = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-drive"]
    assert [_split_options(d) for d in drives] == [
        [f"file={folder}/disk.img", "format=raw", "if=ide", "index=0", "snapshot=on"],
        [f"file={folder}/job.img", "format=raw", "if=ide", "index=1"]]


def test_kernel_cmdline_words_are_the_protocols_own():
    """Every word of the kernel command line comes from a validated key: the
    spec's sysctls add one word, whatever their values."""
    s = specs.loads((EXAMPLES / "quickstart.toml").read_text()
                   + '\n[host.sysctl]\n"net.ipv4.tcp_rmem" = "4096:87380:6291456"\n')
    for h in s.hosts:
        words = kernel_cmdline(h, "qemu").split(" ")
        assert sum(w.startswith("g5net.sysctl=") for w in words) == 1
        assert all(w.isprintable() and "'" not in w and '"' not in w for w in words)


def test_golden_slurm_script_passes_bash_n(tmp_path):
    _bash_n((Path(__file__).parent / "golden" / "slurm-sweep-quick.sbatch").read_text(), tmp_path)
