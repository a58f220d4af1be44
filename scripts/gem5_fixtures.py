#!/usr/bin/env python3
"""Regenerate tests/fixtures/gem5-quickstart/ from one real gem5 run of
examples/quickstart-gem5.toml made by the code as it is now (run it after
changing configs/; tests/test_gem5_fixtures.py fails until then).

    .venv/bin/python scripts/gem5_fixtures.py [--out DIR]

Keeps what the results tests read (run.json, spec.json, results.json, metrics.json, both
consoles, the job scripts, m5out/stats.txt and config.ini) and provenance.json
(gem5 version, configs digest); never checkpoints or images.
"""

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from g5net import run, spec as specmod  # noqa: E402
from g5net.engines.gem5.config_files import configs_digest  # noqa: E402

SPEC = REPO / "examples" / "quickstart-gem5.toml"
FIXTURE = REPO / "tests" / "fixtures" / "gem5-quickstart"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=FIXTURE, help=f"fixture directory (default {FIXTURE})")
    args = p.parse_args()
    spec = specmod.load(SPEC)
    with tempfile.TemporaryDirectory() as store:
        rd = run.execute(spec, Path(store))
        record = rd.read_run()
        if record["status"] != "done":
            sys.exit(f"the run failed ({record['status']}): {record.get('failure')}; fixtures unchanged")
        files = [rd.run_json, rd.spec_json, rd.results_json, rd.metrics_json, rd.stats_txt,
                 rd.m5out / "config.ini"]
        files += [rd.console(h.name) for h in spec.hosts] + [rd.job_script(h.name) for h in spec.hosts]
        shutil.rmtree(args.out, ignore_errors=True)
        args.out.mkdir(parents=True)
        for f in files:
            shutil.copy(f, args.out / f.name)
    provenance = {"spec": str(SPEC.relative_to(REPO)), "gem5_version": record["engine"]["version"],
                  "configs_digest": configs_digest(), "run_id": record["run_id"]}
    (args.out / "provenance.json").write_text(json.dumps(provenance, indent=2) + "\n")
    size = sum(f.stat().st_size for f in args.out.iterdir())
    print(f"{args.out}: {len(list(args.out.iterdir()))} files, {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
