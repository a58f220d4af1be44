"""A run's gem5 statistics as one long table: one row per dump and stat, with
the workload each dump measured and the host each stat belongs to (by the
board prefixes run.json records: gem5 renames host client-1 to
host_client_1). `g5net.load_stats` makes it a DataFrame.

Columns: dump (0, 1, ... in file order), workload (dump i is workload i in
spec order; the dumps gem5 writes itself at exit have none), host (None for
a stat of no host: simulated time, the switch), name, value, unit (gem5
v21+'s, from the description), description.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ReportError
from ..runs import record as run_record
from ..runs.rundir import RunDir
from ..stats import iter_dumps
from ..stats.units import split_unit

COLUMNS = ("dump", "workload", "host", "name", "value", "unit", "description")


def stats_rows(path: Path) -> list[dict[str, Any]]:
    """Every stat of every dump of the run at `path` (a run directory)."""
    rd = RunDir(path)
    record = rd.read_run()
    if not rd.stats_txt.is_file():
        raise ReportError(f"{path}: no {rd.stats_txt.relative_to(rd.path)} (gem5 writes it; a "
                          f"QEMU run has none, a run that failed early may not)")
    workloads = list(record.get("spec", {}).get("workloads", {}))
    prefixes = {f"{run_record.board(record.get('boards'), h)}.": h
                for h in record.get("spec", {}).get("hosts", {})}
    rows = []
    for dump in iter_dumps(rd.stats_txt):
        workload = workloads[dump.index] if dump.index < len(workloads) else None
        for name, stat in dump.items():
            description, unit = split_unit(stat.description)
            first = name.partition(".")[0] + "."
            rows.append({"dump": dump.index, "workload": workload, "host": prefixes.get(first),
                         "name": name, "value": stat.value, "unit": unit,
                         "description": description})
    return rows
