"""docs/spec.md and docs/metrics.md, made from the code that defines them:
the spec's dataclasses (g5net/model/keys.py) and the metric catalogues
(g5net/metrics/units.py, g5net/stats/catalogue.py). `python scripts/gen_docs.py`
writes them; a test fails when the committed ones differ.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..metrics import repeats, windows
from ..metrics.units import CATALOGUE, SOURCES
from ..model.keys import Key, tables
from ..stats.catalogue import CATALOGUE as GEM5_CATALOGUE
from ..stats.catalogue import Metric

REGENERATE = "python scripts/gen_docs.py"
_TYPE_NAMES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
               "list": "list", "dict": "table"}


def _header(title: str, source: str) -> list[str]:
    return [f"# {title}", "",
            f"<!-- Generated from {source} by `{REGENERATE}`: edit the code, not this file. -->",
            ""]


def _cell(text: str) -> str:
    """Table cell text: a `|` would end the cell, a `<name>` would be taken for HTML."""
    return text.replace("|", "\\|").replace("<", "&lt;")


def _value(v: Any) -> str:
    return f"`{json.dumps(v)}`"


def _allowed(k: Key) -> str:
    if k.choices:
        return ", ".join(_value(c) for c in k.choices)
    if k.lo is not None and k.hi is not None:
        return f"{k.lo} .. {k.hi}"
    if k.lo is not None:
        return f">= {k.lo}"
    return f"<= {k.hi}" if k.hi is not None else ""


def _table(rows: Sequence[tuple[str, ...]], header: tuple[str, ...]) -> list[str]:
    return ([f"| {' | '.join(header)} |", "|" + "---|" * len(header)]
            + [f"| {' | '.join(_cell(c) for c in r)} |" for r in rows] + [""])


def spec_markdown() -> str:
    out = _header("Spec reference", "g5net/spec.py")
    out += ["An experiment spec is a TOML file (see `examples/`). Every key has a default;",
            "a spec needs at least one `[hosts.<name>]` with `role = \"server\"`, one client and",
            "one `[workloads.<name>]`. An unknown key or a bad value is an error naming the key",
            "and what is allowed. `g5net spec --schema` prints a JSON Schema of this for editors.",
            ""]
    for t in tables():
        out += [f"## `[{t.path}]`", ""]
        if t.path == "host":
            out += ["`[host]` holds defaults for every host; `[hosts.<name>]` is one host and",
                    "overrides them key by key (its nested tables too: `[hosts.<name>.nic]`).",
                    (f"{', '.join(f'`{k}`' for k in t.per_host_only if k != 'name')} name one "
                     f"host and are read from `[hosts.<name>]` only."), ""]
        rows = [(f"`{k.name}`", _TYPE_NAMES[k.type], _value(k.default), _allowed(k), k.doc)
                for k in t.keys]
        out += _table(rows, ("key", "type", "default", "allowed", "description"))
    out += ["## `[sweep]`", "",
            "`\"dotted.path\" = [values]` per axis, `zip = [[paths]]` for axes that advance",
            "together and `[sweep.derive]` for keys computed per point: see `g5net sweep --help`",
            "and `examples/sweep-quick.toml`.", ""]
    return "\n".join(out)


def _stat_names(m: Metric) -> str:
    return ", ".join(f"`{g}`" for g in m.globs)


def metrics_markdown() -> str:
    out = _header("Metrics reference",
                  "g5net/metrics/units.py and g5net/stats/catalogue.py")
    out += ["A run's `metrics.json` holds, per host and workload, the metrics below (a metric",
            "that could not be measured is absent, never 0); `g5net.load` gives them a `unit`",
            "column. Values are as measured: `cpu_util` is a fraction, shares are percent.", "",
            "## Regions: a workload's whole life, windows, repeats", "",
            "Without `experiment.windows` a workload's region of interest is its whole life,",
            "one gem5 stats dump and one pair of guest snapshots. With windows:", "",
            inspect.getdoc(windows) or "", "",
            "With `experiment.repeats` (`g5net/metrics/repeats.py`):", "",
            inspect.getdoc(repeats) or "", "",
            "The uncertainty a check or a study's verdict weighs is `spread`; `g5net check`",
            "says \"within noise\" where a difference is not larger than it (Welch's t test at",
            "95%, `g5net/metrics/spread.py`).", ""]
    for source, meaning in SOURCES.items():
        out += [f"## {source}", "", f"From {meaning}.", ""]
        rows = [(f"`{m.name}`", m.unit, m.description) for m in CATALOGUE if m.source == source]
        out += _table(rows, ("metric", "unit", "description"))
    out += ["## gem5 statistics behind the gem5 metrics", "",
            "Per host, the first pattern that matches one of the host's statistics wins and",
            "all its matches are summed; `*` is any run of characters within one name",
            "component, `**.` any number of whole components. A sum is of other metrics.", ""]
    stat_rows = [(f"`{m.name}`", m.unit, m.description,
                  _stat_names(m) if isinstance(m, Metric) else "sum of " + ", ".join(
                      f"`{p}`" for p in m.parts)) for m in GEM5_CATALOGUE]
    out += _table(stat_rows, ("metric", "unit", "description", "gem5 statistics"))
    return "\n".join(out)


FILES: dict[str, Callable[[], str]] = {"spec.md": spec_markdown, "metrics.md": metrics_markdown}


def write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, make in FILES.items():
        (folder / name).write_text(make())
        written.append(folder / name)
    return written
