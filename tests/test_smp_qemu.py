"""Hosts with several CPUs under QEMU: the same kernel command line protocol
and image as gem5's 4-CPU pair (examples/smp-gem5.toml), on the fast engine.
Each guest sees its 4 CPUs and its stream runs. About 20 s on two cores."""

import json
import shutil
from pathlib import Path

import pytest

from g5net import spec as specmod

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)


def test_a_pair_of_4_cpu_hosts_boots_and_streams(tmp_path, cli_run):
    text = (REPO / "examples" / "smp-gem5.toml").read_text()
    for old, new in (('engine = "gem5"', 'engine = "qemu"'), ("timeout_s = 3600", "timeout_s = 300"),
                     ("bytes = 1000000", "duration_s = 2")):
        assert old in text, old
        text = text.replace(old, new)
    spec = tmp_path / "smp.toml"
    spec.write_text(text)
    assert specmod.load(spec).host("client").cpu.count == 4
    rc, summary = cli_run(spec, tmp_path / "store")
    rd = Path(summary["run_dir"])
    assert rc == 0, json.loads((rd / "run.json").read_text()).get("failure")
    results = json.loads((rd / "results.json").read_text())
    for host in ("server", "client"):
        stream = results[host]["workloads"]["stream"]
        assert stream["roi"]["cpus"] == 4, stream["roi"]
    assert results["client"]["workloads"]["stream"]["throughput_mbps"] > 0
