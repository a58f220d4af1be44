"""The built-in studies: one folder per published paper under `studies/`.

A study folder holds::

    study.toml     what the paper is, its scales, the stand-ins, figures, findings
    quick.toml     the sweep one 2-core machine runs within 90 minutes from an
                   empty checkpoint cache: one comparison of every finding the
                   model can express
    medium.toml    every finding in the paper's regime, within 150 minutes on 2
                   cores from an empty cache (kernel build and boots included)
    full.toml      the sweep at the paper's own size, for the SLURM runner
    paper.csv      the paper's published values: figure,series,x,y,unit,source
    expect.toml    the expected directions, a `g5net check` file whose named
                   [[relation]] tables are what the findings cite
    results/SCALE/ a scale's committed results, one run directory per finished
                   point and provenance.json (`g5net study save NAME --scale SCALE`);
                   `g5net study run` takes these points from it instead of
                   running them again
    report/SCALE/  the committed report of that scale: report.md and its figures
                   (`g5net study report NAME --scale SCALE`)

A study has the scales whose SCALE.toml it holds (SCALES, smallest first).

$G5NET_STUDIES, a folder laid out as studies/ is, takes its place (a
researcher's own studies).

study.toml::

    title = "..."                     # the paper's subject
    paper = "Authors, title, venue, year"
    about = "what the study asks, in a sentence or two"

    [[stand_in]]                      # a knob of the paper our hosts cannot model
    paper = "TCP offload engine"
    g5net = "absent: the host stack alone is measured"

    [[figure]]                        # our metric against a swept key, the paper's beside it
    name = "throughput-vs-mtu"        # file name; paper.csv rows with figure = name
    title = "Throughput vs MTU"
    paper_ref = "Fig. 3"
    x = "host.nic.mtu"                # a parameter of the runs (g5net report's names)
    y = "server.stream.throughput_mbps"   # HOST.WORKLOAD.METRIC of metrics.json
    hue = ""                          # optional: a parameter that makes series, or a list of them
    normalise = false                 # true: each series over its value at the smallest x
    where = {"link.switch" = false}   # optional: only the runs with these parameter values

    [[table]]                         # one row per run: its parameters, then these metrics
    name = "limits"
    title = "What limits the stream"
    columns = ["server.stream.throughput_mbps", "client.stream.cpu_util"]
    where = {}                        # optional, as for a figure

    [[finding]]
    name = "mtu-9000"
    text = "MTU 9000 gives 40-60% more throughput than MTU 1500"
    paper = "+40-60% (2.7 vs 1.8 Gbit/s)"
    relation = "mtu-9000"             # the expect.toml [[relation]] named so; "" if not modelled
    why = "..."                       # the measured reason, written from the committed results;
                                      # or {quick = "...", medium = "..."}: each scale's own numbers

    [[finding]]                       # a magnitude rather than a direction
    name = "pkts-per-intr"
    text = "7.5 to 11 packets per interrupt"
    paper = "7.5-11"
    measure = "server.stream.pkts_per_nic_irq"   # HOST.WORKLOAD.METRIC: its values over the runs
    range = [7.5, 11]                 # optional: reproduced where our values fall inside
    where = {"host.nic.count" = 1}    # optional: the measure over these runs only
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts.host import REPO
from ..errors import StudyError, key_text, quoted
from ..machine import bounded_read
from ..metrics import spread
from ..metrics.spread import Value
from ..model.data_paths import checked_name
from ..report.runs import Run
from ..spec import plain_name

# A folder of studies of one's own, laid out as studies/ is, takes its place.
STUDIES = Path(os.environ.get("G5NET_STUDIES", REPO / "studies"))
SCALES = ("quick", "medium", "full")
STUDY_FILE = "study.toml"
# A study.toml is a few pages of text.
MAX_STUDY_BYTES = 1 * 2**20


@dataclass(frozen=True)
class StandIn:
    paper: str
    g5net: str


@dataclass(frozen=True)
class Figure:
    name: str
    title: str
    paper_ref: str
    x: str
    y: str
    hue: tuple[str, ...] = ()
    normalise: bool = False
    where: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Table:
    name: str
    title: str
    columns: tuple[str, ...]  # HOST.WORKLOAD.METRIC
    where: tuple[tuple[str, Any], ...] = ()


def _table(run: Run, ref: str) -> tuple[Mapping[str, Any], str]:
    host, workload, name = ref.split(".")
    return run.metrics_of(host).get(workload, {}), name


def metric(run: Run, ref: str) -> Any:
    """The value HOST.WORKLOAD.METRIC (a figure's y, a table's column, a finding's
    measure) has in `run`; None where the run lacks it."""
    table, name = _table(run, ref)
    return table.get(name)


def measured(run: Run, ref: str) -> Value | None:
    """The value of HOST.WORKLOAD.METRIC in `run`, as metric() reads it: a
    Spread where the run measured it with one; None where it is not a number."""
    table, name = _table(run, ref)
    return spread.measured(table, name)


@dataclass(frozen=True)
class Finding:
    name: str
    text: str
    paper: str
    relation: str = ""
    # Why the verdict is what it is, from the measured values: (scale, text)
    # pairs, scale "" for every scale (study.toml: a string, or a table of
    # scale = string, each scale's text about its own numbers).
    why: tuple[tuple[str, str], ...] = ()
    measure: str = ""
    range: tuple[float, float] | None = None
    # A measure's runs: those with these parameter values (a figure's `where`).
    where: tuple[tuple[str, Any], ...] = ()

    def why_at(self, scale: str) -> str:
        """The why of this finding's verdict at `scale` ("" where none is written)."""
        whys = dict(self.why)
        return whys.get(scale) or whys.get("", "")


@dataclass(frozen=True)
class Study:
    name: str
    path: Path
    title: str
    paper: str
    about: str
    stand_ins: tuple[StandIn, ...]
    figures: tuple[Figure, ...]
    findings: tuple[Finding, ...]
    tables: tuple[Table, ...] = ()

    @property
    def scales(self) -> list[str]:
        return [s for s in SCALES if (self.path / f"{s}.toml").is_file()]

    def spec(self, scale: str) -> Path:
        """The sweep spec of `scale`; StudyError naming the scales it has."""
        if scale not in self.scales:
            raise StudyError(f"study {self.name} has no scale {quoted(scale)} (it has: {', '.join(self.scales)})")
        return self.path / f"{scale}.toml"

    @property
    def expect(self) -> Path:
        return self.path / "expect.toml"

    @property
    def paper_csv(self) -> Path:
        return self.path / "paper.csv"

    def results(self, scale: str) -> Path:
        """The folder of `scale`'s committed results."""
        return self.path / "results" / scale

    def report_dir(self, scale: str) -> Path:
        """The folder of `scale`'s committed report."""
        return self.path / "report" / scale


def names(root: Path = STUDIES) -> list[str]:
    return sorted(p.parent.name for p in root.glob(f"*/{STUDY_FILE}") if plain_name(p.parent.name))


def _refs(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) and len(x.split(".")) == 3 for x in v)


def _span(v: Any) -> bool:
    return v == [] or (isinstance(v, list) and len(v) == 2 and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in v) and v[0] <= v[1])


# What a key of each kind holds: (its type, a test of a value, what to say when it fails).
_KINDS: dict[str, tuple[type, Any, str]] = {
    "text": (str, lambda v: isinstance(v, str), "a string"),
    "flag": (bool, lambda v: isinstance(v, bool), "true or false"),
    "where": (dict, lambda v: isinstance(v, dict), "a table of parameter = value"),
    "refs": (list, _refs, "a list of HOST.WORKLOAD.METRIC strings"),
    "span": (list, _span, "[LOW, HIGH], two numbers"),
    "keys": (str, lambda v: isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v)),
             "a parameter or a list of parameters"),
    "whys": (str, lambda v: isinstance(v, str) or (isinstance(v, dict) and all(
        k in SCALES and isinstance(x, str) for k, x in v.items())),
             f"a string, or a table of scale = string (scales: {', '.join(SCALES)})"),
}


def _value(table: Mapping[str, Any], key: str, where: str, kind: str, required: bool) -> Any:
    default, ok, want = _KINDS[kind]
    value = table.get(key, default())
    if not ok(value) or (required and not value):
        raise StudyError(f"{where}: {key}: expected {'a non-empty string' if want == 'a string' and required else want}, "
                         f"got {quoted(value)}")
    return value


def _tables(data: Mapping[str, Any], key: str, where: str,
            fields: dict[str, tuple[str, bool]]) -> list[dict[str, Any]]:
    """The [[key]] tables, each with only `fields` (name -> (type, required))."""
    tables = data.get(key, [])
    if not isinstance(tables, list):
        raise StudyError(f"{where}: {key}: write [[{key}]] tables")
    out = []
    for i, t in enumerate(tables):
        at = f"{where}: {key}[{i}]"
        if not isinstance(t, dict):
            raise StudyError(f"{at}: expected a [[{key}]] table, got {quoted(t)}")
        unknown = sorted(set(t) - set(fields))
        if unknown:
            raise StudyError(f"{at}: {key_text(unknown[0])}: unknown key (allowed: {', '.join(fields)})")
        table = {k: _value(t, k, at, kind, required) for k, (kind, required) in fields.items()}
        if "name" in table:
            # Names become file names (a figure's PNG) and anchors of the report.
            checked_name(table["name"], f"{at}: name", StudyError)
        out.append(table)
    return out


_TEXT, _OPTIONAL, _FLAG, _WHERE = ("text", True), ("text", False), ("flag", False), ("where", False)


def _where(t: dict[str, Any], at: str) -> tuple[tuple[str, Any], ...]:
    for k, v in t["where"].items():
        if not isinstance(v, (str, int, float, bool)):
            raise StudyError(f"{at}: where: {key_text(k)} = {quoted(v)}: expected a number, string or true/false")
    return tuple(sorted(t["where"].items()))


def _finding(t: dict[str, Any], where: str) -> Finding:
    """A [[finding]]: a direction (`relation`) or a magnitude (`measure`, `range`)."""
    at = f"{where}: finding {t['name']}"
    if t["measure"] and len(t["measure"].split(".")) != 3:
        raise StudyError(f"{at}: measure = {quoted(t['measure'])} is not HOST.WORKLOAD.METRIC")
    if t["measure"] and t["relation"]:
        raise StudyError(f"{at}: a finding has a relation or a measure, not both")
    if t["range"] and not t["measure"]:
        raise StudyError(f"{at}: range needs a measure")
    # A relation names the runs it compares itself (expect.toml's `by`).
    if t["where"] and not t["measure"]:
        raise StudyError(f"{at}: where needs a measure")
    why = t["why"] if isinstance(t["why"], dict) else {"": t["why"]}
    return Finding(**(t | {"range": tuple(float(v) for v in t["range"]) or None,
                           "why": tuple(sorted((k, v) for k, v in why.items() if v)),
                           "where": _where(t, at)}))


def load(name: str, root: Path = STUDIES) -> Study:
    if not plain_name(name) or not (root / name / STUDY_FILE).exists():
        raise StudyError(f"no study {quoted(name)} (have: {', '.join(names(root)) or 'none'}; "
                         f"`g5net study list` describes them)")
    path = root / name
    file = path / STUDY_FILE
    try:
        data = tomllib.loads(bounded_read.read_text(file, MAX_STUDY_BYTES))
    except OSError as e:
        raise StudyError(f"{file}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise StudyError(f"{file}: not UTF-8 text (byte {e.start}); TOML files are UTF-8") from None
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{file}: not valid TOML: {e}") from e
    except RecursionError:
        raise StudyError(f"{file}: not valid TOML: nested too deeply") from None
    where = str(file)
    figures = []
    for t in _tables(data, "figure", where, {"name": _TEXT, "title": _TEXT, "paper_ref": _TEXT, "x": _TEXT,
                                             "y": _TEXT, "hue": ("keys", False), "normalise": _FLAG,
                                             "where": _WHERE}):
        if len(t["y"].split(".")) != 3:
            raise StudyError(f"{where}: figure {t['name']}: y = {quoted(t['y'])} is not HOST.WORKLOAD.METRIC")
        hue = tuple([t["hue"]] if isinstance(t["hue"], str) else t["hue"])
        figures.append(Figure(**(t | {"where": _where(t, f"{where}: figure {t['name']}"),
                                      "hue": tuple(h for h in hue if h)})))
    tables = tuple(Table(name=t["name"], title=t["title"], columns=tuple(t["columns"]),
                         where=_where(t, f"{where}: table {t['name']}"))
                   for t in _tables(data, "table", where, {"name": _TEXT, "title": _TEXT,
                                                           "columns": ("refs", True), "where": _WHERE}))
    return Study(
        name=name, path=path, title=_value(data, "title", where, *_TEXT),
        paper=_value(data, "paper", where, *_TEXT), about=_value(data, "about", where, *_TEXT),
        stand_ins=tuple(StandIn(**t) for t in _tables(data, "stand_in", where,
                                                      {"paper": _TEXT, "g5net": _TEXT})),
        figures=tuple(figures),
        findings=tuple(_finding(t, where) for t in _tables(
            data, "finding", where, {"name": _TEXT, "text": _TEXT, "paper": _TEXT,
                                     "relation": _OPTIONAL, "why": ("whys", False), "measure": _OPTIONAL,
                                     "range": ("span", False), "where": _WHERE})),
        tables=tables)
