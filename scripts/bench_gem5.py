#!/usr/bin/env python3
"""gem5 simulation speed on examples/quickstart-gem5.toml: the boot (atomic CPU,
no caches; from the checkpoint's record, booting first if there is none), then
the measured workloads on each CPU model that boots x86 (atomic, timing, o3;
all with the spec's caches, all restoring that one checkpoint). For each workload's stats
dump: host seconds per simulated second and simulated instructions per host
second (both hosts together). Skipped, with the reason, where gem5 is missing."""

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchlib import gem5_engine  # noqa: E402

from g5net import spec as specmod  # noqa: E402
from g5net.model import specs  # noqa: E402
from g5net.runners import execute as run  # noqa: E402
from g5net.stats import iter_dumps  # noqa: E402

SPEC = REPO / "examples" / "quickstart-gem5.toml"


def with_model(model: str) -> specmod.Spec:
    d = specs.load(SPEC).to_dict()
    for h in d["hosts"].values():
        h["cpu"]["model"] = model
    return specs.from_dict(d)


def speed(label: str, host_s: float, sim_s: float, insts: float | None) -> str:
    rate = f", {insts / host_s / 1e6:.2f} M simulated instructions per host second" if insts else ""
    return (f"{label}: {host_s:.0f} host s for {sim_s * 1e3:.1f} simulated ms: "
            f"{host_s / sim_s:.0f} host s per simulated s{rate}")


def measure(model: str, store: Path) -> list[str]:
    spec = with_model(model)
    rd = run.execute(spec, store, progress=lambda m: None)
    record = rd.read_run()
    if record["status"] != "done":
        sys.exit(f"{model}: run failed: {record.get('failure')}")
    lines = []
    for workload, dump in zip((w.name for w in spec.workloads), iter_dumps(rd.stats_txt)):
        lines.append(speed(f"{model:6} {workload}", dump.value("hostSeconds"),
                           dump.value("simSeconds"), dump.value("simInsts")))
    return lines


def main() -> int:
    engine = gem5_engine()
    if engine is None:
        return 0
    with tempfile.TemporaryDirectory() as store:
        lines = measure("atomic", Path(store))  # boots into the checkpoint if there is none
        lines += measure("timing", Path(store))
        lines += measure("o3", Path(store))
    spec = with_model("atomic")
    arts = run.resolve_artifacts(spec, progress=lambda m: None)
    boot = json.loads(engine.checkpoint(spec, arts).meta.read_text())
    print(speed("boot   (atomic, no caches, to the checkpoint)", boot["wall_s"],
                boot["sim_seconds"], None))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
