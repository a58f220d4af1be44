"""Several boards under one Root, run until every host has done its part."""

import json
import os
from dataclasses import asdict, dataclass, field

import m5
from m5.objects import Root

from .exit_cause import ExitCause

REPORT = "g5net-gem5.json"


@dataclass
class SimulationReport:
    """What the engine reads back from `<outdir>/g5net-gem5.json`."""
    phase: str
    completed: bool = False
    reason: str = ""
    exits: list = field(default_factory=list)
    sim_seconds: float = 0.0


class MultiHostSimulation:
    """gem5's standard `Simulator` drives one board; this drives several.

    Each board is a child of one `Root`; their `_pre_instantiate()` and
    `_post_instantiate()` run around the one `m5.instantiate()`. The guest
    ends nothing by itself: an exit event of one host leaves the others
    running, so `run_until` counts events until every host has produced the
    one it waits for. A gem5 exit event does not say which system caused it;
    the guest protocol has each host produce each event exactly once.
    """

    def __init__(self, boards: dict, network, restore_from: str | None, phase: str) -> None:
        self._boards = boards
        self.root = Root(full_system=True)
        for name, board in boards.items():
            setattr(self.root, name, board)
        self.root.network = network
        self._restore_from = restore_from
        self.report = SimulationReport(phase=phase)

    def instantiate(self) -> None:
        for board in self._boards.values():
            board._pre_instantiate()
        m5.instantiate(self._restore_from)
        for board in self._boards.values():
            board._post_instantiate()

    def run_until(self, wanted: ExitCause) -> bool:
        """Simulate until every host has caused `wanted`. False, with the
        reason in the report, when anything else ends the simulation."""
        remaining = len(self._boards)
        while remaining:
            event = m5.simulate()
            cause = event.getCause()
            self.report.exits.append({"cause": cause, "code": event.getCode(),
                                      "tick": m5.curTick()})
            kind = ExitCause.of(cause)
            if kind is wanted:
                remaining -= 1
                continue
            self.report.reason = (f"waiting for {remaining} more '{wanted.value}' event(s), "
                                  f"got '{cause}' (code {event.getCode()})")
            return False
        return True

    def checkpoint(self, directory: str) -> None:
        m5.checkpoint(directory)

    def write_report(self) -> None:
        self.report.sim_seconds = m5.curTick() / m5.ticks.fromSeconds(1.0)
        path = os.path.join(m5.options.outdir, REPORT)
        with open(path, "w") as f:
            json.dump(asdict(self.report), f, indent=2)
