#!/usr/bin/env python3
"""Regenerate the gem5 fixtures under tests/fixtures/ from real gem5 runs made
by the code as it is now (run it after changing configs/ or the gem5 engine;
tests/test_gem5_fixtures.py fails until then):

    gem5-quickstart/   examples/quickstart-gem5.toml (two 1-CPU hosts)
    gem5-smp/          examples/smp-gem5.toml (two 4-CPU hosts)
    gem5-switched/     examples/switched-gem5.toml (3 clients into 1 server through a switch)
    gem5-switched-per-host/
                       that spec with a gem5 process per host (dist-gem5), without gem5's
                       own files
    gem5-quickstart-per-host/
                       examples/quickstart-gem5.toml with a gem5 process per host (its stats.txt
                       merged from theirs)
    gem5-jumbo-two-nics/
                       examples/jumbo-two-nics-gem5.toml (UP kernel, MTU 9000, 2 NICs a host,
                       2 clients into 1 server through a switch per NIC index)
    gem5-dca/          examples/dca-gem5.toml (integrated NIC, DMA into a shared L3)
    gem5-mrrs-512/     examples/pcie-read-request-gem5.toml, its first point (512 B reads)
    gem5-mrrs-4096/    its second point (4096 B reads)
    gem5-steady-state/ examples/steady-state-gem5.toml (the stream as 8 windows)
    gem5-whole-life/   examples/whole-life-gem5.toml (that stream, its whole life one region)
    gem5-sampled/      examples/sampled-gem5.toml (that stream, 8 windows sampled from warm
                       checkpoints: each window's stats in window-K/)
    gem5-sampled-o3/   examples/sampled-sweep-gem5.toml's third point (4 windows on O3, L2 256 KiB)
    gem5-sampled-warming-0, -1, -2/
                       examples/sampled-warming-gem5.toml's first three points (no warming,
                       detailed only, functional only), without gem5's own files
    gem5-steady-4k/    examples/steady-state-sizes-gem5.toml, 4 KiB messages, PC samples,
                       without gem5's own files (Fixture.engine_files)
    gem5-steady-16k/   its second point (16 KiB)
    gem5-steady-64k/   its third point (64 KiB)

    .venv/bin/python scripts/gem5_fixtures.py [--only NAME] [--metrics-only]

--metrics-only derives metrics.json again from each fixture's own stats.txt
and results.json, without gem5, after a change to how metrics are derived.

Each is laid out as the run directory it was copied from (g5net/runs/rundir.py),
so that tests open it with RunDir like any run, and keeps what the results tests
read (run.json, spec.json, results.json, metrics.json, every host's console, the
job scripts, m5out/stats.txt (a windowed run's windows' dumps) and
m5out/config.ini, the PC samples where the spec took them) and provenance.json (gem5
version, configs digest, kernels/patches digest, the boot's record); never checkpoints
or images, and no machine's own paths: run.json and config.ini name files in g5net's cache
as $G5NET_CACHE/... (runs/record.py), config.ini the job scripts as <run dir>/...
"""

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from g5net import engines  # noqa: E402
from g5net.artifacts.cache import portable_text  # noqa: E402
from g5net.metrics import derive as run_metrics  # noqa: E402
from g5net.model import sweep  # noqa: E402
from g5net.model import specs  # noqa: E402
from g5net.runners import execute as run  # noqa: E402
from g5net.runs import record as run_record  # noqa: E402
from g5net.runs.rundir import RunDir  # noqa: E402
from g5net.spec import sampled  # noqa: E402
from g5net.stats.parse import END  # noqa: E402

class Fixture(NamedTuple):
    spec: Path
    point: int | None = None  # the point of its sweep; None for a spec without one
    # False: the run's metrics and what the tests read of it, without gem5's
    # own files (stats.txt, PC samples, config.ini), as a study keeps its
    # results: some 7 MB a run otherwise, and no test reads them.
    engine_files: bool = True
    # experiment.processes where the spec's own is not the fixture's.
    processes: str | None = None


EXAMPLES = REPO / "examples"
FIXTURES = {"gem5-quickstart": Fixture(EXAMPLES / "quickstart-gem5.toml"),
            "gem5-smp": Fixture(EXAMPLES / "smp-gem5.toml"),
            "gem5-switched": Fixture(EXAMPLES / "switched-gem5.toml"),
            # The one-process quickstart's spec with a gem5 process per host:
            # tests/test_gem5_per_host.py holds the two to the same figures.
            "gem5-quickstart-per-host": Fixture(EXAMPLES / "quickstart-gem5.toml", processes="per-host"),
            "gem5-switched-per-host": Fixture(EXAMPLES / "switched-gem5.toml", engine_files=False,
                                              processes="per-host"),
            "gem5-jumbo-two-nics": Fixture(EXAMPLES / "jumbo-two-nics-gem5.toml"),
            "gem5-dca": Fixture(EXAMPLES / "dca-gem5.toml"),
            "gem5-mrrs-512": Fixture(EXAMPLES / "pcie-read-request-gem5.toml", 0),
            "gem5-mrrs-4096": Fixture(EXAMPLES / "pcie-read-request-gem5.toml", 1),
            "gem5-steady-state": Fixture(EXAMPLES / "steady-state-gem5.toml"),
            "gem5-whole-life": Fixture(EXAMPLES / "whole-life-gem5.toml"),
            "gem5-sampled": Fixture(EXAMPLES / "sampled-gem5.toml"),
            "gem5-sampled-o3": Fixture(EXAMPLES / "sampled-sweep-gem5.toml", 2),
            # Its fourth point, both warmings at their defaults, is gem5-sampled.
            **{f"gem5-sampled-warming-{i}": Fixture(EXAMPLES / "sampled-warming-gem5.toml", i, False)
               for i in range(3)},
            **{f"gem5-steady-{k}k": Fixture(EXAMPLES / "steady-state-sizes-gem5.toml", i, False)
               for i, k in enumerate((4, 16, 64))}}
FIXTURE_DIR = REPO / "tests" / "fixtures"


def make(name: str, spec_path: Path, point: int | None, engine_files: bool,
         processes: str | None) -> None:
    spec = specs.load(spec_path) if point is None else sweep.load(spec_path).points[point].spec
    if processes:
        d = spec.to_dict()
        d["experiment"]["processes"] = processes
        spec = specs.from_dict(d)
    out = FIXTURE_DIR / name
    engine = engines.get("gem5")
    if sampled(spec.experiment) and engine_files:
        # Made afresh, fast-forward included, so that run.json's wall time is
        # what the method costs (the README's steady-state table shows it).
        arts = run.resolve_artifacts(spec, progress=print, build=False)
        warm, _ = engine.warm_checkpoints(spec, engine.checkpoint(spec, arts))
        if warm.exists() and not engine.remove_checkpoint(warm.key):
            sys.exit(f"{name}: its warm checkpoints {warm.path} are in use; fixtures unchanged")
    with tempfile.TemporaryDirectory() as store:
        rd = run.execute(spec, Path(store))
        record = rd.read_run()
        if record["status"] != "done":
            sys.exit(f"{name}: the run failed ({record['status']}): {record.get('failure')}; "
                     f"fixtures unchanged")
        files = [rd.spec_json, rd.results_json, rd.metrics_json]
        files += [rd.console(h.name) for h in spec.hosts] + [rd.job_script(h.name) for h in spec.hosts]
        windows = [rd.window(k) for k in range(spec.experiment.windows)] if sampled(spec.experiment) else []
        if engine_files and windows:
            # Each window's one dump, and what gem5 built for the first.
            files += [w.stats_txt for w in windows] + [windows[0].config_ini]
        elif engine_files:
            files.append(rd.stats_txt)
            if spec.experiment.pc_sample_us:
                files.append(rd.pc_samples)
        shutil.rmtree(out, ignore_errors=True)
        fixture = RunDir(out)
        fixture.m5out.mkdir(parents=True)
        for w in windows:
            RunDir(out / w.path.name).m5out.mkdir(parents=True)
        for f in files:
            # Where the run directory has it: a fixture is opened with RunDir like any run.
            shutil.copy(f, out / f.relative_to(rd.path))
        # No machine's own paths in a committed file (runs/record.py).
        fixture.write_json(fixture.run_json, run_record.portable(record))
        if engine_files and windows:
            first = RunDir(out / windows[0].path.name).config_ini
            first.write_text(portable_config(first.read_text()))
        elif engine_files:
            # (A per-host run has a config.ini per process, none of the run's.)
            if rd.config_ini.exists():
                fixture.config_ini.write_text(portable_config(rd.config_ini.read_text()))
            if spec.experiment.windows:
                keep_dumps(fixture.stats_txt, spec.experiment.windows + 1)
    arts = run.resolve_artifacts(spec, progress=print, build=False)
    boot = json.loads(engine.checkpoint(spec, arts).meta.read_text())
    provenance = {"spec": str(spec_path.relative_to(REPO)), "point": point,
                  **({"processes": processes} if processes else {}),
                  "gem5_version": record["engine"]["version"],
                  **{k: v for k, v in engine.provenance([spec]).items()
                     if k in ("configs_digest", "kernel_patches", "kernel_patches_o3")},
                  "run_id": record["run_id"],
                  "boot": {k: boot[k] for k in ("wall_s", "sim_seconds", "insts")}}
    (out / "provenance.json").write_text(json.dumps(provenance, indent=2) + "\n")
    kept = [f for f in out.rglob("*") if f.is_file()]
    print(f"{out}: {len(kept)} files, {sum(f.stat().st_size for f in kept) / 1e6:.1f} MB")


def keep_dumps(stats: Path, count: int) -> None:
    """Only the first `count` dumps of `stats`: a windowed run's windows
    (g5net/metrics/gem5.py roi_stats), not gem5's periodic dumps after them
    (workloads/windows.sh), which no metric reads and which would make the
    fixture some ten megabytes."""
    text = stats.read_text()
    at = 0
    for _ in range(count):
        at = text.index(END, at) + len(END)
    stats.write_text(text[:at] + "\n")


def portable_config(text: str) -> str:
    """gem5's config.ini without a machine's paths: the kernels' and images' in
    g5net's cache as $G5NET_CACHE/..., and the job scripts it read (`readfile`)
    in the run directory, a temporary one when gem5 ran, as <run dir>/..."""
    return re.sub(r"^readfile=.*/", "readfile=<run dir>/", portable_text(text), flags=re.M)


def remeasure(name: str) -> None:
    """metrics.json of the fixture `name` from its stats.txt and results.json."""
    rd = RunDir(FIXTURE_DIR / name)
    spec = specs.from_dict(json.loads(rd.spec_json.read_text()))
    record = rd.read_run()
    metrics = run_metrics.compute(spec, json.loads(rd.results_json.read_text()), rd,
                                  record.get("boards"))
    rd.write_json(rd.metrics_json, metrics)
    print(f"{rd.metrics_json}: derived again")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", choices=sorted(FIXTURES), action="append",
                   help="regenerate this fixture (repeatable); default: all")
    p.add_argument("--metrics-only", action="store_true",
                   help="derive metrics.json again from the fixture's stats.txt; no gem5 run")
    args = p.parse_args()
    for name, fixture in FIXTURES.items():
        if args.only is None or name in args.only:
            if not args.metrics_only:
                make(name, *fixture)
            elif fixture.engine_files:
                remeasure(name)
            else:
                print(f"{name}: kept without stats.txt, so its metrics cannot be derived again: rerun it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
