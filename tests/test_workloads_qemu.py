"""The MPI and web workloads on real QEMU guests (about a minute each on two
cores): NetPIPE's MPI build between two ranks launched without ssh, and
busybox httpd loaded by wrk with one file and with a Zipf-distributed set."""

import json
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_example
from g5net import spec as specmod

pytestmark = pytest.mark.slow

if not shutil.which("qemu-system-x86_64"):
    pytest.skip("qemu-system-x86_64 is not installed (make deps installs it)", allow_module_level=True)


def test_mpi_pingpong_between_two_ranks(cli_run, tmp_path):
    results, metrics = run_example(cli_run, "mpi", tmp_path)
    w = results["client"]["workloads"]["mpi"]
    sizes = [p["bytes"] for p in w["points"]]
    print(f"MPI 1-byte latency {w['latency_us']:.1f} us, peak {w['peak_mbps']:.2f} Mb/s over {len(sizes)} sizes")
    # NetPIPE's MPI build walked every size from 1 byte to max_bytes.
    assert sizes[0] == 1 and sizes[-1] == 1024 and sizes == sorted(sizes)
    assert w["latency_bytes"] == 1 and 0 < w["latency_us"] < 100_000
    assert metrics["hosts"]["client"]["mpi"]["latency_us"] == w["latency_us"]
    # Rank 1 ran on the server: its listener ran Open MPI's daemon, and returned when it ended.
    assert results["server"]["workloads"]["mpi"]["rc"] == 0


def test_web_single_file_and_zipf_set(cli_run, tmp_path):
    results, metrics = run_example(cli_run, "web", tmp_path)
    spec = specmod.load(EXAMPLES / "web.toml")
    zipf = next(w for w in spec.workloads if w.name == "zipf")
    weights = [1 / k ** zipf.zipf_exponent for k in range(1, len(zipf.file_bytes) + 1)]
    expected_zipf = sum(w * b for w, b in zip(weights, zipf.file_bytes)) / sum(weights)
    per_request = {}
    for name in ("single", "zipf"):
        w = results["client"]["workloads"][name]
        print(f"{name}: {w['requests_per_s']:.1f} requests/s, mean {w['latency_us']:.0f} us, "
              f"p99 {w['latency_p99_us']:.0f} us, {w['throughput_mbps']:.1f} Mb/s")
        assert w["errors"] == 0 and w["requests"] > 10
        assert 0 < w["latency_us"] <= w["latency_p99_us"]
        per_request[name] = w["throughput_mbps"] * 1e6 / 8 / w["requests_per_s"]
        assert metrics["hosts"]["client"][name]["requests_per_s"] == w["requests_per_s"]
        assert results["server"]["workloads"][name]["rc"] == 0
    # Bytes per request: the one file plus headers; the Zipf set's popularity-weighted mean.
    assert per_request["single"] == pytest.approx(16384, rel=0.05)
    assert per_request["zipf"] == pytest.approx(expected_zipf, rel=0.25)


def test_online_cpus_runs_the_workloads_on_fewer_cpus(cli_run, tmp_path, quickstart_text):
    text = (quickstart_text.replace("cores = 1", "cores = 2")
            .replace('kernel = "smp"', 'kernel = "smp"\nonline_cpus = 1')
            .replace("profile = true", "profile = false"))
    spec_path = tmp_path / "online.toml"
    spec_path.write_text(text)
    assert specmod.load(spec_path).host("client").cpu.count == 2
    rc, summary = cli_run(spec_path, tmp_path / "store")
    results = json.loads((Path(summary["run_dir"]) / "results.json").read_text())
    assert rc == 0, results
    for host in ("server", "client"):
        # /proc/stat lists only online CPUs: the region saw one of the two.
        assert results[host]["workloads"]["stream"]["roi"]["cpus"] == 1
