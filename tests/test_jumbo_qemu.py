"""Jumbo frames between two real guests under QEMU, on the receive path
gem5's IGbE needs: each frame in one buffer (kernels/patches/
e1000-jumbo-single-buffer.patch). QEMU's e1000 would chain descriptors for the
unpatched driver too, so the kernel function profile tells the paths apart.
8160 takes 8 KiB buffers, 9000 and 16000 16 KiB ones. About 15 s per MTU on
two cores."""

import json
import shutil
from pathlib import Path

import pytest

SPEC = """
[experiment]
name = "jumbo-{mtu}"
engine = "qemu"
timeout_s = 300

[host]
memory_mb = 256

[host.nic]
mtu = {mtu}

[hosts.server]
role = "server"

[hosts.client]
role = "client"

[workloads.stream]
kind = "iperf"
duration_s = 2
msg_bytes = 131072
profile = true
"""

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)


@pytest.mark.parametrize("mtu", [9000, 8160, 16000])
def test_jumbo_frames_reach_the_receiver(tmp_path, mtu, cli_run):
    spec = tmp_path / "jumbo.toml"
    spec.write_text(SPEC.format(mtu=mtu))
    rc, summary = cli_run(spec, tmp_path / "store")
    rd = Path(summary["run_dir"])
    record = json.loads((rd / "run.json").read_text())
    assert rc == 0, record.get("failure")
    results = json.loads((rd / "results.json").read_text())

    stream = results["server"]["workloads"]["stream"]
    assert stream["throughput_mbps"] > 0 and stream["bytes"] > 0
    # iperf's client sends, so the server's NIC receives the data frames.
    rx = stream["roi"]["netdev"]
    rx_bytes = sum(d["rx_bytes"] for d in rx.values())
    rx_packets = sum(d["rx_packets"] for d in rx.values())
    assert rx_packets > 100, rx
    assert sum(d["rx_errs"] for d in rx.values()) == 0, rx
    per_packet = rx_bytes / rx_packets
    print(f"mtu {mtu}: {per_packet:.0f} bytes per received frame, "
          f"{stream['throughput_mbps']:.1f} Mb/s")
    assert per_packet > 1500, f"MTU {mtu}: {per_packet:.0f} bytes per received frame: no jumbo frames"
    profile = "".join(stream["profile"].values())
    assert "e1000_clean_rx_irq" in profile, "the receive path left no trace in the profile"
    assert "e1000_clean_jumbo_rx_irq" not in profile, "descriptor-chaining receive path in use"
