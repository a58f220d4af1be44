"""The progress line a runner keeps on stderr."""

from __future__ import annotations

import sys
import time
from typing import Mapping, TextIO

# A terminal gets the line redrawn in place this often; a log file gets a line
# when the counts change, or at the latest this often.
TTY_EVERY_S = 1.0
LOG_EVERY_S = 60.0


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class Display:
    def __init__(self, total: int, parallel: int, stream: TextIO = sys.stderr,
                 settled: Mapping[str, int] | None = None):
        """`settled`: states of the points this runner will not touch (done earlier)."""
        self.total = total
        self.settled = dict(settled or {})
        self.parallel = max(parallel, 1)
        self.stream = stream
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.durations: list[float] = []
        self._last_line = ""
        self._last_at = 0.0

    def finished(self, wall_s: float) -> None:
        self.durations.append(wall_s)

    def line(self, counts: Mapping[str, int]) -> str:
        counts = {s: counts.get(s, 0) + self.settled.get(s, 0) for s in {*counts, *self.settled}}
        done = counts.get("done", 0)
        failed = sum(n for s, n in counts.items() if s not in ("done", "running", "queued", "pending"))
        running, waiting = counts.get("running", 0), counts.get("queued", 0) + counts.get("pending", 0)
        elapsed = time.monotonic() - self.start
        text = (f"[sweep] {done}/{self.total} done, {failed} failed, {running} running, "
                f"{waiting} waiting | {_clock(elapsed)} elapsed")
        if self.durations and (running or waiting):
            mean = sum(self.durations) / len(self.durations)
            text += f", ~{_clock(mean * (running / 2 + waiting) / self.parallel)} left"
        return text

    def update(self, counts: Mapping[str, int], final: bool = False) -> None:
        text = self.line(counts)
        now = time.monotonic()
        if self.tty:
            if final or now - self._last_at >= TTY_EVERY_S:
                self.stream.write("\r\033[K" + text + ("\n" if final else ""))
                self.stream.flush()
                self._last_at = now
            return
        counts_part = text.split(" |")[0]
        if counts_part != self._last_line.split(" |")[0] or now - self._last_at >= LOG_EVERY_S:
            self.stream.write(text + "\n")
            self.stream.flush()
            self._last_line, self._last_at = text, now
