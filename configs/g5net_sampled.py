"""gem5 config: g5net_hosts.py's measure phase, each CPU's program counter sampled.

Run by the gem5 engine instead of g5net_hosts.py where the spec sets
`experiment.pc_sample_us` (g5net/engines/gem5/), never by hand:

    gem5.opt --debug-file=pc-trace.pipe --outdir=RUN/m5out \
        configs/g5net_sampled.py RUN/gem5-measure.json

Every `pc_sample_us` of simulated time (at its multiples, so that a sample's
tick says which window it belongs to), gem5's instruction trace is switched
on for spec.PC_SAMPLE_WINDOW_US and off again. The trace prints one line per
completed instruction: tick, CPU, program counter and, in the kernel, the
nearest kernel symbol. The first line of each CPU in a window is that CPU's
sample (g5net/stats/pc_samples.py, which reads the trace from the named pipe
as gem5 writes it). A CPU that completes nothing in a window was halted, or
waited for the whole window.

The trace only observes: what is simulated, and every statistic, is the
unsampled run's. gem5.fast has no trace (it is compiled out).

This file counts in the digest of sampled runs only, so that runs without
sampling keep their ids; hence the system is g5net_hosts.py's own, which
g5net_hosts.main() runs under the `SampledSimulation` it is given.
"""

import sys

import m5
from m5.debug import flags
from m5.event import Event, create

from g5net import spec

import g5net_hosts
from g5net_components.simulation.multi_host_simulation import MultiHostSimulation

# The trace's switch; the others only shape its lines: the CPU's symbol for
# kernel addresses, one line per x86 instruction rather than per micro-op
# (ExecMacro without ExecMicro), in user and kernel mode alike.
SWITCH = "ExecEnable"
FORMAT = ("ExecSymbol", "ExecMacro", "ExecUser", "ExecKernel")


class PcSampler:
    """Opens a trace window every `period` ticks, `window` ticks long."""

    def __init__(self, period: int, window: int) -> None:
        self._period, self._window = period, window
        # Before the CPUs' own events of the same tick, as gem5's --debug-start is.
        self._open_event = create(self._open, Event.Debug_Enable_Pri)
        self._close_event = create(self._close, Event.Debug_Enable_Pri)

    def start(self) -> None:
        for name in FORMAT:
            flags[name].enable()
        now = m5.curTick()
        m5.event.mainq.schedule(self._open_event, -(-now // self._period) * self._period)

    def _open(self) -> None:
        flags[SWITCH].enable()
        m5.event.mainq.schedule(self._close_event, m5.curTick() + self._window)

    def _close(self) -> None:
        flags[SWITCH].disable()
        m5.event.mainq.schedule(self._open_event, m5.curTick() - self._window + self._period)


class SampledSimulation(MultiHostSimulation):
    """g5net_hosts.py's simulation, with a PcSampler from its first tick."""

    def instantiate(self) -> None:
        super().instantiate()
        us = m5.ticks.fromSeconds(1e-6)
        self.sampler = PcSampler(round(self.run.spec.experiment.pc_sample_us * us),
                                 round(spec.PC_SAMPLE_WINDOW_US * us))
        self.sampler.start()


if __name__ == "__m5_main__":
    sys.exit(int(g5net_hosts.main(sys.argv, simulation=SampledSimulation)))
