"""The experiment spec: TOML in, validated frozen dataclasses out.

Standard library only: gem5's embedded Python imports this module (and
g5net.errors, g5net.contract) to read the resolved spec (as JSON) that the
gem5 engine hands to `configs/`. The host reads spec files and dicts through
g5net.model.specs, which adds the workload kinds' own checks to this schema's.

Layout of a spec file::

    [experiment]            name, engine, timeout_s, icount
    [host]                  defaults for every host (cpu, caches, nic, sysctl, ...)
    [hosts.<name>]          one table per host; overrides [host] key by key
    [link]                  the Ethernet between hosts
    [workloads.<name>]      run in file order; `kind` picks the benchmark

Validation happens once, at the edge (g5net.model.specs.load/from_dict); every
error names the dotted key, the bad value and what is allowed.

Names (experiment.name and the NAME of [hosts.NAME] and [workloads.NAME]) are
1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit,
without '..' (NAME_PATTERN): they become file names, shell words, QEMU option
values and kernel parameters. Numbers are finite; integers are bounded.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, TypeGuard

from .contract import catalogue
from .errors import SpecError, key_text, quoted


SCHEMA_VERSION = 1

# The names g5net and gem5's configs both know (g5net/contract/catalogue.py).
ENGINES = catalogue.ENGINES
# gem5: every host in one process, or each host in a gem5 process of its own
# joined by dist-gem5 (a switch process and a barrier every quantum).
PROCESS_LAYOUTS = ("one", "per-host")
# How a point's windows (experiment.windows) are simulated: one after another
# in one detailed run, or each restored on its own from a warm checkpoint of a
# fast-forwarded stream (experiment.window_method; docs/metrics.md).
WINDOW_METHODS = ("consecutive", "sampled")
KERNEL_VARIANTS = ("smp", "up")
ROLES = ("server", "client")
NIC_ATTACH = tuple(catalogue.NIC_PLACEMENTS)
# gem5's out-of-order CPU: its hosts boot kernels of their own (artifacts/kernels.py).
CPU_O3 = "o3"
CPU_MODELS = ("atomic", "timing", "minor", CPU_O3)
CPU_PRESETS = tuple(catalogue.CPU_PRESETS)
# Each kind is a module of g5net/workloads/kinds/; this tuple is the choice
# gem5's side checks a resolved spec against, without that package.
WORKLOAD_KINDS = ("iperf", "iperf3", "netpipe", "mpi", "web")
PROTOCOLS = ("tcp", "udp")
# Which way a stream's data flows, seen from the client: "send" client -> server,
# "receive" server -> client, "both" one instance each way at once.
DIRECTIONS = ("send", "receive", "both")
MAX_REPLICAS = 64
# Reports and checks name every client of a workload together as this host.
AGGREGATE = "aggregate"
MAX_INSTANCES = 16
# The 10GbE study's MTU set spans 1500..16000; the e1000 driver accepts up to 16110.
MTU_RANGE = (68, 16110)
MAX_CPUS = 64
# The e1000 driver's interrupt moderation bounds (drivers/net/ethernet/intel/
# e1000/e1000_param.c): InterruptThrottleRate 100..100000 per second, so a
# delay of 10 us..10 ms; its four delay timers are 16-bit registers.
E1000_DELAY_NS = (10_000, 10_000_000)
E1000_TIMER_MAX = 0xFFFF
# RXDCTL.WTHRESH, a 6-bit field the e1000 driver never writes: it keeps the
# NIC's reset value, gem5's IGbE's 1 (src/dev/net/i8254xGBe.cc, IGbE::IGbE).
E1000_WTHRESH = (1, 0x3F)
# PCIe, per lane and direction, after line coding (PCI Express Base
# Specification: 2.5 and 5 GT/s with 8b/10b, 8 and 16 GT/s with 128b/130b).
PCIE_LANE_MBYTES_PER_S = {1: 250.0, 2: 500.0, 3: 8000 / 8 * 128 / 130, 4: 16000 / 8 * 128 / 130}
PCIE_LANES = (1, 2, 4, 8, 16)
# Max_Payload_Size and Max_Read_Request_Size take these values (Device Control
# register); after reset they are 128 and 512 bytes.
PCIE_TRANSFER_BYTES = (128, 256, 512, 1024, 2048, 4096)
# What each TLP carries besides its data: a 4 DW header (64-bit address) 16 B,
# the data link layer's sequence number 2 B and LCRC 4 B, framing 2 B.
PCIE_TLP_OVERHEAD_BYTES = 24
# A requester without Extended Tag has a 5-bit tag: 32 reads outstanding.
PCIE_DEFAULT_READ_REQUESTS = 32
MEMORY_TYPES = tuple(catalogue.MEMORY_TYPES)
MEMORY_CHANNELS = (1, 2, 4, 8)
# Experiment, host and workload names become file names, shell words, QEMU
# option values and kernel parameters: a letter or digit, then letters, digits
# and . _ - (no white space, quotes, commas or slashes), no "..", 64 at most.
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
# Sysctls travel as g5net.sysctl=KEY=VALUE,KEY=VALUE on the kernel command line
# and become /proc/sys paths: no white space, commas or '=' may end a word early
# (':' stands for a space in a value, workloads/README.md), no '..' in a key.
SYSCTL_KEY_PATTERN = r"[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*){0,15}"
OFFLOAD_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
SYSCTL_VALUE_PATTERN = r"[A-Za-z0-9_.:+/-]{1,256}"
# Upper bound of integer keys that have no bound of their own: what JSON readers
# (and gem5's Python) still hold exactly.
MAX_INT = 2**53
# A socket buffer is a C int in the kernel; iperf allocates -l bytes at once.
MAX_WINDOW_BYTES = 2**31 - 1
# gem5's PC sampling (experiment.pc_sample_us): how long the instruction trace
# stays on per sample. A CPU's sample is the first instruction it completes in
# the window, so the window must outlast the longest wait of one instruction:
# a DRAM access is some 100 ns, a read of a NIC register across PCIe some
# 0.5 us there and back, and the timing CPU waits for either. A CPU stalled
# past the window goes unsampled. Shared by the configs, which open the
# windows, and the check that periods leave room for them.
PC_SAMPLE_WINDOW_US = 2.0
# The shortest period, in windows: a quarter of the instructions traced.
PC_SAMPLE_MIN_WINDOWS = 4
MAX_MSG_BYTES = 2**30
# Repeats of a run (experiment.repeats): enough for a spread between runs,
# few enough for one run directory.
MAX_REPEATS = 100
# How much later each repeat starts its workloads than the one before
# (experiment.repeat): a prime number of microseconds, so that repeats meet
# the guest's 4 ms timer tick at different phases.
REPEAT_START_US = 137.0
# Windows of a region (experiment.windows): a mean and its spread need two; a
# run of more than a thousand is a sweep's work.
MAX_WINDOWS = 1000
# Every flow of every workload listens on a TCP or UDP port of its own, from
# the first of these on (g5net/workloads/flows.py), and the last port is 65535.
FLOW_PORTS = (5001, 65535)
# A week: no simulated run a study asks for takes longer.
MAX_TIMEOUT_S = 7 * 24 * 3600
# gem5 counts time in ticks of 1 ps (its default rate, 1e12 per second) in an
# unsigned 64-bit integer, 2**64 ps or some 213 days. A week of simulated time
# (6e17 ticks) is the most a spec asks for, which leaves room for any boot.
GEM5_TICK_US = 1e-6
MAX_SIMULATED_US = MAX_TIMEOUT_S * 1e6


def _meta(*, choices=None, lo=None, hi=None, doc=""):
    return {"choices": choices, "lo": lo, "hi": hi, "doc": doc}


def _f(default, **kw):
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: type(default)(default), metadata=_meta(**kw))
    return field(default=default, metadata=_meta(**kw))


@dataclass(frozen=True)
class Experiment:
    name: str = _f("experiment", doc="label for the run; not part of the run id")
    engine: str = _f("qemu", choices=ENGINES,
                     doc="the simulator: qemu (fast functional check) or gem5 (the detailed model)")
    timeout_s: int = _f(600, lo=1, hi=MAX_TIMEOUT_S, doc="wall-clock limit for the whole run")
    icount: bool = _f(False, doc="qemu: deterministic virtual time (one cpu per host only)")
    boot_timeout_s: int = _f(120, lo=1, hi=MAX_TIMEOUT_S, doc="guest must report booted within this")
    processes: str = _f("one", choices=PROCESS_LAYOUTS,
                        doc="gem5: one process simulates every host, or per-host: a gem5 process "
                            "per host plus dist-gem5's switch process, on several cores or SLURM "
                            "nodes; needs link delays above 0 (configs/README.md)")
    sync_quantum_us: float = _f(0.0, lo=0.0,
                                doc="gem5 per-host: simulated time between the processes' "
                                    "barriers; at most the shortest hop's delay (0: that delay)")
    pc_sample_us: float = _f(0.0, lo=0.0,
                             doc="gem5: every this many simulated microseconds of the measured "
                                 "phase, record the function each CPU executes (gem5's "
                                 "instruction trace, which the guest cannot notice): where the "
                                 f"CPU time goes, per workload; 0: off, else at least "
                                 f"{PC_SAMPLE_MIN_WINDOWS * PC_SAMPLE_WINDOW_US:g} (each sample "
                                 f"traces {PC_SAMPLE_WINDOW_US:g} us; configs/README.md)")
    warmup_ms: float = _f(20.0, lo=0.0,
                          doc="with windows: simulated ms (the guest's clock) from a workload's "
                              "start, its flows connected, to its first window: slow start over, "
                              "the receiver's socket buffer filled, caches warm, the guest's own "
                              "snapshot taken; at least window_ms (the default: the quickstart's "
                              "stream ran 15% faster 10-20 ms after connecting than after that)")
    windows: int = _f(0, lo=0, hi=MAX_WINDOWS,
                      doc="measure the stream workload (one iperf, TCP or UDP) as this many "
                          "consecutive windows of window_ms inside its running stream, after "
                          "warmup_ms, each window its own gem5 stats dump; metrics are the mean "
                          "over windows with a 95% confidence interval (docs/metrics.md); 0: "
                          "each workload's whole life is one region; else at least 2. netpipe "
                          "(or mpi) workloads after the stream run as whole-life regions of "
                          "their own, their figures the guest's alone")
    window_ms: float = _f(5.0, lo=0.0, doc="with windows: the simulated ms each window lasts")
    window_method: str = _f("consecutive", choices=WINDOW_METHODS,
                            doc="with windows, gem5: consecutive (one detailed run, window after "
                                "window) or sampled (the stream fast-forwarded on "
                                "cpu.boot_model into a warm checkpoint every sample_every_ms; "
                                "each window restored on its own, warmed, then measured on "
                                "cpu.model, all in parallel; docs/metrics.md)")
    sample_every_ms: float = _f(10.0, lo=0.0,
                                doc="sampled windows: simulated ms between the warm checkpoints "
                                    "along the fast-forwarded stream, the first after warmup_ms")
    functional_warming_ms: float = _f(10.0, lo=0.0,
                                      doc="sampled windows: simulated ms each window first runs "
                                          "on cpu.boot_model with the spec's caches (a "
                                          "checkpoint holds no cache contents; restored cold, "
                                          "the quickstart's stream missed its 1 MiB L2 14% "
                                          "more per packet: README)")
    detailed_warming_ms: float = _f(2.0, lo=0.0,
                                    doc="sampled windows: simulated ms each window then runs on "
                                        "cpu.model before it is measured (pipelines, queues and "
                                        "TCP settle to the detailed CPU's pace)")
    repeats: int = _f(1, lo=1, hi=MAX_REPEATS,
                      doc="run the experiment this many times, each repeat from the same boot "
                          "with its own perturbation (experiment.repeat), in one run directory: "
                          "metrics are the mean over repeats, their spread the repeats' "
                          "(docs/metrics.md)")
    workloads: list = _f([], doc="the names of the [workloads.*] this run runs, in the spec's "
                                 "order (empty: every one): one sweep's rows may run different "
                                 "workloads, e.g. sampled windows of a stream on some and NetPIPE "
                                 "after a consecutive one on others, which one run cannot hold")
    repeat: int = _f(0, lo=0, hi=MAX_REPEATS - 1,
                     doc="which perturbation a run gets: repeat k > 0 seeds the guest's random "
                         f"numbers with k and starts its workloads k x {REPEAT_START_US:g} "
                         "simulated us later (gem5 is deterministic: without it repeats would "
                         "be identical); g5net sets it for each of experiment.repeats")


@dataclass(frozen=True)
class Cpu:
    preset: str = _f("custom", choices=CPU_PRESETS, doc=catalogue.describe(catalogue.CPU_PRESETS.values()))
    cores: int = _f(1, lo=1, hi=MAX_CPUS, doc="CPU cores per host")
    threads_per_core: int = _f(1, lo=1, hi=8,
                               doc="hardware threads per core; gem5 models each thread as one CPU")
    clock_ghz: float = _f(2.0, lo=0.1, hi=10.0, doc="gem5: CPU clock")
    model: str = _f("timing", choices=CPU_MODELS,
                    doc="gem5 CPU for the region of interest; on o3 the host boots its kernel's O3 "
                        "build (configs/README.md, \"O3 and the hlt\")")
    boot_model: str = _f("atomic", choices=CPU_MODELS, doc="gem5 CPU used to boot")

    @property
    def count(self) -> int:
        return self.cores * self.threads_per_core


@dataclass(frozen=True)
class Caches:
    l1i_kib: int = _f(32, lo=1, doc="gem5: L1 instruction cache size, per core")
    l1i_assoc: int = _f(8, lo=1, doc="gem5: L1 instruction cache ways")
    l1d_kib: int = _f(32, lo=1, doc="gem5: L1 data cache size, per core")
    l1d_assoc: int = _f(8, lo=1, doc="gem5: L1 data cache ways")
    l1_latency_cycles: int = _f(2, lo=1,
                                doc="gem5: L1 hit latency (tags and data looked up in parallel)")
    l1_mshrs: int = _f(4, lo=1, doc="gem5: misses each L1 keeps outstanding (MSHRs)")
    l2_kib: int = _f(1024, lo=0, doc="0: no L2")
    l2_assoc: int = _f(16, lo=1, doc="gem5: L2 ways")
    l2_latency_cycles: int = _f(20, lo=1, doc="gem5: L2 hit latency")
    l2_mshrs: int = _f(20, lo=1, doc="gem5: misses the L2 keeps outstanding (MSHRs)")
    l2_shared: bool = _f(True, doc="one L2 for all cores, else one per core")
    l3_kib: int = _f(0, lo=0, doc="0: no L3")
    l3_assoc: int = _f(16, lo=1, doc="gem5: L3 ways")
    l3_latency_cycles: int = _f(40, lo=1, doc="gem5: L3 hit latency")
    l3_mshrs: int = _f(32, lo=1, doc="gem5: misses the L3 keeps outstanding (MSHRs)")

    @property
    def shared_last_level(self) -> bool:
        """Whether every core's misses meet in one last-level cache (direct cache
        access allocates the NIC's writes there)."""
        return bool(self.l3_kib or (self.l2_kib and self.l2_shared))


@dataclass(frozen=True)
class Nic:
    model: str = _f("e1000", choices=("e1000",), doc="gem5 IGbE_e1000 / QEMU e1000")
    attach: str = _f("pcie", choices=NIC_ATTACH,
                     doc="gem5: where the NIC sits; " + catalogue.describe(catalogue.NIC_PLACEMENTS.values()))
    dca: bool = _f(False, doc="integrated only: DMA writes allocate in the last-level cache")
    count: int = _f(1, lo=1, hi=6, doc="NICs per host, each on its own link; NIC i of the host "
                                       "at ip A.B.C.D is A.B.(C+i).D/24, on network i")
    mtu: int = _f(1500, lo=MTU_RANGE[0], hi=MTU_RANGE[1],
                  doc="MTU of every NIC of the host; above 1500 is jumbo frames")
    offloads: dict = _f({}, doc="ethtool -K features, e.g. {tso = false}")
    rx_fifo_kib: int = _f(384, lo=1, doc="gem5: the NIC's receive FIFO")
    tx_fifo_kib: int = _f(384, lo=1, doc="gem5: the NIC's transmit FIFO")
    rx_desc_cache: int = _f(64, lo=1, doc="gem5: receive descriptors the NIC holds on chip")
    tx_desc_cache: int = _f(64, lo=1, doc="gem5: transmit descriptors the NIC holds on chip")
    intr_delay_ns: int = _f(10000, lo=0, hi=E1000_DELAY_NS[1],
                            doc="gem5: least time between a NIC's interrupts (the e1000 driver's "
                                "InterruptThrottleRate, 1e9 / this rounded, which the driver takes "
                                "from 100 to 100000 per second: 10000..10000000 ns); 0: no "
                                "throttling")
    rx_int_delay: int = _f(0, lo=0, hi=E1000_TIMER_MAX,
                           doc="gem5: e1000 RxIntDelay, the receive delay timer (RDTR), in units of "
                               "1.024 us; 0: interrupt at once (the driver's default)")
    rx_abs_int_delay: int = _f(8, lo=0, hi=E1000_TIMER_MAX,
                               doc="gem5: e1000 RxAbsIntDelay (RADV), the most a receive interrupt "
                                   "waits, 1.024 us units (driver default 8)")
    tx_int_delay: int = _f(8, lo=0, hi=E1000_TIMER_MAX,
                           doc="gem5: e1000 TxIntDelay (TIDV), 1.024 us units (driver default 8)")
    tx_abs_int_delay: int = _f(32, lo=0, hi=E1000_TIMER_MAX,
                               doc="gem5: e1000 TxAbsIntDelay (TADV), 1.024 us units (driver "
                                   "default 32)")
    rx_wthresh: int = _f(E1000_WTHRESH[0], lo=0, hi=E1000_WTHRESH[1],
                         doc="gem5: RXDCTL.WTHRESH, the receive descriptors' write-back threshold, "
                             "set by the guest (nicreg) when not the NIC's reset value, 1, which "
                             "the e1000 driver leaves. gem5 24's IGbE writes descriptors back when "
                             "it holds at most WTHRESH used ones (the 8254x manual: at least), so "
                             "a receive overload stops its reset value's NIC; 63 writes back a "
                             "cache line (4) at a time (configs/README.md, the e1000 under UDP "
                             "overload)")
    txqueuelen: int = _f(0, lo=0, hi=1_000_000, doc="transmit queue length of every NIC "
                                                   "(ip link ... txqueuelen); 0: the kernel's, 1000")
    irq_cpus: list = _f([], doc="CPUs the NIC's interrupt may go to (smp_affinity)")
    rps_cpus: list = _f([], doc="CPUs that share the protocol processing of what each NIC receives "
                                "(Linux receive packet steering, the NIC's rx-0/rps_cpus), as "
                                "Solaris's soft rings do; empty: the CPU that takes the interrupt "
                                "does it all")
    pcie_gen: int = _f(2, lo=1, hi=4, doc="gem5, attach = pcie: the link's generation (2.5, 5, 8, "
                                           "16 GT/s per lane)")
    pcie_lanes: int = _f(8, choices=PCIE_LANES, doc="gem5, attach = pcie: the link's width")
    pcie_latency_ns: float = _f(200.0, lo=0.0, hi=1e6,
                                doc="gem5, attach = pcie: one-way latency of link and root complex "
                                    "(Neugebauer et al., SIGCOMM 2018: round trips of several "
                                    "hundred ns)")
    pcie_max_payload: int = _f(128, choices=PCIE_TRANSFER_BYTES,
                               doc="gem5, attach = pcie: Max_Payload_Size, the data per TLP; each "
                                   "TLP costs 24 B more on the link")
    pcie_max_read_request: int = _f(512, choices=PCIE_TRANSFER_BYTES,
                                    doc="gem5, attach = pcie: Max_Read_Request_Size; the NIC's DMA "
                                        "reads are split into requests of this size")
    pcie_read_requests: int = _f(PCIE_DEFAULT_READ_REQUESTS, lo=1, hi=256,
                                 doc="gem5, attach = pcie: read requests the NIC keeps outstanding "
                                     "(32: a 5-bit tag; 1: PCI-X's default of one split "
                                     "transaction)")

    @property
    def pcie_gbytes_per_s(self) -> float:
        """The link's raw bandwidth per direction, after line coding."""
        return PCIE_LANE_MBYTES_PER_S[self.pcie_gen] * self.pcie_lanes / 1000

    @property
    def pcie_data_gbytes_per_s(self) -> float:
        """What is left for data once every TLP of Max_Payload_Size has paid its overhead."""
        mps = self.pcie_max_payload
        return self.pcie_gbytes_per_s * mps / (mps + PCIE_TLP_OVERHEAD_BYTES)

    @property
    def pcie_read_bytes_in_flight(self) -> int:
        """The most DMA-read data outstanding at once: requests x request size."""
        return self.pcie_read_requests * self.pcie_max_read_request


@dataclass(frozen=True)
class Host:
    name: str
    role: str = _f("client", choices=ROLES,
                   doc="server runs the workloads' servers; client runs their clients against its "
                       "peer")
    replicas: int = _f(1, lo=1, hi=MAX_REPLICAS,
                       doc="this table stands for N identical hosts <name>-1..<name>-N; an "
                           "explicit ip is the first's, the others count up from it")
    peer: str = _f("", doc="the server a client talks to; default: the only server")
    ip: str = _f("", doc="default: 10.0.0.<index+1>")
    memory_mb: int = _f(512, lo=64, hi=65536, doc="guest memory")
    memory_type: str = _f("ddr4_2400", choices=MEMORY_TYPES,
                          doc="gem5: the DRAM model of each channel (gem5's DDR interfaces)")
    memory_channels: int = _f(1, choices=MEMORY_CHANNELS,
                              doc="gem5: memory channels, interleaved every 64 B")
    kernel: str = _f("smp", choices=KERNEL_VARIANTS,
                     doc="the kernel build it boots: smp (any number of CPUs) or up (one CPU); "
                         "on gem5's O3 CPU their O3 builds, smp-o3 and up-o3")
    cpu: Cpu = field(default_factory=Cpu)
    caches: Caches = field(default_factory=Caches)
    nic: Nic = field(default_factory=Nic)
    link: dict = _f({}, doc="this host's own link to the switch: speed_gbps and/or delay_us, "
                            "each overriding [link]'s (e.g. a 10 Gbit/s server among 1 Gbit/s "
                            "clients); needs a switch")
    online_cpus: int = _f(0, lo=0, hi=MAX_CPUS,
                          doc="CPUs the guest keeps online for the workloads (CPU 0 up to this); "
                              "the rest are taken offline before the first workload, as the "
                              "studies varied CPUs on one machine; 0: all")
    sysctl: dict = _f({}, doc="sysctl name -> value, applied before the workloads")
    kernel_args: list = _f([], doc="extra kernel command-line arguments, each one word "
                                   "(e.g. [\"idle=poll\", \"mitigations=off\"]), after the "
                                   "engine's own, none of the guest protocol's (g5net.*, init, "
                                   "root, console, ro, rw, panic, quiet); the whole line must fit "
                                   "the engine's (gem5 511 characters, Linux 2047); they change "
                                   "the boot checkpoint")

    def nic_ip(self, nic: int) -> str:
        """NIC `nic`'s address: A.B.C.D becomes A.B.(C+nic).D, so that NIC i of
        every host shares network i, a /24 of its own."""
        return str(ipaddress.IPv4Address(self.ip) + 256 * nic)


@dataclass(frozen=True)
class Link:
    speed_gbps: float = _f(10.0, lo=0.001, hi=400.0,
                           doc="gem5: link bandwidth (QEMU's links are not timed)")
    delay_us: float = _f(1.0, lo=0.0, doc="gem5: one-way latency of the link")
    pcap: bool = _f(False, doc="gem5: EtherDump of every link")
    switch: bool = _f(False, doc="join the hosts through a switch even when there are two "
                                 "(more than two always go through one)")
    switch_delay_us: float = _f(0.0, lo=0.0, doc="the switch's own forwarding latency")


@dataclass(frozen=True)
class Workload:
    name: str
    kind: str = _f("iperf", choices=WORKLOAD_KINDS,
                   doc="the benchmark: iperf or iperf3 (streams), netpipe (ping-pong latency), mpi "
                       "(NetPIPE over MPI), web (wrk against a web server)")
    protocol: str = _f("tcp", choices=PROTOCOLS, doc="iperf/iperf3")
    duration_s: float = _f(3.0, lo=0.0, doc="iperf/iperf3: 0 means use bytes")
    bytes: int = _f(0, lo=0, doc="iperf/iperf3: transfer this much instead of duration_s")
    msg_bytes: int = _f(131072, lo=1, hi=MAX_MSG_BYTES, doc="iperf -l: bytes per write")
    window_bytes: int = _f(0, lo=0, hi=MAX_WINDOW_BYTES, doc="iperf -w: socket buffer; 0 = kernel default")
    streams: int = _f(1, lo=1, hi=128, doc="iperf -P: connections of one process (threads)")
    instances: int = _f(1, lo=1, hi=MAX_INSTANCES,
                        doc="iperf/iperf3: separate processes per client and NIC, each with "
                            "its own server process and port")
    direction: str = _f("send", choices=DIRECTIONS,
                        doc="iperf/iperf3, seen from the client: send (client -> server), "
                            "receive (server -> client), both (one instance each way at once)")
    udp_mbps: float = _f(1000.0, lo=0.001, doc="iperf -b for UDP")
    client_cpus: list = _f([], doc="taskset for the client processes: one CPU list for all, or "
                                   "a list of lists, one per instance of the host (NIC-major)")
    server_cpus: list = _f([], doc="taskset for the server processes: one CPU list for all, or "
                                   "a list of lists, one per instance of the host (NIC-major)")
    pin_each: bool = _f(False, doc="pin a host's k-th process of this workload to CPU k (modulo its "
                                   "CPUs), as SARA pinned one iperf per NIC; instead of *_cpus")
    min_bytes: int = _f(1, lo=1, doc="netpipe/mpi: smallest message")
    max_bytes: int = _f(65536, lo=1, doc="netpipe/mpi: largest message")
    repeats: int = _f(0, lo=0, doc="netpipe/mpi: fixed repeats per message size; 0 = g5net's 50")
    file_bytes: list = _f([16384], doc="web: the sizes of the files the server holds, most "
                                       "requested first; one size is a single-file test")
    zipf_exponent: float = _f(1.0, lo=0.0, hi=10.0,
                              doc="web: file k (1-based, in file_bytes order) is requested with "
                                  "probability proportional to 1/k^zipf_exponent; 0 = uniform")
    connections: int = _f(8, lo=1, hi=1024, doc="web: connections wrk keeps open (wrk -c)")
    profile: bool = _f(False, doc="sample kernel symbols during this workload")


@dataclass(frozen=True)
class Spec:
    experiment: Experiment
    hosts: tuple[Host, ...]
    link: Link
    workloads: tuple[Workload, ...]

    def host(self, name: str) -> Host:
        for h in self.hosts:
            if h.name == name:
                return h
        raise SpecError(f"hosts.{name}: no such host (have {', '.join(h.name for h in self.hosts)})")

    @property
    def servers(self) -> tuple[Host, ...]:
        return tuple(h for h in self.hosts if h.role == "server")

    def clients_of(self, server: Host) -> tuple[Host, ...]:
        return tuple(h for h in self.hosts if h.role == "client" and h.peer == server.name)

    def link_of(self, host: Host) -> Link:
        """`host`'s link to the switch (or its peer): [link] with the host's own keys."""
        return dataclasses.replace(self.link, **host.link)

    @property
    def switched(self) -> bool:
        """Whether the hosts meet in a switch (two hosts are otherwise back to back)."""
        return self.link.switch or len(self.hosts) > 2

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["schema"] = SCHEMA_VERSION
        d["hosts"] = {h.pop("name"): h for h in d["hosts"]}
        d["workloads"] = {w.pop("name"): w for w in d["workloads"]}
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=False)

    def hop_delays_us(self) -> dict[str, float]:
        """Per-host processes: host -> one-way delay of its link to dist-gem5's
        switch process. Two hosts back to back share one link, split in halves
        at a switch that forwards at once, so that host to host stays
        link.delay_us plus one frame time (the switch receives a frame whole);
        behind a switch each host has its own link."""
        if self.switched:
            return {h.name: self.link_of(h).delay_us for h in self.hosts}
        return {h.name: self.link.delay_us / 2 for h in self.hosts}

    @property
    def sync_quantum_us(self) -> float:
        """The per-host processes' barrier interval: the spec's, or the
        longest allowed, the shortest hop's delay (a packet must never be due
        inside the quantum in which it was sent)."""
        return self.experiment.sync_quantum_us or min(self.hop_delays_us().values())

    def repeated(self, k: int) -> "Spec":
        """Repeat `k` of experiment.repeats: one run, perturbed as repeat k."""
        return dataclasses.replace(self, experiment=dataclasses.replace(self.experiment, repeats=1,
                                                                        repeat=k))

    def with_engine(self, engine: str) -> "Spec":
        return from_dict(_replace_key(self.to_dict(), ("experiment", "engine"), engine))


def _replace_key(d: dict, path: tuple[str, ...], value: Any) -> dict:
    out = json.loads(json.dumps(d))
    node = out
    for k in path[:-1]:
        node = node.setdefault(k, {})
    node[path[-1]] = value
    return out


# ---------------------------------------------------------------- validation

def _type_name(t: Any) -> str:
    return {int: "an integer", float: "a number", bool: "true or false", str: "a string",
            list: "a list", dict: "a table"}.get(t, str(t))


def _check_value(key: str, value: Any, ftype: Any, meta: Mapping) -> Any:
    if ftype is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if ftype in (int, float) and isinstance(value, bool) or not isinstance(value, ftype):
        raise SpecError(f"{key}: expected {_type_name(ftype)}, got {quoted(value)}")
    choices = meta.get("choices")
    if choices and value not in choices:
        raise SpecError(f"{key}: {quoted(value)} is not one of {', '.join(map(repr, choices))}")
    if ftype is float and not math.isfinite(value):
        # NaN passes every comparison below, and infinity has no meaning here.
        raise SpecError(f"{key}: {quoted(value)} is not a finite number")
    lo, hi = meta.get("lo"), meta.get("hi")
    if ftype is int and hi is None:
        hi = MAX_INT
    if lo is not None and value < lo or hi is not None and value > hi:
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise SpecError(f"{key}: {quoted(value)} is out of range ({rng})")
    return value


_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "dict": dict, "list": list}


def _build(cls: type, data: Mapping, prefix: str, **fixed: Any):
    if not isinstance(data, Mapping):
        raise SpecError(f"{prefix}: expected a table, got {quoted(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name not in fixed}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise SpecError(f"{prefix}.{key_text(unknown[0])}: unknown key (allowed: {', '.join(sorted(fields))})")
    kwargs = dict(fixed)
    for name, f in fields.items():
        if name not in data:
            continue
        key = f"{prefix}.{name}"
        # Annotations are strings (from __future__ import annotations).
        nested = _NESTED.get(str(f.type))
        if nested:
            kwargs[name] = _build(nested, data[name], key)
        else:
            kwargs[name] = _check_value(key, data[name], _TYPES[str(f.type)], f.metadata)
    return cls(**kwargs)


_NESTED = {"Cpu": Cpu, "Caches": Caches, "Nic": Nic}

def _with_preset(table: dict) -> dict:
    """A host's table over its CPU preset's keys."""
    cpu = table.get("cpu")
    preset = cpu.get("preset") if isinstance(cpu, Mapping) else None
    # Not a str: no preset here, and _build names the key's bad value.
    known = isinstance(preset, str) and preset in catalogue.CPU_PRESETS
    return _merge(catalogue.CPU_PRESETS[preset].defaults, table) if known else table


def _merge(base: Mapping, over: Mapping) -> dict:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


# [host] keys that name one host, so are not defaults for every host.
NOT_DEFAULTS = ("name", "role", "ip", "peer", "replicas")
_TOP = ("schema", "experiment", "host", "hosts", "link", "workloads", "sweep")


def from_dict(data: Mapping, *, source: str = "spec") -> Spec:
    """Validate a spec given as nested dicts (parsed TOML or a resolved JSON
    spec) against the schema: every key, value and combination this module
    knows. The workload kinds' own checks come on top of it on the host side
    (g5net.model.specs, which the host reads every spec through); gem5's side
    reads a spec the host has checked so.

    A `[sweep]` table is accepted and ignored here: `g5net.model.sweep` expands it.
    """
    unknown = sorted(set(data) - set(_TOP))
    if unknown:
        raise SpecError(f"{source}: {key_text(unknown[0])}: unknown top-level key "
                        f"(allowed: {', '.join(k for k in _TOP if k != 'schema')})")
    schema = data.get("schema", SCHEMA_VERSION)
    if schema != SCHEMA_VERSION:
        raise SpecError(f"schema: version {quoted(schema)} is not supported (this g5net reads {SCHEMA_VERSION})")
    experiment = _build(Experiment, data.get("experiment", {}), "experiment")
    _check_name("experiment.name", experiment.name)
    link = _build(Link, data.get("link", {}), "link")

    defaults = data.get("host", {})
    if not isinstance(defaults, Mapping):
        raise SpecError(f"host: expected a table, got {quoted(defaults)}")
    one_host = [k for k in NOT_DEFAULTS if k in defaults]
    if one_host:
        raise SpecError(f"host.{one_host[0]}: names one host, so it is no default for every host; "
                        f"set it in a [hosts.<name>] table")
    host_tables = data.get("hosts")
    if not isinstance(host_tables, Mapping) or not host_tables:
        raise SpecError("hosts: at least one [hosts.<name>] table is required, "
                        "e.g. [hosts.server] role = \"server\"")
    hosts = []
    for name, table in host_tables.items():
        _check_name("hosts", name)
        if not isinstance(table, Mapping):
            raise SpecError(f"hosts.{name}: expected a table, got {quoted(table)}")
        merged = _with_preset(_merge(defaults, table))
        hosts += _replicate(_build(Host, merged, f"hosts.{name}", name=name))

    wl_tables = data.get("workloads")
    if not isinstance(wl_tables, Mapping) or not wl_tables:
        raise SpecError("workloads: at least one [workloads.<name>] table is required, "
                        "e.g. [workloads.stream] kind = \"iperf\"")
    workloads = []
    for name, table in wl_tables.items():
        _check_name("workloads", name)
        workloads.append(_build(Workload, table, f"workloads.{name}", name=name))
    workloads = _selected(experiment.workloads, workloads)

    spec = Spec(experiment, tuple(_resolve_hosts(hosts)), link, tuple(workloads))
    _check_combinations(spec)
    return spec


def _selected(names: list, workloads: list[Workload]) -> list[Workload]:
    """The workloads experiment.workloads names (every one where it names none)."""
    if not names:
        return workloads
    known = [w.name for w in workloads]
    for n in names:
        if n not in known:
            raise SpecError(f"experiment.workloads: {quoted(n)} names no [workloads.*] table "
                            f"(there are: {', '.join(known)})")
    if len(set(names)) < len(names):
        raise SpecError(f"experiment.workloads: {quoted(names)} names a workload twice")
    return [w for w in workloads if w.name in names]


_OWN_LINK_KEYS = ("speed_gbps", "delay_us")


def _own_link(h: Host) -> dict:
    """A host's link keys, checked as [link]'s own are."""
    fields = {f.name: f for f in dataclasses.fields(Link)}
    out = {}
    for k, v in h.link.items():
        if k not in _OWN_LINK_KEYS:
            raise SpecError(f"hosts.{h.name}.link.{key_text(k)}: unknown key (allowed: {', '.join(_OWN_LINK_KEYS)})")
        out[k] = _check_value(f"hosts.{h.name}.link.{k}", v, float, fields[k].metadata)
    return out


def replica_name(table: str, i: int) -> str:
    """The name of replica i (0..N-1) of the host table `table`."""
    return f"{table}-{i + 1}"


def replica_tables(names: Sequence[str]) -> dict[str, int]:
    """A resolved spec's host names as the tables they came from, each with its
    replicas: `a-1`..`a-N` (N > 1) with no host `a` are N replicas of `a`;
    every other name is a table of its own."""
    groups: dict[str, list[str]] = {}
    for name in names:
        table, _, i = name.rpartition("-")
        groups.setdefault(table if table and i.isdigit() and table not in names else name, []).append(name)
    out: dict[str, int] = {}
    for table, members in groups.items():
        if len(members) > 1 and sorted(members) == sorted(replica_name(table, i) for i in range(len(members))):
            out[table] = len(members)
        else:
            out.update(dict.fromkeys(members, 1))
    return out


def _replicate(h: Host) -> list[Host]:
    """The hosts one table stands for: itself, or <name>-1..<name>-N."""
    if h.replicas == 1:
        return [h]
    if h.ip:
        _check_nic_ips(h)
    return [dataclasses.replace(h, name=replica_name(h.name, i), replicas=1,
                                ip=str(ipaddress.IPv4Address(h.ip) + i) if h.ip else "")
            for i in range(h.replicas)]


def _resolve_hosts(hosts: list[Host]) -> list[Host]:
    servers = [h.name for h in hosts if h.role == "server"]
    out = []
    for i, h in enumerate(hosts):
        changes: dict[str, Any] = {}
        if not h.ip:
            changes["ip"] = f"10.0.0.{i + 1}"
        if h.role == "client" and not h.peer and len(servers) == 1:
            changes["peer"] = servers[0]
        if h.link:
            changes["link"] = _own_link(h)
        out.append(dataclasses.replace(h, **changes) if changes else h)
    return out


def _check_combinations(spec: Spec) -> None:
    names = [h.name for h in spec.hosts]
    if AGGREGATE in names:
        raise SpecError(f"hosts.{AGGREGATE}: the name is taken by every client together "
                        f"(metrics.json's aggregate); choose another")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SpecError(f"hosts.{twice[0]}: two hosts have this name (a table with replicas = N "
                        f"names its hosts <name>-1..<name>-N)")
    if not spec.servers:
        raise SpecError("hosts: no host has role = \"server\"")
    if spec.experiment.boot_timeout_s > spec.experiment.timeout_s:
        raise SpecError(f"experiment.boot_timeout_s: {spec.experiment.boot_timeout_s} is longer "
                        f"than experiment.timeout_s {spec.experiment.timeout_s}, which ends the run")
    if len(names) < 2:
        raise SpecError("hosts: need at least two hosts (a server and a client)")
    if all(h.role == "server" for h in spec.hosts):
        raise SpecError("hosts: no host has role = \"client\" (a server only answers clients)")
    seen_ips: dict[str, tuple[str, int]] = {}
    for h in spec.hosts:
        key = f"hosts.{h.name}"
        _check_nic_ips(h)
        for nic in range(h.nic.count):
            ip = h.nic_ip(nic)
            if ip in seen_ips:
                other, other_nic = seen_ips[ip]
                raise SpecError(f"{key}.ip: {ip}{_nic_label(nic)} is already used by "
                                f"hosts.{other}{_nic_label(other_nic)}")
            seen_ips[ip] = (h.name, nic)
        if h.role == "client":
            if not h.peer:
                raise SpecError(f"{key}.peer: required when there is more than one server "
                                f"(one of {', '.join(s.name for s in spec.servers)})")
            if h.peer not in names or spec.host(h.peer).role != "server":
                raise SpecError(f"{key}.peer: {quoted(h.peer)} is not a server "
                                f"(servers: {', '.join(s.name for s in spec.servers)})")
        if h.cpu.count > MAX_CPUS:
            raise SpecError(f"{key}.cpu: cores x threads_per_core = {h.cpu.count} exceeds {MAX_CPUS}")
        if 0 < h.nic.intr_delay_ns < E1000_DELAY_NS[0]:
            raise SpecError(f"{key}.nic.intr_delay_ns: {h.nic.intr_delay_ns} is out of range (0 for "
                            f"no throttling, or {E1000_DELAY_NS[0]}..{E1000_DELAY_NS[1]}: the e1000 "
                            f"driver throttles to 100..100000 interrupts per second)")
        if h.online_cpus > h.cpu.count:
            raise SpecError(f"{key}.online_cpus: {h.online_cpus} is more than the host's "
                            f"{h.cpu.count} CPUs")
        if h.kernel == "up" and h.cpu.count > 1:
            raise SpecError(f"{key}.kernel: \"up\" boots one CPU but cpu has {h.cpu.count}; "
                            f"set cpu.cores = 1 and cpu.threads_per_core = 1")
        if h.nic.dca and h.nic.attach != "integrated":
            raise SpecError(f"{key}.nic.dca: needs nic.attach = \"integrated\" (got {quoted(h.nic.attach)})")
        if h.nic.dca and not h.caches.shared_last_level:
            raise SpecError(f"{key}.nic.dca: direct cache access needs a shared last-level cache "
                            f"(caches.l2_shared = true with l2_kib > 0, or caches.l3_kib > 0)")
        for cpu_key, cpus in (("nic.irq_cpus", h.nic.irq_cpus), ("nic.rps_cpus", h.nic.rps_cpus)):
            check_cpu_list(f"{key}.{cpu_key}", cpus, h.cpu.count)
        if h.nic.rps_cpus and h.kernel == "up":
            raise SpecError(f"{key}.nic.rps_cpus: receive packet steering needs an SMP kernel "
                            f"(kernel = \"up\" has none)")
        for feat, on in h.nic.offloads.items():
            if not re.fullmatch(OFFLOAD_PATTERN, feat):
                raise SpecError(f"{key}.nic.offloads: {quoted(feat)} is not an ethtool feature name "
                                f"(letters, digits, '_' and '-', as in tso or tx-checksumming)")
            if not isinstance(on, bool):
                raise SpecError(f"{key}.nic.offloads.{feat}: expected true or false, got {quoted(on)}")
        for name, value in h.sysctl.items():
            _check_sysctl(f"{key}.sysctl", name, value)
        for arg in h.kernel_args:
            if not isinstance(arg, str) or not _KERNEL_ARG.fullmatch(arg):
                raise SpecError(f"{key}.kernel_args: {quoted(arg)} is not one kernel argument (letters, "
                                f"digits and {_KERNEL_ARG_PUNCTUATION} only, no spaces)")
    _check_topology(spec)
    _check_processes(spec)
    _check_pc_sampling(spec.experiment)
    _check_gem5_times(spec)
    _check_windows(spec)
    if spec.experiment.icount and spec.experiment.engine == "qemu":
        for h in spec.hosts:
            if h.cpu.count != 1:
                raise SpecError(f"experiment.icount: QEMU's icount needs one CPU per host, "
                                f"but hosts.{h.name} has {h.cpu.count}")
    _check_workloads(spec)


def _check_workloads(spec: Spec) -> None:
    for w in spec.workloads:
        if w.pin_each and (w.client_cpus or w.server_cpus):
            raise SpecError(f"workloads.{w.name}.pin_each: pins every process itself; leave "
                            f"client_cpus and server_cpus empty")


def _check_topology(spec: Spec) -> None:
    if spec.switched:
        return
    for h in spec.hosts:
        if spec.link_of(h) != spec.link:
            raise SpecError(f"hosts.{h.name}.link: two hosts back to back share one link "
                            f"([link]); a host's own link speed or delay needs link.switch = true")
    if spec.link.switch_delay_us:
        raise SpecError("link.switch_delay_us: two hosts back to back have no switch; "
                        "set link.switch = true")


def _check_pc_sampling(e: Experiment) -> None:
    shortest = PC_SAMPLE_MIN_WINDOWS * PC_SAMPLE_WINDOW_US
    if e.pc_sample_us and e.pc_sample_us < shortest:
        raise SpecError(f"experiment.pc_sample_us: {e.pc_sample_us:g} us leaves no room between "
                        f"samples, each of which traces {PC_SAMPLE_WINDOW_US:g} us; use at least "
                        f"{shortest:g}")


def sampled(e: Experiment) -> bool:
    """Whether the windows are sampled from warm checkpoints (window_method)."""
    return bool(e.windows) and e.window_method == "sampled"


def sample_offsets_ms(e: Experiment) -> list[float]:
    """Sampled windows: when each warm checkpoint is taken, in simulated ms
    after the flows connected."""
    return [e.warmup_ms + k * e.sample_every_ms for k in range(e.windows)]


def window_span_ms(e: Experiment) -> float:
    """How long a windowed workload must stream: its warm-up, its windows and
    one window more, so that the stream's end never falls in a window (sampled:
    the last checkpoint, its warming and its window, and one window more)."""
    if sampled(e):
        return (sample_offsets_ms(e)[-1] + e.functional_warming_ms + e.detailed_warming_ms
                + 2 * e.window_ms)
    return e.warmup_ms + (e.windows + 1) * e.window_ms


def _check_windows(spec: Spec) -> None:
    """What windows need of the experiment; each stream kind checks its
    workload against window_span_ms (workloads/stream.py), and the kinds'
    checks which workloads a windowed spec may hold (workloads/checks.py)."""
    e = spec.experiment
    if not e.windows:
        return
    if e.windows == 1:
        raise SpecError("experiment.windows: 1 window has no spread to report; ask for at least 2 "
                        "(8 or more for a useful confidence interval), or 0 for the workload's "
                        "whole life as one region")
    if not e.window_ms:
        raise SpecError(f"experiment.window_ms: 0 ms windows measure nothing; give each of the "
                        f"{e.windows} windows a length")
    if e.warmup_ms < e.window_ms:
        raise SpecError(f"experiment.warmup_ms: {e.warmup_ms:g} ms is shorter than a window "
                        f"({e.window_ms:g} ms): the warm-up holds the guest's own snapshot, "
                        f"which must end before the first window opens; use at least "
                        f"{e.window_ms:g}")
    if e.processes == "per-host":
        raise SpecError("experiment.windows: per-host processes keep a set of statistics each, "
                        "and each host would open its windows at its own time; measure windows "
                        "with experiment.processes = \"one\"")
    if e.window_method == "sampled":
        _check_sampled(e)


def _check_sampled(e: Experiment) -> None:
    """What sampled windows need: gem5's checkpoints, one process, and
    checkpoints far enough apart that no two windows overlap."""
    if e.engine != "gem5":
        raise SpecError(f"experiment.window_method: sampled windows restore gem5 checkpoints; "
                        f"engine {e.engine!r} keeps none (use \"consecutive\")")
    if e.pc_sample_us:
        raise SpecError("experiment.pc_sample_us: program counters are sampled in consecutive "
                        "windows only; leave it out, or set experiment.window_method = "
                        "\"consecutive\"")
    if e.sample_every_ms < e.window_ms:
        raise SpecError(f"experiment.sample_every_ms: {e.sample_every_ms:g} ms is shorter than a "
                        f"window ({e.window_ms:g} ms): windows would measure the same stretch of "
                        f"the stream twice; use at least {e.window_ms:g}")


def _gem5_times_us(spec: Spec) -> list[tuple[str, float]]:
    """(key, microseconds) of every time gem5 is given, in the spec's order."""
    e = spec.experiment
    times = [("experiment.sync_quantum_us", e.sync_quantum_us), ("experiment.pc_sample_us", e.pc_sample_us),
             ("experiment.window_ms", e.window_ms * 1000 * (e.windows > 0)),
             ("link.delay_us", spec.link.delay_us), ("link.switch_delay_us", spec.link.switch_delay_us)]
    for h in spec.hosts:
        times += [(f"hosts.{h.name}.link.delay_us", h.link.get("delay_us", 0.0)),
                  (f"hosts.{h.name}.nic.pcie_latency_ns", h.nic.pcie_latency_ns / 1000)]
    if e.processes == "per-host":
        # 0 stands for the shortest hop's delay, which may be half of link.delay_us.
        times.append(("experiment.sync_quantum_us (the shortest hop's delay)", spec.sync_quantum_us))
    return times




def _check_gem5_times(spec: Spec) -> None:
    """Times that validate but that gem5 cannot represent: under one tick gem5
    rounds to 0 (a quantum of 0 never advances), and a period past its 64-bit
    tick counter wraps once added to the time the boot took."""
    for key, us in _gem5_times_us(spec):
        if 0 < us < GEM5_TICK_US:
            raise SpecError(f"{key}: {us * 1e6:g} ps is under one of gem5's ticks (1 ps), which "
                            f"gem5 would round to 0; use 0 or at least {GEM5_TICK_US:g} us")
        if us > MAX_SIMULATED_US:
            raise SpecError(f"{key}: {us:g} us is more simulated time than a run may ask of gem5 "
                            f"(at most {MAX_SIMULATED_US:g} us, a week, so that its 64-bit tick "
                            f"counter holds it after any boot)")


def _check_processes(spec: Spec) -> None:
    e = spec.experiment
    if e.processes == "one":
        if e.sync_quantum_us:
            raise SpecError("experiment.sync_quantum_us: only per-host processes synchronise; "
                            "set experiment.processes = \"per-host\" or leave it out")
        return
    hops = spec.hop_delays_us()
    key = "link.delay_us" if not spec.switched else "the hosts' link.delay_us"
    if min(hops.values()) <= 0:
        raise SpecError(f"experiment.processes: per-host processes need every link delay above 0 "
                        f"({key}: " + ", ".join(f"{h} {d:g} us" for h, d in hops.items())
                        + "): dist-gem5's processes meet every quantum, and a packet may not "
                          "arrive inside the quantum it was sent in")
    shortest = min(hops, key=hops.__getitem__)
    if e.sync_quantum_us > hops[shortest]:
        how = ("half of link.delay_us: two hosts back to back meet at dist-gem5's switch"
               if not spec.switched else f"hosts.{shortest}'s link.delay_us")
        raise SpecError(f"experiment.sync_quantum_us: {e.sync_quantum_us:g} us exceeds the shortest "
                        f"hop, {hops[shortest]:g} us ({how}); a packet would arrive inside the "
                        f"quantum it was sent in. Lower it, or leave it out for that hop's delay")


# What one word of a kernel command line may hold here: nothing that ends the
# word (white space), quotes or reaches a shell.
_KERNEL_ARG_PUNCTUATION = "_.,:=/+-"
_KERNEL_ARG = re.compile(r"[A-Za-z0-9" + re.escape(_KERNEL_ARG_PUNCTUATION) + r"]+")


def _check_nic_ips(h: Host) -> None:
    key = f"hosts.{h.name}"
    try:
        third = ipaddress.IPv4Address(h.ip).packed[2]
    except ValueError:
        raise SpecError(f"{key}.ip: {quoted(h.ip)} is not an IPv4 address") from None
    if third + h.nic.count - 1 > 255:
        raise SpecError(f"{key}.nic.count: {h.nic.count} NICs do not fit ip {h.ip}: NIC i gets "
                        f"A.B.(C+i).D, and C + {h.nic.count - 1} exceeds 255 "
                        f"(lower the ip's third number to at most {256 - h.nic.count})")


NAME_RULE = "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit, no '..'"


def plain_name(name: Any) -> TypeGuard[str]:
    """Whether `name` keeps NAME_PATTERN's promise: one plain file name, shell
    word and option value."""
    return isinstance(name, str) and re.fullmatch(NAME_PATTERN, name) is not None and ".." not in name


def _check_name(where: str, name: Any) -> None:
    if not plain_name(name):
        raise SpecError(f"{where}: name {quoted(name)} is not allowed ({NAME_RULE})")


def _check_sysctl(where: str, name: str, value: Any) -> None:
    if not re.fullmatch(SYSCTL_KEY_PATTERN, name):
        raise SpecError(f"{where}: {quoted(name)} is not a sysctl name (dotted words of letters, "
                        f"digits, '_' and '-', as in net.core.rmem_max)")
    if isinstance(value, int) and not isinstance(value, bool):
        return
    if not isinstance(value, str) or not re.fullmatch(SYSCTL_VALUE_PATTERN, value):
        raise SpecError(f"{where}.{name}: expected an integer or one word of letters, digits "
                        f"and _.:+/- (':' stands for a space), got {quoted(value)}")


def _nic_label(nic: int) -> str:
    return f" (NIC {nic})" if nic else ""


def check_cpu_list(key: str, cpus: list, count: int, host: str = "") -> None:
    """SpecError naming `key` for a CPU of `cpus` that a host of `count` CPUs lacks."""
    for c in cpus:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < count:
            where = f" on hosts.{host}" if host else ""
            raise SpecError(f"{key}: CPU {quoted(c)} does not exist{where} (0..{count - 1})")
