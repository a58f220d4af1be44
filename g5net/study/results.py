"""A study's committed results: the small files of each run of a sweep, with
the gem5 version and configs digest that made them.

`save` copies run.json (portable: no machine's paths, runs/record.py) and
results.json of every run of a sweep directory into
`studies/<name>/results/<run dir>/`, with its metrics.json derived again
from the run's stats.txt by the code being committed (so that a metric added
after the run is there); no stats.txt, consoles or checkpoints: a few hundred
KB a point. It writes `provenance.json` (with the digest of
configs/g5net_sampled.py where the runs sampled program counters).
`check_current` refuses results made by other configs.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

from .. import engines
from ..model import specs
from ..errors import StudyError
from ..machine import atomic, staged_dir
from ..metrics import derive as run_metrics
from ..runs import record as run_record
from ..runs.locate import locate
from .builtin import Study

PROVENANCE = "provenance.json"


def save(study: Study, scale: str, source: Path) -> int:
    """Replace the study's committed results with the runs under `source`; the run count."""
    found = locate(source).some_runs()
    records = [rd.read_run() for rd in found]
    versions = {r["engine"]["version"] for r in records if r.get("engine", {}).get("name") == "gem5"}
    if not versions:
        raise StudyError(f"{source}: no gem5 run to save (a study's committed results come from gem5)")
    run_specs = [specs.from_dict(r["spec"]) for r in records]
    # Published whole: a crash leaves the old results or the new, never neither or half.
    with staged_dir.staged(study.results) as tmp:
        for rd, record in zip(found, records):
            dest = tmp / rd.path.name
            dest.mkdir()
            atomic.write_json(dest / rd.run_json.name, run_record.portable(record))
            if rd.results_json.is_file():
                shutil.copy(rd.results_json, dest / rd.results_json.name)
                metrics = run_metrics.compute(specs.from_dict(record["spec"], source=str(rd.run_json)),
                                              json.loads(rd.results_json.read_text()), rd,
                                              record.get("boards"))
                atomic.write_json(dest / rd.metrics_json.name, metrics)
        atomic.write_json(tmp / PROVENANCE, {
            "study": study.name, "scale": scale, "gem5_version": sorted(versions),
            **engines.get("gem5").provenance(run_specs), "runs": len(found),
            "saved": datetime.now(timezone.utc).isoformat(timespec="seconds")})
    return len(found)


def provenance(study: Study) -> dict:
    path = study.results / PROVENANCE
    if not path.is_file():
        raise StudyError(f"study {study.name} has no committed results yet: run "
                         f"`g5net study run {study.name} --scale quick`, then "
                         f"`g5net study save {study.name}`")
    return json.loads(path.read_text())


def check_current(study: Study) -> dict:
    """The committed results' provenance; StudyError when configs/ changed since."""
    made = provenance(study)
    what = engines.get("gem5").changed_since(made)
    if what is None:
        return made
    raise StudyError(f"study {study.name}: its committed results were made by configs "
                     f"{made['configs_digest'][:12]}, and {what}: rerun "
                     f"`g5net study run {study.name} --scale {made['scale']}`, then "
                     f"`g5net study save {study.name}`")
