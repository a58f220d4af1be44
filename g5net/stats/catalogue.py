"""Named metrics and the stat names that carry them in each gem5 generation.

A metric's globs are alternatives, tried in order per host: the first glob
that matches at least one of the host's stats wins, and all of its matches
are summed (one per CPU, cache, memory controller or NIC of that host).
Order matters only where two spellings of one quantity coexist in a file,
e.g. a DRAM controller's `bytesReadSys` and its `bytes_read::total`.

Globs are written relative to the host (`system`, `server`, `board`, ...):
`*` is any run of characters within one path component, `**.` any number of
whole components (none included), everything else is literal. The last
component must be literal so that stats can be looked up by it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    """A quantity summed over the stats that one of `globs` matches."""

    name: str
    unit: str
    description: str
    globs: tuple[str, ...]
    # False for simulation-wide stats (`sim_seconds`): globs are then matched
    # against the full name and the value is reported for every host.
    per_host: bool = True


@dataclass(frozen=True)
class SumMetric:
    """The sum of other metrics; absent unless every part is present."""

    name: str
    unit: str
    description: str
    parts: tuple[str, ...]


def _caches(classic: tuple[str, ...], stdlib: tuple[str, ...]) -> tuple[str, ...]:
    """Miss-count globs of one cache level: classic configs' in both spellings, then
    the standard library's."""
    return (tuple(f"{c}.overall_misses::total" for c in classic)  # until v20
            + tuple(f"{c}.overallMisses::total" for c in classic)  # v21+
            + tuple(f"cache_hierarchy.{c}.overallMisses::total" for c in stdlib))


CATALOGUE: tuple[Metric | SumMetric, ...] = (
    Metric("sim_seconds", "s", "simulated time covered by the dump",
           ("sim_seconds", "simSeconds"), per_host=False),
    Metric("sim_ticks", "ticks", "simulated ticks covered by the dump",
           ("sim_ticks", "simTicks"), per_host=False),
    Metric("insts", "count", "committed instructions, all CPUs and threads", (
        "**.commitStats*.numInsts",  # v23+: per-thread commit stats of every CPU model
        # Until v22; one level below the host so that O3's `commit.committedInsts`,
        # the same count, is not added twice.
        "*.committedInsts",
        "processor.*.core.committedInsts",  # v21-v22 standard-library boards
    )),
    # x86 CPUs commit micro-ops: a locked instruction is one load and one store,
    # and no counter tells atomics apart (GEM5-NOTES: instruction mix).
    Metric("uops", "count", "committed micro-ops, all CPUs", ("**.commitStats*.numOps",)),
    Metric("load_uops", "count", "committed load micro-ops", ("**.commitStats*.numLoadInsts",)),
    Metric("store_uops", "count", "committed store micro-ops", ("**.commitStats*.numStoreInsts",)),
    Metric("cycles", "cycles", "CPU cycles, summed over CPUs", (
        "*.numCycles",
        "processor.*.core.numCycles",
    )),
    Metric("l1i_misses", "count", "L1 instruction cache misses", _caches(
        ("*.icache",), ("l1i-cache-*", "l1icaches*"))),
    Metric("l1d_misses", "count", "L1 data cache misses", _caches(
        ("*.dcache",), ("l1d-cache-*", "l1dcaches*"))),
    # Private per-CPU L2s come first: in old ARM configs that also have a shared
    # `l2c`, that one sits behind them and is a third level.
    Metric("l2_misses", "count", "L2 cache misses", _caches(
        ("*.l2cache", "l2", "l2c"), ("l2-cache-*", "l2caches*", "l2cache"))),
    Metric("l3_misses", "count", "L3 cache misses", _caches((), ("l3cache",))),
    # A DRAM controller's system-side totals come first: they are printed even
    # when zero, and its per-requestor `bytes_read` vector is the same count.
    # SimpleMemory (atomic CPUs) has only the vector.
    Metric("mem_bytes_read", "bytes", "bytes read from memory", (
        "**.bytesReadSys", "**.bytes_read::total", "**.bytesRead::total")),
    Metric("mem_bytes_written", "bytes", "bytes written to memory", (
        "**.bytesWrittenSys", "**.bytes_written::total", "**.bytesWritten::total")),
    SumMetric("mem_bytes", "bytes", "bytes read from and written to memory",
              ("mem_bytes_read", "mem_bytes_written")),
    # EtherDevice counters of every NIC model (IGbE, NS GigE, Sinic): directly
    # under the NIC until v20, in its `EtherDevice` group from v21.
    Metric("nic_tx_pkts", "count", "packets sent by the host's NICs", ("**.txPackets",)),
    Metric("nic_rx_pkts", "count", "packets received by the host's NICs", ("**.rxPackets",)),
    Metric("nic_tx_bytes", "bytes", "bytes sent by the host's NICs", ("**.txBytes",)),
    Metric("nic_rx_bytes", "bytes", "bytes received by the host's NICs", ("**.rxBytes",)),
    # The IGbE counts an interrupt it posts before it checks the mask, so masked
    # attempts (NAPI polling) count too; interrupts delivered are the guest's
    # nic_irqs (/proc/interrupts).
    # A PCIe link is an IOXBar at the link's data rate (configs/.../pcie_link.py):
    # its request layer carries the device's DMA writes and read requests to
    # the host, its response layer the read data back; each layer's occupancy
    # is the time it was busy. One link per NIC (`pcie_links`, `pcie_links0`...).
    Metric("pcie_to_host_busy_ticks", "ticks", "ticks the NICs' PCIe links were busy towards the "
           "host (DMA writes and read requests), summed over links",
           ("pcie_links*.upstream.reqLayer0.occupancy",)),
    Metric("pcie_to_device_busy_ticks", "ticks", "ticks the NICs' PCIe links were busy towards "
           "the device (DMA read data), summed over links",
           ("pcie_links*.upstream.respLayer0.occupancy",)),
    Metric("nic_interrupts", "count", "interrupts the NIC model posted, masked attempts included",
           ("**.postedInterrupts",)),
    # Each NIC's DMA leaves it through its link's CommMonitor (pcie_link.py),
    # which counts every read and write, a cache line each, whose response came
    # back. (The IGbE's own descDmaReads and descDmaWrites stay 0: it never
    # counts them.) A NIC receiving frames that moves none to memory drops
    # them all in its FIFO: the IGbE counts a frame in rxPackets on arrival.
    Metric("nic_dma_reads", "count", "cache lines the NICs read by DMA across their PCIe links",
           ("pcie_links*.dma_monitor.readLatencyHist::samples",)),
    Metric("nic_dma_writes", "count", "cache lines the NICs wrote by DMA across their PCIe links",
           ("pcie_links*.dma_monitor.writeLatencyHist::samples",)),
    SumMetric("nic_dma_lines", "count", "cache lines the NICs moved by DMA across their PCIe links",
              ("nic_dma_reads", "nic_dma_writes")),
)

METRICS = {m.name: m for m in CATALOGUE}

# A top-level object is a host if it owns CPUs or memory; NIC counters alone
# (a traffic generator, a switch) do not make one.
HOST_MARKERS = ("insts", "cycles", "mem_bytes_read", "mem_bytes_written")


def leaf(name: str) -> str:
    """The last component of a stat name or glob, with its `::sub` if any."""
    base, sep, sub = name.partition("::")
    return base.rpartition(".")[2] + sep + sub


def glob_regex(glob: str) -> re.Pattern[str]:
    """The regex (for fullmatch) of a catalogue glob."""
    if "*" in leaf(glob):
        raise ValueError(f"catalogue glob {glob!r}: the last component must be literal")
    parts = re.split(r"(\*\*\.|\*)", glob)
    wild = {"**.": r"(?:[^.:]+\.)*", "*": r"[^.:]*"}
    return re.compile("".join(wild.get(p) or re.escape(p) for p in parts))
