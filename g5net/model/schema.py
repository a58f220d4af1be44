"""A JSON Schema (draft 2020-12) of a spec file, for editors that check TOML
against one (`g5net spec --schema > g5net-spec.schema.json`). Made from the
walk of g5net/model/keys.py. It checks what one key at a time can show
(names, types, choices, ranges); how keys combine (peers, CPU lists, a
sweep's paths) only g5net itself checks.
"""

from __future__ import annotations

from typing import Any

from .. import spec
from .keys import Key, Table, tables

DIALECT = "https://json-schema.org/draft/2020-12/schema"
_JSON_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
               "list": "array", "dict": "object"}
_SWEEP_TOPS = ("experiment", "link", "host", "hosts", "workloads")


def key_schema(k: Key) -> dict[str, Any]:
    out: dict[str, Any] = {"type": _JSON_TYPES[k.type], "default": k.default}
    if k.doc:
        out["description"] = k.doc
    if k.choices:
        out["enum"] = list(k.choices)
    if k.lo is not None:
        out["minimum"] = k.lo
    if k.hi is not None:
        out["maximum"] = k.hi
    return out


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _table(t: Table, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    return _object({k.name: key_schema(k) for k in t.keys if k.name not in skip})


def _host(by_path: dict[str, Table], defaults: bool) -> dict[str, Any]:
    """`[host]` (defaults: no key that names one host) or `[hosts.<name>]`."""
    host = by_path["host"]
    out = _table(host, host.per_host_only if defaults else ())
    for path, t in by_path.items():
        if path.startswith("host."):
            out["properties"][path.split(".", 1)[1]] = _table(t)
    return out


def _sweep() -> dict[str, Any]:
    axis = {"type": "array", "minItems": 1,
            "description": "the values this dotted path takes, one point each"}
    return {
        "type": "object",
        "description": "axes: \"dotted.path\" = [values] (g5net/model/sweep.py)",
        "properties": {
            "zip": {"type": "array", "items": {"type": "array", "items": {"type": "string"},
                                               "minItems": 2},
                    "description": "groups of axes that advance together"},
            "derive": {"type": "object", "additionalProperties": {"type": "string"},
                       "description": "\"dotted.path\" = \"expression\" computed per point"},
        },
        "patternProperties": {rf"^({'|'.join(_SWEEP_TOPS)})\.": axis},
        "additionalProperties": False,
    }


def schema() -> dict[str, Any]:
    by_path = {t.path: t for t in tables()}
    return {
        "$schema": DIALECT,
        "title": "g5net experiment spec",
        "description": "An experiment spec (TOML); docs/spec.md describes every key.",
        **_object({
            "schema": {"const": spec.SCHEMA_VERSION, "description": "spec format version"},
            "experiment": _table(by_path["experiment"]),
            "host": _host(by_path, defaults=True),
            "hosts": {"type": "object", "minProperties": 1,
                      "additionalProperties": _host(by_path, defaults=False)},
            "link": _table(by_path["link"]),
            "workloads": {"type": "object", "minProperties": 1,
                          "additionalProperties": _table(by_path["workloads.<name>"])},
            "sweep": _sweep(),
        }),
        "required": ["hosts", "workloads"],
    }
