"""Several boards under one Root, run until every host has done its part."""

import os

import m5
from m5.objects import Root

from g5net.contract import gem5 as contract
from .exit_cause import ExitCause


def _write_outdir_file(data) -> None:
    """Write a contract file (Progress, Report) to gem5's --outdir under its
    NAME, complete or not at all: the engine reads it while gem5 runs."""
    path = os.path.join(m5.options.outdir, data.NAME)
    with open(path + ".part", "w") as f:
        f.write(data.to_json())
    os.replace(path + ".part", path)


class MultiHostSimulation:
    """gem5's standard `Simulator` drives one board; this drives several.

    Each board is a child of one `Root`; their `_pre_instantiate()` and
    `_post_instantiate()` run around the one `m5.instantiate()`. The guest
    ends nothing by itself: an exit event of one host leaves the others
    running, so `run_until` counts events until every host has produced the
    one it waits for. A gem5 exit event does not say which system caused it;
    the guest protocol has each host produce each event exactly once.
    """

    def __init__(self, run, boards: dict, network, restore_from: str | None) -> None:
        """`run`: the params.RunParams these boards and network were built from."""
        self.run = run
        self._boards = boards
        self.root = Root(full_system=True)
        for name, board in boards.items():
            setattr(self.root, name, board)
        self.root.network = network
        self._restore_from = restore_from
        self.report = contract.Report(phase=run.phase.value)

    def instantiate(self) -> None:
        for board in self._boards.values():
            board._pre_instantiate()
        m5.instantiate(self._restore_from)
        for board in self._boards.values():
            board._post_instantiate()

    def run_until(self, wanted: ExitCause, hosts: int | None = None) -> bool:
        """Simulate until every host (or `hosts` of them) has caused `wanted`.
        False, with the reason in the report, when anything else ends the
        simulation.

        Simulates in slices of the contract's PROGRESS_INTERVAL_S, writing
        its Progress after each: leaving and re-entering the event loop
        changes nothing simulated."""
        remaining = len(self._boards) if hosts is None else hosts
        interval = m5.ticks.fromSeconds(contract.PROGRESS_INTERVAL_S)
        while remaining:
            event = m5.simulate(interval)
            kind = self._exit(event)
            if kind is ExitCause.TICK_LIMIT:
                self._write_progress()
                continue
            if kind is wanted:
                remaining -= 1
                continue
            self.report.reason = (f"waiting for {remaining} more '{wanted.value}' event(s), "
                                  f"got '{event.getCause()}' (code {event.getCode()})")
            return False
        return True

    def run_for(self, seconds: float, what: str) -> bool:
        """Simulate exactly `seconds` more, in the same slices; False, with
        the reason in the report, when a host's exit event (its workload
        ended, a panic) comes first: `what` names the stretch it cut short."""
        end = m5.curTick() + m5.ticks.fromSeconds(seconds)
        interval = m5.ticks.fromSeconds(contract.PROGRESS_INTERVAL_S)
        while m5.curTick() < end:
            event = m5.simulate(min(interval, end - m5.curTick()))
            if self._exit(event) is not ExitCause.TICK_LIMIT:
                self.report.reason = (f"'{event.getCause()}' (code {event.getCode()}) during "
                                      f"{what}: the hosts' workload ended, or a host failed")
                return False
            self._write_progress()
        return True

    def _exit(self, event) -> ExitCause:
        """Why m5.simulate() returned, recorded in the report unless it is
        the end of a slice."""
        kind = ExitCause.of(event.getCause())
        if kind is not ExitCause.TICK_LIMIT:
            self.report.exits.append({"cause": event.getCause(), "code": event.getCode(),
                                      "tick": m5.curTick()})
        return kind

    def switch_processors(self) -> None:
        """Every board's CPUs to their detailed model (SwitchingProcessor)."""
        for board in self._boards.values():
            board.get_processor().switch()

    def _write_progress(self) -> None:
        insts = {name: [int(c.get_simobject().getCCObject().resolveStat("commitStats0.numInsts").value)
                        for c in board.get_processor().get_cores()]
                 for name, board in self._boards.items()}
        _write_outdir_file(contract.Progress(sim_seconds=self._sim_seconds(), insts=insts))

    def _sim_seconds(self) -> float:
        return m5.curTick() / m5.ticks.fromSeconds(1.0)

    def checkpoint(self, directory: str) -> None:
        m5.checkpoint(directory)

    def write_report(self) -> None:
        self.report.sim_seconds = self._sim_seconds()
        _write_outdir_file(self.report)
