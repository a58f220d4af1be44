"""Hosts with several CPUs under QEMU: the same kernel command line protocol
and image as gem5's 4-CPU pair (examples/smp-gem5.toml), on the fast engine.
Each guest sees its 4 CPUs and its stream runs, its receive path steered to
all of them (nic.rps_cpus). About 20 s on two cores."""

import json
import shutil
from pathlib import Path

import pytest

from g5net.engines import qemu
from g5net.workloads.results import extract_block
from g5net.model import specs
from g5net.runners import execute as run

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)


def test_a_pair_of_4_cpu_hosts_boots_and_streams(tmp_path, cli_run):
    text = (REPO / "examples" / "smp-gem5.toml").read_text()
    for old, new in (('engine = "gem5"', 'engine = "qemu"'), ("timeout_s = 3600", "timeout_s = 300"),
                     ("bytes = 1000000", "duration_s = 2"),
                     ("[hosts.server]", "[host.nic]\nrps_cpus = [0, 1, 2, 3]\n\n[hosts.server]")):
        assert old in text, old
        text = text.replace(old, new)
    spec = tmp_path / "smp.toml"
    spec.write_text(text)
    assert specs.load(spec).host("client").cpu.count == 4
    rc, summary = cli_run(spec, tmp_path / "store")
    rd = Path(summary["run_dir"])
    assert rc == 0, json.loads((rd / "run.json").read_text()).get("failure")
    results = json.loads((rd / "results.json").read_text())
    for host in ("server", "client"):
        stream = results[host]["workloads"]["stream"]
        assert stream["roi"]["cpus"] == 4, stream["roi"]
        # The mask as the guest's kernel reads it back: all 4 CPUs.
        items = extract_block((rd / f"console-{host}.log").read_text())["items"]
        assert items["nic-rps.rc"].strip() == "0", items.get("nic-rps.err")
        assert int(items["nic-rps.out"].strip().replace(",", ""), 16) == 0b1111
    assert results["client"]["workloads"]["stream"]["throughput_mbps"] > 0


def test_a_guest_whose_disks_come_up_swapped_is_booted_again(tmp_path, monkeypatch):
    """The client's first boot gets its disks in swapped order, as Linux's
    asynchronous probes sometimes name them: it panics mounting the job disk
    as root, and the engine boots the run again, which then completes."""
    spec = specs.loads((REPO / "examples" / "quickstart.toml").read_text())
    command, swapped = qemu.QemuEngine._command, []

    def first_client_boot_swapped(self, spec, art, host, index, job_disk, netdevs):
        cmd = command(self, spec, art, host, index, job_disk, netdevs)
        if host.role == "client" and not swapped:
            swapped.append(host.name)
            cmd = [a.replace("index=0", "index=@").replace("index=1", "index=0").replace("index=@", "index=1")
                   for a in cmd]
        return cmd

    monkeypatch.setattr(qemu.QemuEngine, "_command", first_client_boot_swapped)
    lines: list[str] = []
    rd = run.execute(spec, tmp_path, progress=lines.append)
    assert swapped and rd.read_run()["status"] == "done", rd.read_run().get("failure")
    assert any("named the job disk sda" in line and "(2/3)" in line for line in lines), lines
