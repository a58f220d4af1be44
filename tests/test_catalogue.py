"""The catalogue's names (g5net/contract/catalogue.py) are the spec's choices,
and configs/ has what each stands for: one NIC placement class per name
(read with ast: gem5's modules do not import here), every CPU preset a valid
set of spec defaults, every memory type a gem5 DRAM interface
(tests/test_gem5_system.py builds each one)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from g5net import spec
from g5net.contract import catalogue
from g5net.model import specs

NICS = Path(__file__).resolve().parents[1] / "configs" / "g5net_components" / "nics"
HOSTS = {"server": {"role": "server"}, "client": {"role": "client"}}


def _placement_classes() -> list[tuple[str, str]]:
    """(PLACEMENT, class) of every class in configs/g5net_components/nics/ that names one."""
    found = []
    for path in sorted(NICS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                found += [(stmt.value.value, node.name) for stmt in node.body
                          if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant)
                          and [t.id for t in stmt.targets if isinstance(t, ast.Name)] == ["PLACEMENT"]
                          and stmt.value.value]
    return found


def test_every_nic_placement_has_exactly_one_config_class():
    found = _placement_classes()
    assert Counter(name for name, _ in found) == Counter(list(catalogue.NIC_PLACEMENTS)), found


def test_the_spec_offers_the_catalogues_names():
    assert spec.NIC_ATTACH == tuple(catalogue.NIC_PLACEMENTS)
    assert spec.CPU_PRESETS == tuple(catalogue.CPU_PRESETS)
    assert spec.MEMORY_TYPES == tuple(catalogue.MEMORY_TYPES)
    assert spec.ENGINES == catalogue.ENGINES


@pytest.mark.parametrize("preset", catalogue.CPU_PRESETS.values(), ids=lambda p: p.name)
def test_every_cpu_preset_is_a_valid_set_of_defaults(preset: catalogue.CpuPreset):
    data = {"experiment": {"engine": "gem5"}, "host": {"cpu": {"preset": preset.name}},
            "hosts": HOSTS, "workloads": {"stream": {"kind": "iperf"}}}
    host = specs.from_dict(data).host("server")
    for table, keys in preset.defaults.items():
        for key, value in keys.items():
            assert getattr(getattr(host, table), key) == value, f"{preset.name}: {table}.{key}"


@pytest.mark.parametrize("memory", catalogue.MEMORY_TYPES.values(), ids=lambda m: m.name)
def test_every_memory_type_names_a_gem5_dram_interface(memory: catalogue.MemoryType):
    assert memory.gem5_module.startswith("gem5.components.memory.dram_interfaces.")
    assert memory.gem5_class.isidentifier()
