"""gem5's program-counter samples (`experiment.pc_sample_us`): where each CPU was.

configs/g5net_sampled.py switches gem5's instruction trace on for a short
window at every multiple of the sampling period. The trace has a line per
completed instruction (src/base/trace.cc, src/cpu/exetrace.cc)::

    91623750000: server.processor.cores1.core: 0xffffffff81a2b3c4 @e1000_clean_rx_irq+212    : mov ...
    91623750833: client.processor.cores0.core: 0x7f3a12345678    : add ...

A CPU's first line in a window is its sample: the instruction it was on when
the window opened (it completes first, however long it waited on memory or a
device within the window). `TraceReducer` keeps those as gem5 writes the
trace, through a named pipe, out of hundreds of times as many lines, as a
small tab-separated table; `functions` counts a region's samples by function
for each host.

The trace names kernel symbols only; every user-mode sample is the one
function USER_MODE, the application. A kernel address without a symbol (a
module's) is KERNEL_UNNAMED.
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import StatsParseError
from ..machine import bounded_read

USER_MODE = "(user mode)"
KERNEL_UNNAMED = "(kernel, no symbol)"
# x86-64 Linux runs its kernel in the upper half of the address space.
KERNEL_BASE = 0xFFFF800000000000
HEADER = "tick\tcpu\tfunction"

_LINE = re.compile(rb"^\s*(\d+): ([^:\s]+): 0x([0-9a-f]+)(?: @([^\s+]+))?")


@dataclass(frozen=True)
class Sample:
    tick: int
    cpu: str  # gem5's name of the CPU: its host's board, then the core
    function: str


def _function(pc: int, symbol: bytes | None) -> str:
    if pc < KERNEL_BASE:
        return USER_MODE
    return symbol.decode() if symbol else KERNEL_UNNAMED


def first_per_window(lines: Iterable[bytes], period_ticks: int) -> Iterator[Sample]:
    """The samples in gem5's trace `lines`, whose windows are `period_ticks` apart."""
    seen: set[str] = set()
    window = -1
    for line in lines:
        m = _LINE.match(line)
        if not m:
            continue  # another debug flag's line, e.g. a user's --debug-flags
        tick = int(m[1])
        if tick // period_ticks != window:
            window, seen = tick // period_ticks, set()
        cpu = m[2].decode()
        if cpu in seen:
            continue
        seen.add(cpu)
        yield Sample(tick, cpu, _function(int(m[3], 16), m[4]))


def reduce(lines: Iterable[bytes], period_ticks: int, out: Path) -> int:
    """Write the samples of gem5's trace `lines` to `out`; how many there were."""
    n = 0
    part = out.with_name(out.name + ".part")
    with open(part, "w") as f:
        f.write(HEADER + "\n")
        for s in first_per_window(lines, period_ticks):
            f.write(f"{s.tick}\t{s.cpu}\t{s.function}\n")
            n += 1
    part.replace(out)
    return n


class TraceReducer:
    """Reduces gem5's trace while gem5 writes it, through a named pipe: the
    trace is hundreds of bytes per instruction and never touches the disk.

    The pipe is opened for reading and writing, so that neither end waits for
    the other and the reader sees no end of file while gem5 has not opened it
    yet; `finish()`, once gem5 has exited, writes END after gem5's last line."""

    END = b"g5net: end of the trace\n"

    def __init__(self, fifo: Path, period_ticks: int, out: Path) -> None:
        self._fifo, self._out = fifo, out
        os.mkfifo(fifo)
        self._pipe = open(os.open(fifo, os.O_RDWR), "rb")
        self.count: int | None = None
        self.error: OSError | None = None
        self._thread = threading.Thread(target=self._run, args=(period_ticks,), daemon=True)
        self._thread.start()

    def _lines(self) -> Iterator[bytes]:
        for line in self._pipe:
            if line == self.END:
                return
            yield line

    def _run(self, period_ticks: int) -> None:
        try:
            self.count = reduce(self._lines(), period_ticks, self._out)
        except OSError as e:
            self.error = e
            # Still drain the pipe: gem5 would block on a full one.
            for _ in self._lines():
                pass

    def finish(self) -> str:
        """Once gem5 has exited: what became of the samples, in words."""
        with open(self._fifo, "wb") as f:
            f.write(self.END)
        self._thread.join()
        self._pipe.close()
        self._fifo.unlink()
        if self.error is not None:
            return f"program-counter samples lost: {self.error}"
        return f"{self.count} program-counter samples in {self._out.name}"


def read(path: Path) -> list[Sample]:
    """The samples `reduce` wrote."""
    with bounded_read.open_regular(path) as f:
        lines = f.read().decode(errors="replace").splitlines()
    if not lines or lines[0] != HEADER:
        raise StatsParseError(f"{path}: not a table of PC samples (header {HEADER!r})")
    out = []
    for n, line in enumerate(lines[1:], 2):
        parts = line.split("\t")
        if len(parts) != 3 or not parts[0].isdigit():
            raise StatsParseError(f"{path}:{n}: not 'tick<TAB>cpu<TAB>function': {line!r}")
        out.append(Sample(int(parts[0]), parts[1], parts[2]))
    return out


def functions(samples: list[Sample], start: int, end: int,
              boards: Mapping[str, str]) -> dict[str, Counter[str]]:
    """host -> function -> its samples in ticks [start, end) (`boards`: host ->
    its board's name, the first part of its CPUs' names)."""
    host_of = {board: host for host, board in boards.items()}
    out: dict[str, Counter[str]] = {host: Counter() for host in boards}
    for s in samples:
        if start <= s.tick < end:
            host = host_of.get(s.cpu.split(".", 1)[0])
            if host is not None:
                out[host][s.function] += 1
    return out
