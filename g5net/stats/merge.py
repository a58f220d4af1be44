"""One stats.txt from the processes of a per-host run.

Each host's gem5 process dumps its own board's statistics, one dump per
region of interest (every host brackets its regions itself there). Dump i
of the merged file holds every host's dump i: each board's lines from its
own process, and the lines of no board (simulated time of the region,
host-side rates) from the process of the host that frames regions in a
one-process run (workloads.job.stats_host), except the instruction counts, which are
added up over the hosts as one process would have counted them. The result
has the names and meaning of a one-process run's stats.txt, its regions
being each host's own.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from ..machine import bounded_read
from .parse import BEGIN, END

# Whole-simulation counts: the sum over every host's process.
SUMMED = ("simInsts", "simOps")
# A stats line's name and the space after it, then its value.
_VALUE = re.compile(r"^(\S+\s+)(\S+)")


def _dumps(path: Path) -> Iterator[list[str]]:
    """The lines of each dump of a stats file, markers left out."""
    lines: list[str] | None = None
    with io.TextIOWrapper(bounded_read.open_regular(path), errors="replace") as f:
        for line in f:
            marker = line.strip()
            if marker == BEGIN:
                lines = []
            elif marker == END and lines is not None:
                yield lines
                lines = None
            elif lines is not None and marker:
                lines.append(line.rstrip("\n"))


def _name(line: str) -> str:
    return line.split(None, 1)[0]


def merge(parts: Mapping[str, Path], boards: Mapping[str, str], framing: str, out: Path) -> int:
    """Write `out` from each host's stats.txt (`parts`: host -> file; `boards`:
    host -> board name); `framing`: the host whose unboarded lines are kept.
    Returns the number of dumps, that of the host with fewest."""
    dumps = {host: list(_dumps(path)) for host, path in parts.items() if path.is_file()}
    count = min((len(d) for d in dumps.values()), default=0) if len(dumps) == len(parts) else 0
    with open(out, "w") as f:
        for i in range(count):
            f.write(f"\n{BEGIN}\n")
            summed = {name: 0.0 for name in SUMMED}
            for host, host_dumps in dumps.items():
                for line in host_dumps[i]:
                    if _name(line) in summed:
                        summed[_name(line)] += float(line.split()[1])
            for line in dumps[framing][i]:
                name = _name(line)
                if name in summed:
                    f.write(_VALUE.sub(lambda m: f"{m[1]}{int(summed[name])}", line, count=1) + "\n")
                elif not name.startswith(boards[framing] + "."):
                    f.write(line + "\n")
            for host, host_dumps in dumps.items():
                prefix = boards[host] + "."
                f.writelines(line + "\n" for line in host_dumps[i] if _name(line).startswith(prefix))
            f.write(f"\n{END}\n")
    return count
