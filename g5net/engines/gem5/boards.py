"""What gem5 calls each host, and the files gem5 writes for it."""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from ...spec import Host, Spec

# Attributes of gem5's Root that a board named like them would shadow.
_ROOT_ATTRIBUTES = frozenset({"network", "eventq_index", "full_system", "sim_quantum",
                              "time_sync_enable", "time_sync_period", "time_sync_spin_threshold"})


def board_names(spec: Spec) -> dict[str, str]:
    """Host name -> its board's SimObject name under Root: the prefix of its
    stats and the name of its console file. The host's own name where gem5
    accepts it; run.json records the map (`boards`) for every later lookup."""
    names: dict[str, str] = {}
    for h in spec.hosts:
        name = h.name
        if not name.isidentifier() or keyword.iskeyword(name) or name in _ROOT_ATTRIBUTES:
            name = "host_" + re.sub(r"\W", "_", name)
        while name in names.values():
            name += "_"
        names[h.name] = name
    return names


def macs(spec: Spec, host: Host) -> list[str]:
    index = [h.name for h in spec.hosts].index(host.name)
    return [f"00:90:00:00:{index + 1:02x}:{n + 1:02x}" for n in range(host.nic.count)]


def console_socket(board: str) -> str:
    """The Unix socket of a board's serial terminal, relative to gem5's --outdir."""
    return f"{board}.console"


def console_file(outdir: Path, board: str) -> Path:
    """Where gem5's Terminal writes a board's serial output."""
    return outdir / f"{board}.pc.com_1.device"
