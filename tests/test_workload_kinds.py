"""The workload kinds as objects: the registry finds one module per kind, and
finds the kinds spec.py names; each kind's checks run on every host-side path
that validates a spec, and not inside gem5, where spec.py is loaded alone."""

from __future__ import annotations

import importlib.util
import pkgutil
import sys
import tomllib
from pathlib import Path

import pytest

from g5net import spec
from g5net.errors import SpecError
from g5net.model import sweep
from g5net.workloads import kinds, registry
from g5net.workloads.kind import WorkloadKind

SPEC_FILE = Path(spec.__file__)
# A netpipe workload whose smallest message is larger than its largest: a
# kind's own check (kinds/netpipe.py) refuses it.
BAD_NETPIPE = ("[experiment]\nname = \"k\"\n[hosts.server]\nrole = \"server\"\n"
               "[hosts.client]\nrole = \"client\"\n[workloads.lat]\nkind = \"netpipe\"\n"
               "min_bytes = 4096\nmax_bytes = 1024\n")
BAD_NETPIPE_ERROR = "workloads.lat.min_bytes: 4096 is larger than max_bytes 1024"


def test_the_registry_finds_the_kinds_spec_names():
    """A new kind is a module of g5net/workloads/kinds/ and its name in
    spec.WORKLOAD_KINDS, the choices gem5's side checks: the two must agree."""
    assert sorted(registry.KINDS) == sorted(spec.WORKLOAD_KINDS)


def test_each_kind_module_holds_the_kind_it_is_named_for():
    modules = [m.name for m in pkgutil.iter_modules(kinds.__path__)]
    assert sorted(modules) == sorted(registry.KINDS)
    for name in modules:
        kind = registry.kind(name)
        assert isinstance(kind, WorkloadKind) and kind.name == name
        assert type(kind).__module__ == f"{kinds.__name__}.{name}"


def test_a_kinds_check_runs_on_load_and_on_sweep_expansion(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BAD_NETPIPE)
    with pytest.raises(SpecError, match=BAD_NETPIPE_ERROR):
        spec.load(path)
    good = BAD_NETPIPE.replace("min_bytes = 4096", "min_bytes = 1")
    data = tomllib.loads(good + '[sweep]\n"workloads.lat.min_bytes" = [1, 4096]\n')
    with pytest.raises(SpecError, match=f"sweep point 1 .*{BAD_NETPIPE_ERROR}"):
        sweep.expand(data)


def test_a_kinds_check_runs_on_a_run_records_spec():
    """A run's record holds its resolved spec, which from_dict checks again."""
    record = spec.loads(BAD_NETPIPE.replace("min_bytes = 4096", "min_bytes = 1")).to_dict()
    record["workloads"]["lat"]["min_bytes"] = 4096
    with pytest.raises(SpecError, match=BAD_NETPIPE_ERROR):
        spec.from_dict(record)


def test_spec_loaded_alone_as_gem5_loads_it_leaves_the_kind_checks_to_the_host():
    """configs/g5net_components/params.py loads spec.py by its path, without
    g5net's package: it validates what needs no kind."""
    name = "g5net_spec_alone"
    loader = importlib.util.spec_from_file_location(name, SPEC_FILE)
    assert loader is not None and loader.loader is not None
    alone = importlib.util.module_from_spec(loader)
    sys.modules[name] = alone
    try:
        loader.loader.exec_module(alone)
        resolved = alone.loads(BAD_NETPIPE)
        assert resolved.workloads[0].min_bytes == 4096
        with pytest.raises(alone.SpecError, match="workloads.lat.pin_each"):
            alone.loads(BAD_NETPIPE + "pin_each = true\nclient_cpus = [0]\n")
    finally:
        del sys.modules[name]
