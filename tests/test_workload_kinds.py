"""The workload kinds as objects: the registry finds one module per kind, and
finds the kinds spec.py names; each kind's checks run on every host-side path
that validates a spec, and not inside gem5, whose side does not import them."""

from __future__ import annotations

import ast
import pkgutil
import tomllib

import pytest
from conftest import REPO

from g5net import spec
from g5net.errors import SpecError
from g5net.model import specs, sweep
from g5net.workloads import kinds, registry
from g5net.workloads.kind import WorkloadKind

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
        specs.load(path)
    good = BAD_NETPIPE.replace("min_bytes = 4096", "min_bytes = 1")
    data = tomllib.loads(good + '[sweep]\n"workloads.lat.min_bytes" = [1, 4096]\n')
    with pytest.raises(SpecError, match=f"sweep point 1 .*{BAD_NETPIPE_ERROR}"):
        sweep.expand(data)


def test_a_kinds_check_runs_on_a_run_records_spec():
    """A run's record holds its resolved spec, which from_dict checks again."""
    record = specs.loads(BAD_NETPIPE.replace("min_bytes = 4096", "min_bytes = 1")).to_dict()
    record["workloads"]["lat"]["min_bytes"] = 4096
    with pytest.raises(SpecError, match=BAD_NETPIPE_ERROR):
        specs.from_dict(record)


def test_gem5s_side_leaves_the_kind_checks_to_the_host():
    """g5net.spec, which gem5's side imports (configs/g5net_components/params.py),
    validates what needs no kind; the host's g5net.model.specs adds the kinds'."""
    data = tomllib.loads(BAD_NETPIPE)
    assert spec.from_dict(data).workloads[0].min_bytes == 4096
    with pytest.raises(SpecError, match=BAD_NETPIPE_ERROR):
        specs.from_dict(data)
    with pytest.raises(SpecError, match="workloads.lat.pin_each"):
        spec.from_dict(tomllib.loads(BAD_NETPIPE + "pin_each = true\nclient_cpus = [0]\n"))


def test_the_spec_schema_imports_nothing_of_the_host_side():
    """g5net.spec imports the standard library, g5net.errors and g5net.contract
    only, at the top or anywhere else: no arrow back up to the kinds."""
    tree = ast.parse((REPO / "g5net" / "spec.py").read_text())
    local = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
    assert local == {"contract", "errors"}
