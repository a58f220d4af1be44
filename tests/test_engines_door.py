"""The engines' registry: each engine a spec may name is the module of that
name in g5net/engines, whose ENGINE is its class."""

import importlib

import pytest

from g5net import engines, spec
from g5net.errors import EngineError


@pytest.mark.parametrize("name", spec.ENGINES)
def test_each_engine_a_spec_names_is_the_module_of_that_name(name):
    module = importlib.import_module(f"g5net.engines.{name}")
    engine = engines.get(name)
    assert type(engine) is module.ENGINE and engine.name == name


def test_an_unknown_engine_names_the_ones_there_are():
    with pytest.raises(EngineError, match=r"engine 'bochs' is not available in this g5net \(available: qemu, gem5\)"):
        engines.get("bochs")
