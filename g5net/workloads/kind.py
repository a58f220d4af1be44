"""What a workload kind is: the checks of its spec keys, the guest commands it
runs and the parser of what it printed. One concrete kind per module of
`kinds/`, found by registry.py; job.py and results.py ask it, never its name."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from ..errors import SpecError, quoted
from ..spec import Spec, Workload

if TYPE_CHECKING:
    from .flows import Instance


class Stop(NamedTuple):
    """A signal, and the program whose processes it ends: every one of them on
    the host, as once `killall -SIGNAL PROGRAM` did."""
    signal: str
    program: str


class WorkloadKind(abc.ABC):
    # The spec's `kind` value (one of spec.WORKLOAD_KINDS).
    name: ClassVar[str]
    # A stream runs one flow per NIC, instance and direction at once; every
    # other kind one per client, its own way, over NIC 0 (flows.flows).
    streams: ClassVar[bool] = False
    protocols: ClassVar[tuple[str, ...]] = ("tcp",)
    # With experiment.windows, a kind that is no stream but whose own figures
    # are of many repetitions, not of its start-up (NetPIPE: each message size
    # over many round trips), runs after the windowed stream as a region of
    # its own (workloads/checks.py, windows.py).
    after_windows: ClassVar[bool] = False

    def check(self, spec: Spec, w: Workload, key: str) -> None:
        """SpecError naming the key of `w` (whose keys are `key`.KEY) this kind cannot run."""
        if w.protocol not in self.protocols:
            raise SpecError(f"{key}.protocol: {w.kind} runs over TCP only")
        if spec.experiment.windows and w.profile and self.streams:
            raise SpecError(f"{key}.profile: the guest's profiler reads its tables around a "
                            f"workload's whole life, not its windows; with experiment.windows, "
                            f"experiment.pc_sample_us (gem5) says where each window's time goes")
        if spec.experiment.windows and not self.streams and not self.after_windows:
            raise SpecError(f"{key}.kind: experiment.windows measure inside a running stream, "
                            f"and {w.kind} is no stream; use iperf, or a spec without windows "
                            f"(netpipe or mpi may follow the windowed stream, each its own region)")
        if self.streams:
            return
        for name, value, default in (("direction", w.direction, "send"), ("instances", w.instances, 1)):
            if value != default:
                raise SpecError(f"{key}.{name}: {w.kind} cannot take {quoted(value)} (it runs one "
                                f"instance per client, its own way); iperf and iperf3 can")

    def setup(self, w: Workload, inst: Instance) -> list[str]:
        """Job lines before the region of interest (files, scripts)."""
        return []

    def prewarm(self, w: Workload) -> list[str]:
        """Job lines that load the benchmark's binary and libraries into the
        page cache before a windowed region (workloads/windows.py)."""
        return []

    def connections(self, w: Workload) -> int:
        """Connections one instance's flow opens to its server's port once it
        streams (TCP's, or a UDP flow's connected sockets): the windows'
        warm-up counts from the last (workloads/windows.py)."""
        return 1

    def stop(self, w: Workload, insts: list[Instance]) -> Stop | None:
        """How this host's instances are ended once a windowed region is
        over, each reporting what it measured (workloads/windows.py); None
        for a kind whose instances run their whole duration."""
        return None

    @abc.abstractmethod
    def command(self, w: Workload, inst: Instance) -> str:
        """The job line that runs one instance inside the region: a
        `g5_capture ITEM ...` call, so that its output becomes ITEM.out/.err/.rc."""

    def own_handshake(self, w: Workload) -> bool:
        """Whether `command` waits for its server itself, so a profiled
        workload adds no ready handshake of its own (ready.py)."""
        return False

    @abc.abstractmethod
    def measure(self, items: dict[str, str], inst: Instance) -> dict[str, Any]:
        """What one instance that exited 0 measured, from the guest's result
        items; {} for one that only serves; GuestError if nothing."""

    def host_figures(self, found: list[tuple[Instance, dict[str, Any]]]) -> dict[str, Any]:
        """Figures of the host's instances together, beyond their sums."""
        return {}
