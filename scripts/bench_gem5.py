#!/usr/bin/env python3
"""gem5 figures on examples/quickstart-gem5.toml: a cold run (boot, checkpoint,
measure), then a run differing only after boot (NIC integrated instead of on
PCIe), which restores the checkpoint. Prints wall and simulated times,
throughput and latency. Skipped, with the reason, where gem5 is missing."""

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from g5net import run, spec as specmod  # noqa: E402
from g5net.engines import gem5  # noqa: E402
from g5net.errors import G5netError  # noqa: E402

SPEC = REPO / "examples" / "quickstart-gem5.toml"


def variant(attach: str) -> specmod.Spec:
    d = specmod.load(SPEC).to_dict()
    for h in d["hosts"].values():
        h["nic"]["attach"] = attach
    return specmod.from_dict(d)


def one(spec: specmod.Spec, store: Path) -> dict:
    t0 = time.monotonic()
    rd = run.execute(spec, store, progress=lambda m: None)
    wall = time.monotonic() - t0
    record = rd.read_run()
    if record["status"] != "done":
        sys.exit(f"{spec.experiment.name} ({spec.hosts[0].nic.attach}) failed: {record.get('failure')}")
    results = json.loads(rd.results_json.read_text())["client"]["workloads"]
    report = json.loads((rd.m5out / gem5.REPORT).read_text())
    return {"wall_s": wall, "boot_s": max(record["timings"]["boot_s"].values(), default=0.0),
            "sim_s": report["sim_seconds"], "mbps": results["stream"].get("throughput_mbps"),
            "latency_us": results["latency"].get("latency_us")}


def main() -> int:
    engine = gem5.Gem5Engine()
    try:
        engine.info()
    except G5netError as e:
        print(f"skipped: {e}")
        return 0
    cold = variant("pcie")
    arts = run.resolve_artifacts(cold, progress=lambda m: None)
    key = gem5.checkpoint_key(gem5.boot_state(cold, arts, engine.build().digest, gem5.configs_digest(boot=True)))
    shutil.rmtree(gem5.checkpoint_dir() / key[:32], ignore_errors=True)  # a cold boot, on purpose
    with tempfile.TemporaryDirectory() as store:
        for label, spec in (("pcie, cold (boots)", cold), ("integrated, restores", variant("integrated"))):
            r = one(spec, Path(store))
            print(f"{label}: wall {r['wall_s']:.0f} s (boot {r['boot_s']:.0f} s), "
                  f"simulated {r['sim_s']:.3f} s, iperf {r['mbps']:.0f} Mbit/s, "
                  f"NetPIPE latency {r['latency_us']:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
