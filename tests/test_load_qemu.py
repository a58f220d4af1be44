"""g5net.load on a real QEMU sweep: examples/sweep-quick.toml cut to two MTUs
(two points, about two minutes on two cores), read back as a DataFrame."""

import shutil
import subprocess
import sys

import pytest

import g5net
from conftest import EXAMPLES, REPO

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)

# One value of message size: a planned axis that does not vary keeps its column.
SWEEP = '''[sweep]
"host.nic.mtu" = [1500, 9000]
"workloads.stream.msg_bytes" = [16384]
'''


def test_a_qemu_sweep_loads_into_a_dataframe(tmp_path):
    base = (EXAMPLES / "sweep-quick.toml").read_text().split("[sweep]")[0]
    spec = tmp_path / "mtu.toml"
    spec.write_text(base + SWEEP)
    out = tmp_path / "mtu"
    sweep = subprocess.run([sys.executable, "-m", "g5net.cli", "sweep", str(spec), "--out", str(out)],
                           cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert sweep.returncode == 0, sweep.stderr[-3000:]

    df = g5net.load(out)
    assert list(df.columns) == ["run", "status", "host.nic.mtu", "workloads.stream.msg_bytes",
                                "host", "workload", "metric", "value", "ci95", "unit"]
    assert df["run"].nunique() == 2 and set(df.status) == {"done"}
    assert sorted(df["host.nic.mtu"].unique()) == [1500, 9000]
    assert df["workloads.stream.msg_bytes"].unique().tolist() == [16384]
    assert set(df.host) == {"server", "client", "aggregate"}
    assert set(df.workload) == {"stream", "latency"}
    assert df["unit"].notna().all(), df[df["unit"].isna()].metric.unique()
    tput = df[(df.host == "client") & (df.workload == "stream") & (df.metric == "throughput_mbps")]
    assert len(tput) == 2 and set(tput.unit) == {"Mbit/s"} and (tput.value > 0).all()
    lat = df[(df.host == "client") & (df.metric == "latency_us")]
    assert len(lat) == 2 and set(lat.unit) == {"us"}
    print(tput[["host.nic.mtu", "value"]].to_string(index=False))

    wide = g5net.load(out, wide=True)
    assert len(wide) == 2 * 3 * 2  # points x (server, client, aggregate) x workloads
    assert wide.attrs["units"]["throughput_mbps"] == "Mbit/s"
