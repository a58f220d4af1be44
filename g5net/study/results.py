"""A study's committed results, one folder per scale: the small files of each
finished point of a sweep, with the gem5 version and configs digest that made them.

`save` copies run.json (portable: no machine's paths, runs/record.py) and
results.json of every finished point of a sweep directory (of every run of
another folder of runs) into `studies/<name>/results/<scale>/<run dir>/`,
with its metrics.json derived again from the run's stats.txt by the code
being committed (so that a metric added after the run is there); no
stats.txt, consoles or checkpoints: a few hundred KB a point. A run without
raw outputs (a point `adopt` took from the committed results) keeps its
committed files as they are. It writes `provenance.json` (with the digest of
configs/g5net_sampled.py where the runs sampled program counters). A sweep
still running saves the points finished so far.

`adopt` gives a sweep the points the committed results of its scale already
have, so that `g5net study run` goes on from them on any machine: runs of the
same id, or of the same point on another disk image (other_image).
`check_current` refuses results made by other configs.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from .. import artifacts, engines
from ..errors import ArtifactError, CorruptRunError, SpecError, StudyError
from ..machine import atomic, staged_dir
from ..metrics import derive as run_metrics
from ..model import identity, specs
from ..runs import record as run_record
from ..runs import rundir, store, sweepdir
from ..runs.locate import locate
from ..runs.rundir import RunDir
from ..runs.sweepdir import Plan, PlannedPoint, SweepDir
from .builtin import SCALES, Study

PROVENANCE = "provenance.json"


def _finished(source: Path) -> tuple[list[tuple[RunDir, dict]], dict[str, int]]:
    """The runs to save, each with its record, and what provenance.json says of
    the sweep's points (how many, and how many failed): of a sweep, the runs of
    its plan's points that are done (none of an older plan's, none being
    written); of another folder, every done run in it. A failed point is no
    result (`g5net status` on the sweep says why it failed)."""
    found = locate(source)
    if not found.sweep:
        return _done(found.some_runs()), {}
    plan = sweepdir.read(found.sweep)
    made = [rd for p in plan.points if (rd := store.find(found.sweep.store, p))]
    runs = _done(made)
    if not runs:
        raise StudyError(f"{source}: no point of the sweep is done yet "
                         f"(`g5net status {source}` lists them)")
    # A point with a run that is not done failed or timed out (store.to_run's reading).
    failed = len(made) - len(runs)
    return runs, {"points": len(plan.points), **({"failed": failed} if failed else {})}


def _done(runs: Iterable[RunDir]) -> list[tuple[RunDir, dict]]:
    """Each done run of `runs`, with its record."""
    return [(rd, record) for rd in runs if (record := rd.read_run()).get("status") == "done"]


def _raw(rd: RunDir) -> bool:
    """Whether the run has the engine's own outputs, which its metrics are derived from."""
    return rd.stats_txt.is_file() or rd.window(0).stats_txt.is_file()


def save(study: Study, scale: str, source: Path) -> int:
    """Replace the committed results of `scale` with the finished runs under `source`; the run count."""
    done, points = _finished(source)
    found, records = [rd for rd, _ in done], [record for _, record in done]
    versions = {r["engine"]["version"] for r in records if r.get("engine", {}).get("name") == "gem5"}
    if not versions:
        raise StudyError(f"{source}: no gem5 run to save (a study's committed results come from gem5)")
    run_specs = [specs.from_dict(r["spec"], source=str(rd.run_json)) for rd, r in zip(found, records)]
    # Published whole: a crash leaves the old results or the new, never neither or half.
    with staged_dir.staged(study.results(scale)) as tmp:
        for rd, record, spec in zip(found, records, run_specs):
            # Under its own id: a point taken from a run on another disk image
            # (adopt) is in the sweep's store under the id this machine gives it.
            dest = tmp / rundir.dir_name(record["name"], record["run_id"])
            dest.mkdir()
            atomic.write_json(dest / rd.run_json.name, run_record.portable(record))
            if not rd.results_json.is_file():
                continue
            shutil.copy(rd.results_json, dest / rd.results_json.name)
            if not _raw(rd):  # taken from the committed results: its metrics as committed
                if rd.metrics_json.is_file():
                    shutil.copy(rd.metrics_json, dest / rd.metrics_json.name)
                continue
            metrics = run_metrics.compute(spec, json.loads(rd.results_json.read_text()), rd,
                                          record.get("boards"))
            atomic.write_json(dest / rd.metrics_json.name, metrics)
        provenance = {
            "study": study.name, "scale": scale, "gem5_version": sorted(versions),
            **engines.get("gem5").provenance(run_specs), "runs": len(found), **points}
        # Points resumed on a machine of another disk image (adopt) stand beside its own.
        images = sorted({r["artifacts"]["image"]["digest"] for r in records if "image" in r.get("artifacts", {})})
        if len(images) > 1:
            provenance["disk_images"] = images
        provenance["saved"] = _saved_before(study.results(scale), tmp, provenance) \
            or datetime.now(timezone.utc).isoformat(timespec="seconds")
        atomic.write_json(tmp / PROVENANCE, provenance)
    return len(found)


def _saved_before(committed: Path, staged: Path, provenance: dict) -> str | None:
    """When the committed results were saved, where this save changes nothing
    of them (a scale saved every few minutes while it runs): their date stays,
    so that a save adds no commit of its own."""
    try:
        before = json.loads((committed / PROVENANCE).read_text())
    except (OSError, ValueError):
        return None
    old, new = _run_files(committed), _run_files(staged)
    same = old.keys() == new.keys() and all(old[k].read_bytes() == new[k].read_bytes() for k in new)
    return before.get("saved") if same and {**before, "saved": None} == {**provenance, "saved": None} else None


def _run_files(results: Path) -> dict[Path, Path]:
    return {p.relative_to(results): p for p in results.rglob("*") if p.is_file() and p.name != PROVENANCE}


def label(study: Study, scale: str) -> str:
    """The committed results' folder as reports and messages name it: from the
    studies' parent (`studies/10gbe/results/quick`), the same on every machine."""
    return str(study.results(scale).relative_to(study.path.parents[1]))


def committed(study: Study) -> list[str]:
    """The scales that have committed results, smallest first."""
    return [s for s in SCALES if (study.results(s) / PROVENANCE).is_file()]


def largest(study: Study) -> str:
    """The largest scale whose committed results hold every point of it, or,
    where none does yet, the largest with any (a scale run over several
    sessions commits its points as they finish: a few points of a larger
    scale do not stand in for a whole smaller one); StudyError where no scale
    has committed results."""
    have = committed(study)
    if not have:
        first = study.scales[0] if study.scales else SCALES[0]
        raise StudyError(f"study {study.name} has no committed results yet: run "
                         f"`g5net study run {study.name} --scale {first}`, then "
                         f"`g5net study save {study.name} --scale {first}`")
    whole = [s for s in have if not under_way(study, s)]
    return (whole or have)[-1]


def failed(made: dict) -> int:
    """How many of the sweep's points had failed when its results were saved."""
    return made.get("failed", 0)


def under_way(study: Study, scale: str) -> tuple[int, int] | None:
    """(runs, points) of a committed scale that has fewer runs than points;
    None for a whole one."""
    return so_far(provenance(study, scale))


def so_far(made: dict) -> tuple[int, int] | None:
    """(runs, points) of results saved while their sweep still ran, from their
    provenance; None where they hold every point (or say nothing of points:
    saved from a folder of runs, not a sweep)."""
    runs = made["runs"]
    points = made.get("points", runs)
    return (runs, points) if runs < points else None


def images(made: dict) -> str | None:
    """What a report says of results whose runs booted several disk images, in words."""
    found = made.get("disk_images", [])
    return (f"its runs booted {len(found)} disk images ({', '.join(d[:12] for d in found)}: "
            f"Debian's updates of the guest's packages between machines; each run.json names its own)"
            if len(found) > 1 else None)


def superseded(made: dict) -> str | None:
    """What a report says of results made by what today's runs would not run
    (a kernel of other patches, configs a mend superseded), in words; None
    for results of today's code."""
    differ = engines.get("gem5").superseded(made)
    return f"made on {differ}: to be run again, and their figures may change" if differ else None


def provenance(study: Study, scale: str) -> dict:
    path = study.results(scale) / PROVENANCE
    if not path.is_file():
        have = committed(study)
        raise StudyError(f"study {study.name} has no committed results at scale {scale} yet"
                         + (f" (it has: {', '.join(have)})" if have else "")
                         + f": run `g5net study run {study.name} --scale {scale}`, then "
                         f"`g5net study save {study.name} --scale {scale}`")
    made = json.loads(path.read_text())
    if made.get("scale") != scale:
        raise StudyError(f"{path}: made at scale {made.get('scale')!r}, kept under {scale}: "
                         f"save it again with `g5net study save {study.name} --scale {scale}`")
    return made


def check_current(study: Study, scale: str) -> dict:
    """The provenance of `scale`'s committed results; StudyError when configs/ changed since."""
    made = provenance(study, scale)
    what = engines.get("gem5").changed_since(made)
    if what is None:
        return made
    raise StudyError(f"study {study.name}: its committed {scale} results were made by configs "
                     f"{made['configs_digest'][:12]}, and {what}: rerun "
                     f"`g5net study run {study.name} --scale {scale}`, then "
                     f"`g5net study save {study.name} --scale {scale}`")


def adoptable(study: Study, scale: str, plan: Plan, image: str | None = None
              ) -> list[tuple[PlannedPoint, RunDir]]:
    """The points of `plan` whose run the committed results hold, finished
    (`done`), each with that committed run: those of `scale` first, then the
    study's other scales' (a point two scales share, the same spec, runs once:
    run ids hash no experiment name); under the same run id, or, where `image`
    (the digest of the disk image this machine's runs boot) is given, a run of
    the same point that booted another image (other_image)."""
    by_id: dict[str | None, RunDir] = {}
    by_point: dict[str | None, RunDir] = {}
    for s in _own_first(study, scale):
        for rd, record in _finished_committed(study, s):
            by_id.setdefault(record.get("run_id"), rd)
            if image:
                by_point.setdefault(other_image(record, image), rd)
    found = []
    for p in plan.points:
        run = by_id.get(p.run_id) or by_point.get(p.run_id)
        if p.run_id and run is not None:
            found.append((p, run))
    return found


def _own_first(study: Study, scale: str) -> list[str]:
    """The scales whose committed results a sweep of `scale` takes points from, its own first."""
    return [scale, *(s for s in committed(study) if s != scale)]


def _finished_committed(study: Study, scale: str) -> list[tuple[RunDir, dict]]:
    """The committed runs of `scale` that finished, with their run.json."""
    if not study.results(scale).is_dir():
        return []
    finished = []
    for rd in [RunDir(d) for d in sorted(study.results(scale).iterdir()) if d.is_dir()]:
        try:
            record = rd.read_run()
        except CorruptRunError as e:
            store.warn_skipped(e)
            continue
        if record["status"] == "done":
            finished.append((rd, record))
    return finished


def other_image(record: dict, image: str) -> str | None:
    """The id the run `record` names would have had on the disk image `image`:
    its spec, kernels and engine with that image. Debian updates the guest's
    packages (libc6, libssl3, ...) between one machine's image and the next
    one's, so a scale resumed elsewhere boots another image; its kernels,
    built from a Debian source release of their own, must be the same. None
    for a run recorded before run.json kept its identity, or whose spec
    today's schema refuses."""
    if record.get("identity", {}).get("version") != identity.IDENTITY_VERSION:
        return None
    digests = {name: a["digest"] for name, a in record["artifacts"].items()}
    try:
        spec = specs.from_dict(record["spec"])
    except SpecError:
        return None
    return identity.run_id(spec, {**digests, "image": image}, record["identity"]["engine"])


def adopt(study: Study, scale: str, sd: SweepDir, plan: Plan, dry: bool = False) -> set[int]:
    """Copy into the sweep's store the committed runs of its points that it has
    no run of, so that the sweep counts them as done; says how many on stderr.
    The indices of the points the committed results stand for (with `dry`:
    would stand for; nothing is copied)."""
    if not committed(study):
        return set()
    image = _image_digest()
    matched = adoptable(study, scale, plan, image)
    here = study.results(scale)
    taken, elsewhere = set(), set()
    shared: list[str] = []  # the other scale of each point taken from one
    for p, committed_run in matched:
        if store.find(sd.store, p) is None:
            if not dry:
                store.adopt(sd.store, p, committed_run)
            taken.add(p.index)
            if committed_run.read_run()["run_id"] != p.run_id:  # the point's on another image
                elsewhere.add(p.index)
            if committed_run.path.parent != here:
                shared.append(committed_run.path.parent.name)
    # Committed runs no point of this plan is: their spec is no longer one of
    # the scale's (its file changed since), or their kernel, gem5 binary or
    # configs were not these (run ids hash them).
    ours = {p.dir_name for p in plan.points} | {rd.path.name for _, rd in matched}
    foreign = [RunDir(d) for d in sorted(here.iterdir()) if d.is_dir() and d.name not in ours] if here.is_dir() else []
    planned = {identity.spec_digest(specs.from_dict(p.spec)) for p in plan.points}
    edited = sum(_ran(rd) not in planned for rd in foreign)
    print(f"[g5net] {len(taken)} of {len(plan.points)} points "
          f"{'would be ' if dry else ''}taken from the committed results "
          f"({', '.join(label(study, s) for s in _own_first(study, scale) if s in committed(study))})"
          + (f"; {len(shared)} of them from the {' and '.join(sorted(set(shared)))} scale's, "
             f"whose points they are too" if shared else "")
          + (f"; {len(elsewhere)} of them booted another disk image than this machine's "
             f"({image and image[:12]}: Debian has updated packages of the guest since; each "
             f"run.json names its image)" if elsewhere else "")
          + (f"; {edited} committed runs are of points the scale no longer has (its file "
             f"changed since they ran)" if edited else "")
          + (f"; {len(foreign) - edited} committed runs are of no point of this sweep (other run "
             f"ids: another kernel, gem5 binary or configs made them)"
             if len(foreign) > edited and all(p.run_id for p in plan.points) else ""),
          file=sys.stderr, flush=True)
    return taken


def _ran(rd: RunDir) -> str | None:
    """The spec digest of the committed run `rd`; None for a damaged record or
    a spec today's schema refuses."""
    try:
        return identity.spec_digest(specs.from_dict(rd.read_run()["spec"]))
    except (CorruptRunError, SpecError):
        return None


def _image_digest() -> str | None:
    """The digest of the disk image this machine's runs boot; None where it is not built."""
    try:
        return artifacts.image(build=False, progress=lambda _: None).digest
    except ArtifactError:
        return None
