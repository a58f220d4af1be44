"""The sbatch script of a sweep is a golden file: a change to what SLURM is
asked for shows in review. Regenerate with:
G5NET_REGEN_GOLDEN=1 pytest tests/test_slurm_script.py"""

import os
from pathlib import Path

import pytest
from conftest import EXAMPLES

from g5net.errors import RunnerError
from g5net.model import sweep
from g5net.runners import slurm
from g5net.runners.plan import planned
from g5net.runs.resources import Resources
from g5net.runs.sweepdir import SweepDir

GOLDEN = Path(__file__).parent / "golden"


def _points():
    s = sweep.load(EXAMPLES / "sweep-quick.toml")
    return [planned(p, "0" * 64) for p in s.points]


def test_sweep_quick_script_matches_golden():
    points = [p for p in _points() if p.index != 3]
    text = slurm.render(SweepDir(Path("/shared/sweeps/quick it's")), points, 2,
                        {"partition": "long", "account": "net lab"}, python="/opt/g5net/bin/python")
    golden = GOLDEN / "slurm-sweep-quick.sbatch"
    if os.environ.get("G5NET_REGEN_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text(), f"regenerate with G5NET_REGEN_GOLDEN=1 if intended ({golden})"


def test_sbatch_flag_quotes_values():
    assert slurm.sbatch_flag("cpus_per_task", 2) == "#SBATCH --cpus-per-task=2"
    assert slurm.sbatch_flag("requeue", True) == "#SBATCH --requeue"
    assert slurm.sbatch_flag("comment", "a b;rm -rf /") == "#SBATCH --comment='a b;rm -rf /'"


def test_array_spec_compresses_ranges():
    assert slurm.array_spec([0, 1, 2, 3, 5, 7, 8, 9]) == "0-3,5,7-9"
    assert slurm.array_spec([4]) == "4"


def test_resources_come_from_the_spec():
    p = _points()[0]
    # Two QEMU guests of 256 MiB and one CPU each; 240 s limit plus the kill margin.
    assert p.resources == Resources(cpus=2, mem_mb=2 * 256 + 2 * 256, time_s=300)
    assert p.resources.time_min == 5


def test_a_per_host_point_asks_for_one_task_per_host(tmp_path):
    """gem5 with a process per host: the array task is a job of one task per
    host (the first shared with g5net and the switch), memory per CPU; fewer
    tasks from the site flags are refused before anything is submitted."""
    spec = tmp_path / "fan-in.toml"
    spec.write_text((EXAMPLES / "switched-gem5.toml").read_text().replace(
        "[experiment]\n", "[experiment]\nprocesses = \"per-host\"\n", 1))
    [point] = [planned(p, "0" * 64) for p in sweep.load(spec).points]
    assert point.resources.tasks == 4 and point.resources.cpus == 4
    text = slurm.render(SweepDir(tmp_path / "sweep"), [point], None, {})
    assert "#SBATCH --ntasks=4\n#SBATCH --cpus-per-task=1\n" in text
    per_cpu = -(-point.resources.mem_mb // 4)
    assert f"#SBATCH --mem-per-cpu={per_cpu}M\n" in text and "--mem=" not in text
    with pytest.raises(RunnerError, match="--slurm-flag ntasks=2: these points run per-host processes "
                                          "and need 4 tasks each"):
        slurm.render(SweepDir(tmp_path / "sweep"), [point], None, {"ntasks": "2"})
