"""A run's identity: the one function that names a run by what decides its outcome.

A run id is the sha256 of the resolved spec (less its labels), the digests of
the artifacts it boots and the engine's own contribution (`Engine.identity`:
its binary and configs, and what else the spec makes it execute). The same
point never runs twice; a changed kernel is never mistaken for the old one.

Ids name committed study results and test fixtures, so the computation is
versioned: IDENTITY_VERSION 1 is the one every recorded id was made by, and
run.json records the version and the engine's part (`identity`). A different
computation is a new version, never an edit of this one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from ..spec import E1000_WTHRESH, Spec

IDENTITY_VERSION = 1
# Keys added to [experiment] after the first ids were recorded: key -> (the
# value that runs as every spec did before it, the keys that count only where
# it is set otherwise). Specs written before them keep their ids: the process
# layout's keys count only per host, the PC sampling period only where it is
# on, the windows' keys only where there are windows, repeats where there are,
# a selection of workloads where there is one.
LATER_KEYS = {"processes": ("one", ("processes", "sync_quantum_us")),
              "pc_sample_us": (0, ("pc_sample_us",)),
              "windows": (0, ("windows", "window_ms", "warmup_ms")),
              "window_method": ("consecutive", ("window_method", "sample_every_ms",
                                                "functional_warming_ms", "detailed_warming_ms")),
              "repeats": (1, ("repeats",)),
              "workloads": ([], ("workloads",)),
              "repeat": (0, ("repeat",))}
# Keys added to a host after the first ids were recorded, as (section, key):
# the value every host had before; a host that keeps it is hashed without it.
LATER_HOST_KEYS: dict[tuple[str, str], Any] = {("nic", "rps_cpus"): [],
                                                ("nic", "rx_wthresh"): E1000_WTHRESH[0]}


def spec_digest(spec: Spec) -> str:
    """Hash of what `spec` models and measures: the resolved spec less the
    experiment's name, a label, and LATER_KEYS and LATER_HOST_KEYS left as
    they were."""
    d = spec.to_dict()
    experiment = d["experiment"]
    labels = {"name"}.union(*(keys for key, (before, keys) in LATER_KEYS.items()
                              if experiment[key] == before))
    d["experiment"] = {k: v for k, v in experiment.items() if k not in labels}
    for host in d["hosts"].values():
        for (section, key), before in LATER_HOST_KEYS.items():
            if host[section][key] == before:
                del host[section][key]
    return _sha256(d)


def run_id(spec: Spec, artifacts: Mapping[str, str], engine: Mapping[str, str]) -> str:
    """The id of a run of `spec` booting `artifacts` (name -> digest) on the
    engine whose identity is `engine` (Engine.identity)."""
    return _sha256({"spec": spec_digest(spec), "artifacts": dict(artifacts), "engine": dict(engine)})


def record(engine: Mapping[str, str]) -> dict[str, Any]:
    """What run.json keeps (`identity`) to recompute its id with its spec and artifacts."""
    return {"version": IDENTITY_VERSION, "engine": dict(engine)}


def _sha256(key: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
