"""Planning a sweep: every point's resolved spec and run id, fixed before any
point runs (its artifacts and engines resolved once, here, so that workers
never build). The plan is kept in the sweep directory (g5net/runs/sweepdir.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ..artifacts.kernels import for_host
from ..errors import EngineError, SpecError
from ..model.options import EngineOptions
from ..model.sweep import Point, Sweep
from ..runs.sweepdir import Plan, PlannedPoint

if TYPE_CHECKING:
    from ..engines.base import Artifacts, Engine


def planned(point: Point, run_id: str, checkpoint: str | None = None,
            missing: tuple[str, ...] = ()) -> PlannedPoint:
    """A point of a sweep under the run id its spec, artifacts and engine give it,
    needing the resources its engine says."""
    from .. import engines
    resources = engines.get(point.spec.experiment.engine).resources(point.spec)
    return PlannedPoint(point.index, run_id, point.spec.experiment.name, point.params,
                        point.spec.to_dict(), resources, checkpoint, missing)


def make(sweep: Sweep, source: str, progress: Callable[[str], None], build: bool = True,
         options: EngineOptions = EngineOptions()) -> Plan:
    """Resolve artifacts and engines once, here, so that workers never build;
    every point runs with the user's engine `options`. Without `build` (a dry
    run), a point whose artifacts are not built yet names them (`missing`),
    with no run id or checkpoint key: they hash what the artifacts hold."""
    # Imported here: status and collect read plans where no engine is installed.
    from .. import engines
    from ..model import identity
    from . import execute as run
    used: dict[str, Engine] = {}
    arts: dict[tuple[str, ...], Artifacts] = {}
    points = []
    for p in sweep.points:
        name = p.spec.experiment.engine
        if name not in used:
            used[name] = engines.get(name, options)
        engine = used[name]
        try:
            engine.check_spec(p.spec)
        except EngineError as e:
            raise SpecError(f"sweep point {p.index} ({p.label}): {e}") from None
        variants = tuple(sorted({for_host(h) for h in p.spec.hosts}))
        missing = () if build else tuple(run.unbuilt_artifacts(p.spec))
        if missing:
            points.append(planned(p, "", None, missing))
            continue
        if variants not in arts:
            arts[variants] = run.resolve_artifacts(p.spec, progress, build=build)
        points.append(planned(
            p, identity.run_id(p.spec, arts[variants].digests(), engine.identity(p.spec)),
            engine.checkpoint_key(p.spec, arts[variants])))
    return Plan(source, sweep.parameters, tuple(points), options)
