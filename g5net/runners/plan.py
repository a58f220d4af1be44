"""Planning a sweep: every point's resolved spec and run id, fixed before any
point runs (its artifacts and engines resolved once, here, so that workers
never build). The plan is kept in the sweep directory (g5net/runs/sweepdir.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ..errors import EngineError, SpecError
from ..model.sweep import Sweep
from ..runs.sweepdir import Plan, PlannedPoint

if TYPE_CHECKING:
    from ..engines.base import Artifacts, EngineInfo


def make(sweep: Sweep, source: str, progress: Callable[[str], None], build: bool = True) -> Plan:
    """Resolve artifacts and engines once, here, so that workers never build."""
    # Imported here: status and collect read plans where no engine is installed.
    from .. import engines
    from ..runs import execute as run
    infos: dict[str, EngineInfo] = {}
    arts: dict[tuple[str, ...], Artifacts] = {}
    points = []
    for p in sweep.points:
        engine = p.spec.experiment.engine
        try:
            engines.get(engine).check_spec(p.spec)
        except EngineError as e:
            raise SpecError(f"sweep point {p.index} ({p.label}): {e}") from None
        if engine not in infos:
            infos[engine] = engines.get(engine).info()
        variants = tuple(sorted({h.kernel for h in p.spec.hosts}))
        if variants not in arts:
            arts[variants] = run.resolve_artifacts(p.spec, progress, build=build)
        points.append(PlannedPoint.of(p, run.run_id(p.spec, arts[variants], infos[engine]),
                                      engines.get(engine).checkpoint_key(p.spec, arts[variants])))
    return Plan(source, sweep.parameters, tuple(points))
