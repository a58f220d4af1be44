"""End to end on the QEMU engine: two real guests, our kernel and image.

One quickstart run (module fixture) feeds most assertions; it takes about a
minute on two cores. Failure paths boot real guests too.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from g5net import artifacts
from g5net.artifacts import Image
from g5net.cli import main
from g5net.engines.base import Artifacts
from g5net.model import specs
from g5net.runners import execute as run

REPO = Path(__file__).resolve().parents[1]
QUICKSTART = REPO / "examples" / "quickstart.toml"

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory, cli_run):
    """(exit status, parsed --json output) of one real quickstart run."""
    return cli_run(QUICKSTART, tmp_path_factory.mktemp("store"))


def test_quickstart_is_done(quickstart):
    rc, summary = quickstart
    record = json.loads((Path(summary["run_dir"]) / "run.json").read_text())
    assert rc == 0, record.get("failure")
    assert summary["status"] == record["status"] == "done"


def test_run_directory_layout(quickstart):
    _, summary = quickstart
    rd = Path(summary["run_dir"])
    record = json.loads((rd / "run.json").read_text())
    assert rd.name == f"quickstart-{record['run_id'][:12]}"
    assert len(record["run_id"]) == 64
    assert record["engine"]["name"] == "qemu" and record["engine"]["version"]
    assert set(record["artifacts"]) == {"kernel-smp", "image"}
    assert all(len(a["digest"]) == 64 for a in record["artifacts"].values())
    assert record["spec"]["hosts"]["client"]["peer"] == "server"
    assert record["timings"]["wall_s"] > 0 and set(record["timings"]["boot_s"]) == {"server", "client"}
    for host in ("server", "client"):
        assert "G5NET-BOOTED" in (rd / f"console-{host}.log").read_text()
        assert (rd / f"job-{host}.sh").is_file()
    assert not list(rd.parent.glob(".tmp-*")), "a finished run leaves no temporary directory"


def test_guest_measurements(quickstart):
    _, summary = quickstart
    results = json.loads((Path(summary["run_dir"]) / "results.json").read_text())
    assert set(results) == {"server", "client"}
    for host in ("server", "client"):
        stream = results[host]["workloads"]["stream"]
        assert stream["throughput_mbps"] > 0 and stream["bytes"] > 0
        for w in results[host]["workloads"].values():
            assert w["roi"]["ctxt"] > 0 and w["roi"]["intr"] > 0
            assert w["roi"]["nic_irqs"] > 0
    latency = results["client"]["workloads"]["latency"]
    assert latency["latency_bytes"] == 1 and latency["latency_us"] > 0
    assert [p["bytes"] for p in latency["points"]][:3] == [1, 2, 3]
    # A 3 s stream at any plausible rate is thousands of frames on the wire.
    assert results["client"]["workloads"]["stream"]["roi"]["tx_packets"] > 1000


def test_metrics_per_packet(quickstart):
    _, summary = quickstart
    for host in ("server", "client"):
        m = summary["metrics"]["hosts"][host]["stream"]
        assert m["intr_per_pkt"] > 0 and m["ctxt_per_pkt"] > 0
        assert m["intr_per_s"] > 0 and m["ctxt_per_s"] > 0


def test_summary_table(quickstart, capsys):
    _, summary = quickstart
    from g5net.commands.run import print_table, summary_rows
    print_table(summary_rows(summary["metrics"]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["host", "workload", "throughput"]
    assert any(l.startswith("client  latency") and " us" in l for l in lines)


def test_bad_spec_makes_no_run(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(QUICKSTART.read_text().replace("mtu = 1500", "mtu = 99999"))
    store = tmp_path / "store"
    assert main(["run", str(bad), "--out", str(store)]) == 2
    assert "hosts.server.nic.mtu: 99999 is out of range" in capsys.readouterr().err
    assert not store.exists()


def test_guest_panic_is_classified(tmp_path):
    """An image with no /sbin/g5init: the kernel panics, the run says so."""
    empty = tmp_path / "root"
    empty.mkdir()
    img = tmp_path / "noinit.img"
    subprocess.run(["mke2fs", "-q", "-t", "ext4", "-d", str(empty), str(img), "8M"], check=True)
    s = specs.load(QUICKSTART)
    arts = Artifacts(kernels={"smp": artifacts.kernel("smp", build=False)},
                     image=Image(path=img, digest="0" * 64))
    rd = run.execute(s, tmp_path / "store", progress=lambda m: None, arts=arts)
    record = rd.read_run()
    assert record["status"] == "failed:guest-panic"
    reasons = " ".join(record["failure"]["reasons"])
    assert "Kernel panic" in reasons
    assert "Kernel panic" in record["failure"]["console_tails"]["server"]
    assert record["timings"]["wall_s"] < 60, "a panicked guest must not wait for the timeout"


def test_quickstart_meets_its_expectations(quickstart):
    """The CI check of results/expectations/quickstart.toml, on a real run."""
    _, summary = quickstart
    expect = REPO / "results" / "expectations" / "quickstart.toml"
    assert main(["check", summary["run_dir"], "--expect", str(expect)]) == 0
    for host in ("server", "client"):
        m = summary["metrics"]["hosts"][host]["stream"]
        shares = [v for k, v in m.items() if k.startswith("time_") and k.endswith("_pct")]
        assert len(shares) == 7 and abs(sum(shares) - 100) < 1e-6  # profile.CATEGORIES
        assert m["time_driver_pct"] > 0 and m["time_stack_pct"] > 0
