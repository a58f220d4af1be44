"""`g5net report --x --y` on real QEMU sweeps over host.nic.mtu and
host.nic.attach (examples/sweep-quick.toml's hosts and workloads, 4 points),
run twice under two experiment names: every point has a repeat. About two
minutes on two cores."""

import shutil
import subprocess
import sys

import pytest

from conftest import EXAMPLES, REPO
from test_report_plots import svg_text

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)

SWEEP = '''[sweep]
"host.nic.mtu" = [1500, 9000]
"host.nic.attach" = ["pcie", "integrated"]
"workloads.stream.msg_bytes" = [16384]
'''


def g5net(*argv):
    done = subprocess.run([sys.executable, "-m", "g5net", *map(str, argv)], cwd=REPO,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_qemu_sweep_over_mtu_and_placement_plots_as_lines_and_bars(tmp_path):
    base = (EXAMPLES / "sweep-quick.toml").read_text().split("[sweep]")[0]
    sweeps = []
    for name in ("nic", "nic-again"):
        spec = tmp_path / f"{name}.toml"
        spec.write_text(base.replace('name = "sweep-quick"', f'name = "{name}"') + SWEEP)
        g5net("sweep", spec, "--out", tmp_path / name)
        sweeps.append(tmp_path / name)

    out = tmp_path / "report"
    g5net("report", *sweeps, "--out", out, "--x", "host.nic.mtu", "--y", "throughput_mbps",
          "--hue", "host.nic.attach", "--host", "client")
    g5net("report", *sweeps, "--out", out, "--x", "host.nic.attach", "--y", "throughput_mbps",
          "--hue", "host.nic.mtu", "--host", "client")
    for stem, ticks, legend in (("throughput_mbps-vs-nic.mtu-by-nic.attach", {"1500 B", "9000 B"},
                                 {"pcie", "integrated"}),
                                ("throughput_mbps-vs-nic.attach-by-nic.mtu", {"pcie", "integrated"},
                                 {"1500 B", "9000 B"})):
        assert (out / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (out / f"{stem}.pdf").read_bytes()[:5] == b"%PDF-"
        text = svg_text(out / f"{stem}.svg")
        assert "throughput (Mbit/s)" in text
        assert ticks <= set(text) and legend <= set(text)
        # Every point was run twice: means, with the spread of the two.
        assert "mean of up to 2 runs with identical parameters; error bars: min to max" in " ".join(text)
    md = (out / "report.md").read_text()
    assert "8 run(s) from" in md and "varying nic.attach, nic.mtu" in md
