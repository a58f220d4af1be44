"""The names a spec may choose from that g5net and configs/ both know, each
defined once: engines, CPU presets, NIC placements and memory types.

Standard library only (gem5's Python imports it). g5net/spec.py takes its
choices from here; configs/ builds what each name stands for: a CPU preset is
only defaults of the spec (the spec resolves the host's shape), a NIC
placement is one class in configs/g5net_components/nics/ that carries its
name, a memory type names the gem5 DRAM interface that configs/ imports.
tests/test_catalogue.py proves each side knows every name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# The engines, by the name a spec gives (experiment.engine); each is the module
# of that name in g5net/engines/.
ENGINES = ("qemu", "gem5")


def describe(entries: Iterable[CpuPreset | NicPlacement]) -> str:
    """One line naming each entry with what it is, for a spec key's doc."""
    return "; ".join(f"{e.name}: {e.doc}" for e in entries)


def _by_name(*entries):
    return {e.name: e for e in entries}


@dataclass(frozen=True)
class CpuPreset:
    name: str
    doc: str
    # What the preset supplies, as [host] keys; every key a spec writes wins,
    # so a preset is a set of defaults (a CPU-count sweep, "Niagara 2 with
    # twice the L2").
    defaults: dict[str, Any] = field(default_factory=dict)


CPU_PRESETS = _by_name(
    CpuPreset("custom", "the keys below"),
    # Sun UltraSPARC T2, 8 cores x 8 threads at 1.2 GHz; a core's threads share
    # a 16 KiB 8-way L1I and an 8 KiB 4-way L1D; one 4 MiB 16-way L2 for the
    # chip (the system of Liao & Bhuyan 2009, studies/niagara2-nic).
    CpuPreset("niagara2", "Sun UltraSPARC T2 cores, threads, clock and caches (configs/README.md)",
              {"cpu": {"cores": 8, "threads_per_core": 8, "clock_ghz": 1.2},
               "caches": {"l1i_kib": 16, "l1i_assoc": 8, "l1d_kib": 8, "l1d_assoc": 4,
                          "l2_kib": 4096, "l2_assoc": 16, "l2_shared": True}}),
)


@dataclass(frozen=True)
class NicPlacement:
    """Where gem5 puts a host's NICs (nic.attach): the class of
    configs/g5net_components/nics/ whose PLACEMENT is `name` wires them."""
    name: str
    doc: str


NIC_PLACEMENTS = _by_name(
    NicPlacement("pcie", "behind the PCIe link of the pcie_* keys"),
    NicPlacement("integrated", "next to the memory bus"),
)


@dataclass(frozen=True)
class MemoryType:
    """One of gem5's DRAM interfaces (memory_type), one DIMM of it per channel."""
    name: str
    gem5_module: str  # the gem5 module that defines it
    gem5_class: str


_DRAM_INTERFACES = "gem5.components.memory.dram_interfaces"
MEMORY_TYPES = _by_name(
    MemoryType("ddr3_1600", f"{_DRAM_INTERFACES}.ddr3", "DDR3_1600_8x8"),
    MemoryType("ddr3_2133", f"{_DRAM_INTERFACES}.ddr3", "DDR3_2133_8x8"),
    MemoryType("ddr4_2400", f"{_DRAM_INTERFACES}.ddr4", "DDR4_2400_8x8"),
    MemoryType("ddr5_4400", f"{_DRAM_INTERFACES}.ddr5", "DDR5_4400_4x8"),
    MemoryType("lpddr3_1600", f"{_DRAM_INTERFACES}.lpddr3", "LPDDR3_1600_1x32"),
)
