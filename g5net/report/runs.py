"""The runs of a run, sweep or folder of runs (g5net/runs/locate.py), as reports and
checks see them: each run's `run.json` (`spec`, `status`) and `metrics.json`.
A run's parameters are its resolved spec flattened to the dotted paths that
sweeps use: `workloads.stream.msg_bytes`, `link.speed_gbps`, and
`host.nic.attach` for a host key that every host shares (`hosts.NAME.K`
where hosts differ).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CorruptRunError, ReportError, SpecError
from ..model import specs
from ..runs.locate import Located, locate
from ..runs.rundir import RunDir
from ..runs.store import warn_skipped
from ..spec import AGGREGATE, replica_tables

# Labels, not parameters: they never make two runs different points.
_NOT_PARAMS = ("experiment.name", "schema")


@dataclass(frozen=True)
class Run:
    path: Path
    status: str
    params: Mapping[str, Any]
    # host -> workload -> metric -> value, as in metrics.json
    hosts: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    # workload -> metric -> value: every client together (metrics.json's aggregate)
    aggregate: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.name

    def metrics_of(self, host: str) -> Mapping[str, Mapping[str, Any]]:
        """workload -> metrics of `host`; spec.AGGREGATE names every client together."""
        return self.aggregate if host == AGGREGATE else self.hosts.get(host, {})

    def param(self, key: str) -> Any:
        try:
            return self.params[key]
        except KeyError:
            raise ReportError(f"{self.name}: no spec key {key!r} "
                              f"(e.g. {', '.join(sorted(self.params)[:6])}, ...)") from None


def _flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(_flatten(v, key + "."))
        else:
            # Lists and empty tables become hashable, comparable values.
            out[key] = tuple(v) if isinstance(v, list) else (None if isinstance(v, Mapping) else v)
    return out


def params(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A resolved spec as flat dotted keys, with shared host keys under `host.`,
    and `hosts.TABLE.replicas` for each host table: a resolved spec has the
    table's replicas as hosts of their own (TABLE-1..TABLE-N), each with
    replicas 1, so that is what a sweep of replicas varies."""
    flat = {k: v for k, v in _flatten(spec).items() if k not in _NOT_PARAMS
            and not (k.startswith("hosts.") and k.endswith(".replicas"))}
    hosts = list(spec.get("hosts", {}))
    per_host: dict[str, dict[str, Any]] = {}
    for key in [k for k in flat if k.startswith("hosts.")]:
        _, name, rest = key.split(".", 2)
        per_host.setdefault(rest, {})[name] = flat[key]
    for rest, values in per_host.items():
        if len(values) == len(hosts) and len(set(map(repr, values.values()))) == 1:
            for name in hosts:
                del flat[f"hosts.{name}.{rest}"]
            flat[f"host.{rest}"] = next(iter(values.values()))
    flat.update({f"hosts.{table}.replicas": n for table, n in replica_tables(hosts).items()})
    return flat


def load_run(path: Path) -> Run:
    """One run; CorruptRunError where its run.json or metrics.json is damaged."""
    rd = RunDir(path)
    record = rd.read_run()
    if "spec" not in record:
        raise CorruptRunError(f"{rd.run_json}: damaged: has no 'spec'")
    metrics = rd.read_metrics()
    return Run(path, record["status"], params(_resolved(record["spec"])), metrics.get("hosts", {}),
               metrics.get("aggregate", {}))


def _resolved(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """A run's spec as today's schema resolves it: a key added since the run
    was made then reads its default, as the run ran, rather than differing
    from the runs that name it. As recorded where today's schema refuses it."""
    try:
        return specs.from_dict(spec).to_dict()
    except SpecError:
        return spec


def load(source: Path) -> list[Run]:
    """The runs `source` names (g5net/runs/locate.py), by name; damaged ones are
    skipped with a warning, unless every one is."""
    return intact(locate(source))


def intact(found: Located) -> list[Run]:
    """The runs of `found` whose records can be read; a warning for each other one."""
    runs = []
    for rd in found.some_runs():
        try:
            runs.append(load_run(rd.path))
        except CorruptRunError as e:
            if len(found.runs) == 1:
                raise
            warn_skipped(e)
    if not runs:
        raise ReportError(f"{found.path}: every run is damaged")
    return runs


def varying(runs: Sequence[Run]) -> list[str]:
    """The parameters that take more than one value across `runs`, in spec order.

    A key that some runs lack and the others agree on (the keys of a workload
    that only some points run) is one only where which runs have it does not
    follow from the keys that vary (experiment.workloads, hosts.NAME.replicas):
    otherwise each of its keys would stand beside them as a column of nulls."""
    keys: dict[str, None] = {}
    for r in runs:
        keys.update(dict.fromkeys(r.params))
    values = {k: {repr(r.params[k]) for r in runs if k in r.params} for k in keys}
    changing = [k for k in keys if len(values[k]) > 1]
    return [k for k in keys if len(values[k]) > 1
            or (any(k not in r.params for r in runs) and not _presence_follows(runs, changing, k))]


SYSTEM_TABLES = ("host.", "hosts.", "link.")


def system_first(keys: Sequence[str]) -> list[str]:
    """`keys` with those of the simulated system (its hosts and link) before the
    workloads' and the experiment's, each in their order: of keys that move
    together, the one named first says what differs between runs
    (host.cpu.model, not experiment.window_method zipped with it)."""
    return sorted(keys, key=lambda k: not k.startswith(SYSTEM_TABLES))


def _presence_follows(runs: Sequence[Run], keys: Sequence[str], other: str) -> bool:
    """Whether runs with one value of each of `keys` all have `other`, or all lack it."""
    seen: dict[str, bool] = {}
    for r in runs:
        at = repr([r.params.get(k) for k in keys])
        if seen.setdefault(at, other in r.params) != (other in r.params):
            return False
    return True


def follows(runs: Sequence[Run], keys: Sequence[str], other: str) -> bool:
    """Whether `other` takes one value among the runs with one value of each of `keys`."""
    seen: dict[str, str] = {}
    for r in runs:
        at, value = repr([r.params.get(k) for k in keys]), repr(r.params.get(other))
        if seen.setdefault(at, value) != value:
            return False
    return True


def selected(runs: Sequence[Run], where: tuple[tuple[str, Any], ...]) -> list[Run]:
    """The runs whose parameters have every value of `where`."""
    return [r for r in runs if all(r.params.get(k) == v for k, v in where)]


def independent(runs: Sequence[Run], key: str) -> list[str]:
    """The varying parameters other than `key` that do not follow from it: those
    that take more than one value among runs with one value of `key` (a zipped
    or derived key moves with `key` and is not a dimension of its own)."""
    return [k for k in varying(runs) if k != key and not follows(runs, [key], k)]


def partners(runs: Sequence[Run], key: str) -> list[str]:
    """The varying parameters that move one to one with `key`: its zip group's
    other axes and keys derived from it, which share its axis on a plot."""
    return [k for k in varying(runs)
            if k != key and follows(runs, [key], k) and follows(runs, [k], key)]


def short(key: str) -> str:
    """A parameter's name without the table it lives in: `stream.msg_bytes`, `nic.mtu`."""
    head, _, rest = key.partition(".")
    return rest if head in ("workloads", "host", "hosts", "link", "experiment") and rest else key


def label(run: Run, keys: Sequence[str], fmt: Callable[[str, Any], str] = lambda _k, v: fmt_value(v)) -> str:
    """`mtu=9000 streams=4`: the run among its sweep (a longer name where the last
    parts of two keys clash), each value of a key as `fmt(key, value)` writes it;
    its directory name when alone."""
    last = [k.rpartition(".")[2] for k in keys]
    names = last if len(set(last)) == len(last) else [short(k) for k in keys]
    return " ".join(f"{n}={fmt(k, run.params.get(k))}" for n, k in zip(names, keys)) or run.name


def fmt_value(v: Any) -> str:
    """A spec value as the TOML spells it (`true`, `pcie`, `1500`)."""
    return json.dumps(v) if isinstance(v, bool) or v is None else str(v)
