"""Where the CPU time of a workload goes: ftrace's function profile, by category.

Input is what the job's `g5_profile_snap` leaves around a region: each CPU's
`trace_stat/function<cpu>` table before it and after it (workloads/profile.sh), as printed by the kernel's `function_stat_show` (kernel/trace/ftrace.c)::

      Function                               Hit    Time            Avg             s^2
      --------                               ---    ----            ---             ---
      e1000_clean                           1234    5678.901 us     4.602 us        1.234 us
      schedule                                12    123456789 us    10288065 us     0.000 us

Names are cut to 30 characters; the Time columns exist only in kernels with the
function graph tracer (otherwise the table has Hit alone). The kernel prints
times in microseconds, whole numbers once they reach seven digits; other units
are accepted so that tables from other tools or kernels parse too. The
profiler counts from when it was switched on, so a region's rows are the
differences between the two tables.

Each function is given a category by `RULES`, an ordered table of
(glob, category): the first glob that matches the name wins, and `*` at the end
sends the rest of the kernel to "kernel". ftrace sees only the kernel, so
"application" is the user time of the region of interest, from /proc/stat.

The profiler's own cost (a hook on every traced call) inflates the kernel's
absolute times, so only ftrace's *proportions* are used: the kernel time
measured by /proc/stat over the same region (system + irq + softirq ticks) is
split between kernel categories in proportion to their profiled time. The
guest must profile self time (`options/graph-time` = 0, `options/sleep-time`
= 0), or a caller's time would include its callees' and be counted twice.

A profiled workload with an unprofiled twin in the spec also says what the
profiler cost (`perturbation`). The metrics of this family are defined at the
end (`METRICS`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from ..errors import GuestError
from ..guest.protocol import USER_HZ
from ..spec import Spec
from ..stats.pc_samples import USER_MODE
from ..workloads.profiler import PROFILE_START
from .metric import RunMetric

DRIVER, STACK, SOCKET, BUFFER, COPY, KERNEL, APPLICATION = (
    "driver", "stack", "socket", "buffer", "copy", "kernel", "application")
# Report order: from the wire up to the application.
CATEGORIES = (DRIVER, STACK, SOCKET, BUFFER, COPY, KERNEL, APPLICATION)
# Time the CPU had nothing to do: excluded from the shares, like idle ticks.
IDLE = "idle"

# (glob, category), first match wins. Specific families come before the broad
# prefixes that would otherwise swallow them: `skb_copy_datagram_iter` is a
# copy before it is an skb function, `napi_alloc_skb` a buffer before a NAPI
# function, and `copy_process` (fork) is not a data copy at all, hence no
# bare `copy_*`.
RULES: tuple[tuple[str, str], ...] = (
    # gem5's samples of user mode, whatever the program (stats/pc_samples.py).
    (USER_MODE, APPLICATION),
    # Idle loops: the time they report is time nothing else wanted the CPU.
    ("do_idle", IDLE), ("cpu_startup_entry", IDLE), ("default_idle*", IDLE),
    ("arch_cpu_idle*", IDLE), ("cpuidle_*", IDLE), ("acpi_idle_*", IDLE),
    ("intel_idle*", IDLE), ("mwait_idle*", IDLE), ("poll_idle", IDLE),
    ("native_safe_halt", IDLE), ("cpu_idle_*", IDLE), ("amd_e400_idle", IDLE),
    # Data copies between user and kernel, and within the kernel.
    ("*copy_to_*", COPY), ("*copy_from_*", COPY), ("*copy_user*", COPY),
    ("*copy_datagram*", COPY), ("skb_copy_bits", COPY), ("*memcpy*", COPY),
    ("*memmove*", COPY), ("csum_*copy*", COPY), ("*csum_and_copy*", COPY),
    ("rep_movs_alternative", COPY), ("copyin", COPY), ("copyout", COPY),
    # The NIC driver, and the DMA mapping it does for every packet.
    ("*e1000*", DRIVER), ("dma_map_*", DRIVER), ("dma_unmap_*", DRIVER),
    ("dma_sync_*", DRIVER), ("dma_direct_*", DRIVER),
    # Buffer management: socket buffers, slab and page allocation.
    ("skb_*", BUFFER), ("__skb_*", BUFFER), ("*alloc_skb*", BUFFER),
    ("*free_skb*", BUFFER), ("*kfree_skb*", BUFFER), ("*consume_skb*", BUFFER),
    ("*build_skb*", BUFFER), ("kfree_skbmem", BUFFER), ("*page_frag*", BUFFER),
    ("kmem_cache_*", BUFFER), ("*kmalloc*", BUFFER), ("kfree", BUFFER),
    ("*slab*", BUFFER), ("*alloc_pages*", BUFFER), ("*free_pages*", BUFFER),
    ("free_unref_page*", BUFFER), ("get_page_from_freelist", BUFFER),
    ("rmqueue*", BUFFER), ("sk_page_frag_refill", BUFFER),
    # The socket layer: system calls on sockets, the socket's lock and wait
    # queue, and the dispatch into the protocol (the Niagara 2 study's "socket").
    ("sock_*", SOCKET), ("__sock_*", SOCKET), ("sockfd_lookup*", SOCKET),
    ("__sys_send*", SOCKET), ("__sys_recv*", SOCKET), ("__x64_sys_send*", SOCKET),
    ("__x64_sys_recv*", SOCKET), ("inet_sendmsg", SOCKET), ("inet_recvmsg", SOCKET),
    ("lock_sock*", SOCKET), ("release_sock", SOCKET), ("__release_sock", SOCKET),
    ("sk_wait_data", SOCKET), ("sk_stream_wait_*", SOCKET),
    # Protocol stack: TCP/UDP/IP, the device layer, NAPI, netfilter.
    ("tcp*", STACK), ("__tcp*", STACK), ("udp*", STACK), ("__udp*", STACK),
    ("ip_*", STACK), ("__ip_*", STACK), ("ipv4_*", STACK), ("ip6*", STACK),
    ("inet*", STACK), ("__inet*", STACK), ("icmp*", STACK), ("raw_*", STACK),
    ("sk_*", STACK), ("__sk_*", STACK),
    ("net_rx_action", STACK), ("net_tx_action", STACK), ("netif_*", STACK),
    ("__netif_*", STACK), ("netdev_*", STACK), ("__netdev_*", STACK),
    ("napi_*", STACK), ("__napi_*", STACK), ("dev_*", STACK), ("__dev_*", STACK),
    ("eth_*", STACK), ("*gro_*", STACK), ("neigh_*", STACK), ("__neigh_*", STACK),
    ("dst_*", STACK), ("fib_*", STACK), ("nf_*", STACK), ("qdisc_*", STACK),
    ("__qdisc_*", STACK), ("sch_*", STACK), ("pfifo_*", STACK),
    ("validate_xmit_*", STACK), ("*csum*", STACK), ("rps_*", STACK),
    # Everything else: scheduler, interrupts, syscalls, locks, timers, memory.
    ("*", KERNEL),
)


@dataclass(frozen=True)
class FunctionStat:
    name: str
    hits: int
    # Summed over the region; None when the kernel printed Hit only.
    time_us: float | None


_UNIT_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
_ROW = re.compile(r"^\s*(?P<name>\S.*?)\s+(?P<hits>\d+)"
                  r"(?:\s+(?P<time>[\d.]+)\s*(?P<unit>ns|us|ms|s)\b.*)?\s*$")


def parse_function_stat(text: str) -> list[FunctionStat]:
    """The rows of one `trace_stat/function<cpu>` table."""
    rows = []
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("Function", "--------")):
            continue
        m = _ROW.match(line)
        if not m:
            raise GuestError(f"function profile line {n}: not 'name hits [time unit ...]': {line!r}")
        time = m["time"]
        rows.append(FunctionStat(m["name"], int(m["hits"]),
                                 float(time) * _UNIT_US[m["unit"]] if time else None))
    return rows


def category(name: str) -> str:
    """The category of a kernel function: the first rule whose glob matches."""
    return next(cat for glob, cat in RULES if fnmatchcase(name, glob))


def _merge(tables: Iterable[list[FunctionStat]]) -> list[FunctionStat]:
    """One row per function over all CPUs, largest first."""
    merged: dict[str, FunctionStat] = {}
    for table in tables:
        for f in table:
            old = merged.get(f.name, FunctionStat(f.name, 0, 0.0))
            time = None if old.time_us is None or f.time_us is None else old.time_us + f.time_us
            merged[f.name] = FunctionStat(f.name, old.hits + f.hits, time)
    rows = list(merged.values())
    return sorted(rows, key=lambda f: (f.time_us or 0, f.hits), reverse=True)


def _region(profiles: Mapping[str, str]) -> list[FunctionStat]:
    """The region's rows: each function's tables after it less those before
    (the profiler counts from the moment it was switched on, which under gem5
    is at boot), largest first; functions the region never called are left out."""
    start = f".{PROFILE_START}"
    before = {f.name: f for f in _merge(parse_function_stat(t) for k, t in profiles.items()
                                        if start in k)}
    rows = []
    for f in _merge(parse_function_stat(t) for k, t in profiles.items() if start not in k):
        b = before.get(f.name)
        if b is not None:
            # Times of seven digits and more are printed in whole microseconds,
            # so a difference can come out a rounding step below zero.
            time = None if f.time_us is None or b.time_us is None else max(f.time_us - b.time_us, 0.0)
            f = FunctionStat(f.name, f.hits - b.hits, time)
        if f.hits > 0:
            rows.append(f)
    return sorted(rows, key=lambda f: (f.time_us or 0, f.hits), reverse=True)


@dataclass(frozen=True)
class Breakdown:
    # "time": shares of CPU time; "hits": shares of kernel function calls,
    # when the kernel has no graph tracer to time them (no application share).
    basis: str
    # Where the kernel's total time comes from: "proc-stat" or "ftrace".
    kernel_source: str
    # Category -> share of the whole, in percent; adds up to 100.
    share_pct: Mapping[str, float]
    # Category -> microseconds over the region (CPUs added); empty for "hits".
    time_us: Mapping[str, float]
    idle_us: float | None
    top: tuple[tuple[str, str, float], ...]  # (function, category, share of kernel %)
    # gem5's samples outside idle loops, for "gem5-pc-samples": the shares'
    # statistical weight (a share of n samples is uncertain by about sqrt(n)).
    samples: int | None = None
    # Share of the busy time (percent) in process life-cycle work (PROCESS):
    # where gem5 sampled every function, not only the heaviest.
    process_pct: float | None = None

    def per_packet_us(self, packets: int | None) -> dict[str, float]:
        return {c: t / packets for c, t in self.time_us.items()} if packets else {}


TOP_FUNCTIONS = 12


def breakdown(profiles: Mapping[str, str], cpu_ticks: Mapping[str, int] | None) -> Breakdown | None:
    """The breakdown of one workload on one host, or None if nothing was profiled.

    `profiles` are the raw tables (`NAME.prof<cpu>` -> text, and the tables
    before the region, `NAME.profstart<cpu>`, where the guest left them);
    `cpu_ticks` the region's /proc/stat tick deltas (results' `roi.cpu_ticks`)
    when known.
    """
    rows = _region(profiles)
    if not rows:
        return None
    timed = all(f.time_us is not None for f in rows)
    kernel_w, idle, top = _weigh(rows, (lambda f: f.time_us) if timed else (lambda f: f.hits))
    kernel_total = sum(kernel_w.values())
    if not kernel_total:
        return None
    if not timed:
        share = {c: 100 * kernel_w.get(c, 0.0) / kernel_total for c in CATEGORIES if c != APPLICATION}
        return Breakdown("hits", "ftrace", share, {}, None, top)

    source, kernel_us, app_us = _kernel_and_user_us(cpu_ticks, kernel_total)
    times = {c: kernel_us * kernel_w.get(c, 0.0) / kernel_total for c in CATEGORIES if c != APPLICATION}
    if app_us is not None:
        times[APPLICATION] = app_us
    total = sum(times.values())
    share = {c: 100 * t / total for c, t in times.items()}
    return Breakdown("time", source, share, times, idle, top)


def sampled(counts: Mapping[str, int], sample_us: float) -> Breakdown | None:
    """The breakdown of one host's program-counter samples over a region
    (stats/pc_samples.py: function -> samples, user mode as one function). Each
    sample stands for `sample_us` of one CPU's time; gem5 took them without the
    guest noticing, so the times are not inflated, and the application's share
    is measured like the kernel's. None without a sample outside idle loops."""
    rows = sorted((FunctionStat(name, n, n * sample_us) for name, n in counts.items()),
                  key=lambda f: f.hits, reverse=True)
    times, idle, top = _weigh(rows, lambda f: f.time_us)
    total = sum(times.values())
    if not total:
        return None
    share = {c: 100 * t / total for c, t in times.items()}
    process = sum(f.time_us or 0.0 for f in rows if category(f.name) != IDLE and _process(f.name))
    return Breakdown("time", "gem5-pc-samples", share, times, idle, top, round(total / sample_us),
                     100 * process / total)


# Process life-cycle work, across the categories (mostly "kernel"): starting
# programs (exec, fork, mmap), ending them (exit, unmapping) and faulting
# their pages in. A region that opens with a program's start and closes with
# its exit is mostly this (the Niagara 2 study's whole-life regions:
# unmap_page_range, filemap_map_pages); a steady stream has next to none.
PROCESS: tuple[str, ...] = (
    "*execve*", "*exec_binprm*", "load_elf_binary", "begin_new_exec", "bprm_*", "setup_arg_pages",
    "do_exit", "do_group_exit", "exit_mmap", "mmput", "unmap_page_range", "unmap_vmas",
    "zap_*", "free_pgtables", "tlb_finish_mmu", "copy_process", "kernel_clone", "dup_mm*",
    "copy_page_range", "*page_fault*", "*handle_mm_fault", "handle_pte_fault", "do_fault",
    "do_read_fault", "do_cow_fault", "do_anonymous_page", "do_wp_page", "wp_page_copy",
    "filemap_map_pages", "filemap_fault", "next_uptodate_page", "do_mmap", "mmap_region",
    "vm_mmap_pgoff", "do_vmi_munmap", "do_vmi_align_munmap", "__do_munmap", "do_munmap",
)


def _process(name: str) -> bool:
    return any(fnmatchcase(name, g) for g in PROCESS)


def _weigh(rows: list[FunctionStat], weight) -> tuple[dict[str, float], float, tuple]:
    """(category -> summed weight of `rows` outside idle loops, the idle loops'
    weight, the heaviest kernel functions with their share of the kernel's
    weight in percent); `rows` come largest first."""
    cats = {f.name: category(f.name) for f in rows}
    by_cat = {c: 0.0 for c in CATEGORIES}
    idle = 0.0
    for f in rows:
        if cats[f.name] == IDLE:
            idle += weight(f)
        else:
            by_cat[cats[f.name]] += weight(f)
    kernel_total = sum(w for c, w in by_cat.items() if c != APPLICATION)
    kernel_rows = [f for f in rows if cats[f.name] not in (IDLE, APPLICATION)] if kernel_total else []
    top = tuple((f.name, cats[f.name], 100 * weight(f) / kernel_total)
                for f in kernel_rows[:TOP_FUNCTIONS])
    return by_cat, idle, top


def _kernel_and_user_us(ticks: Mapping[str, int] | None,
                        ftrace_kernel_us: float) -> tuple[str, float, float | None]:
    """(source, kernel microseconds, user microseconds or None)."""
    if not ticks:
        return "ftrace", ftrace_kernel_us, None
    tick_us = 1e6 / USER_HZ
    kernel = sum(ticks.get(k, 0) for k in ("system", "irq", "softirq")) * tick_us
    user = sum(ticks.get(k, 0) for k in ("user", "nice")) * tick_us
    if not kernel:
        # Too short for the tick to see the kernel: ftrace's own times are all we have.
        return "ftrace", ftrace_kernel_us, user
    return "proc-stat", kernel, user


def metrics(b: Breakdown, packets: int | None, busy_s: float | None = None) -> dict[str, Any]:
    """The breakdown as `metrics.json` scalars: `time_<category>_pct` (adding up to
    100) and `time_<category>_us_per_pkt`, plus its provenance under `breakdown`.

    With `busy_s`, the CPUs' busy time by gem5's own counters, each category's
    time per packet is its share of that: the guest's 10 ms ticks cannot time a
    region of a few simulated milliseconds, and the profiler's hooks inflate
    its own absolute times."""
    out: dict[str, Any] = {f"time_{c}_pct": v for c, v in b.share_pct.items()}
    if b.process_pct is not None:
        out["process_time_pct"] = b.process_pct
    if busy_s is not None and packets and b.basis == "time":
        per_pkt = {c: busy_s * 1e6 * v / 100 / packets for c, v in b.share_pct.items()}
    else:
        per_pkt = b.per_packet_us(packets)
    out.update({f"time_{c}_us_per_pkt": v for c, v in per_pkt.items()})
    out["breakdown"] = {
        "basis": b.basis,
        "kernel_source": b.kernel_source,
        "time_source": "gem5" if busy_s is not None and packets and b.basis == "time" else "guest",
        "idle_us": b.idle_us,
        "top": [{"function": n, "category": c, "kernel_pct": p} for n, c, p in b.top],
    }
    if b.samples is not None:
        out["breakdown"]["samples"] = b.samples
        if busy_s:
            # Below 100: CPUs that waited on memory through a whole sampling
            # window went unsampled (configs/g5net_sampled.py).
            out["breakdown"]["sampled_busy_pct"] = 100 * sum(b.time_us.values()) / (busy_s * 1e6)
    return out


def profiled_twins(spec: Spec) -> list[tuple[str, str]]:
    """(profiled workload, the same workload unprofiled) pairs of the spec: the
    profiler's cost is measured by running the point both ways."""
    out = []
    for w in spec.workloads:
        if w.profile:
            twin = next((v for v in spec.workloads
                         if not v.profile and dataclasses.replace(v, name=w.name, profile=True) == w), None)
            if twin:
                out.append((w.name, twin.name))
    return out


def perturbation(profiled: Mapping[str, Any], plain: Mapping[str, Any]) -> dict[str, Any]:
    """How much profiling changed what it measures, in percent of the unprofiled
    twin's figure: throughput (negative: profiling slowed the workload) and CPU
    time per packet (positive: the profiler's own cost)."""
    out: dict[str, Any] = {}
    for key, metric in (("profile_throughput_change_pct", "throughput_mbps"),
                        ("profile_cpu_us_per_pkt_change_pct", "cpu_us_per_pkt")):
        a, b = profiled.get(metric), plain.get(metric)
        if a is not None and b:
            out[key] = 100 * (a / b - 1)
    return out


METRICS: tuple[RunMetric, ...] = tuple(
    m for c in CATEGORIES for m in (
        RunMetric(f"time_{c}_pct", "%", "profile", f"share of the CPU time spent in {c} "
                                                   f"(the categories add up to 100)"),
        RunMetric(f"time_{c}_us_per_pkt", "us/pkt", "profile", f"CPU time in {c} per packet "
                                                               f"(of gem5's busy time where gem5 ran)"),
    )) + (
    RunMetric("process_time_pct", "%", "profile",
              "share of the CPU time in process life-cycle work, across the categories: exec, "
              "fork, mmap, exit, unmapping and page faults (metrics/profile.py PROCESS); gem5's "
              "PC samples only"),
    RunMetric("profile_throughput_change_pct", "%", "profile",
              "throughput with the profiler against the same workload without it (the spec's "
              "unprofiled twin); negative: profiling slowed it"),
    RunMetric("profile_cpu_us_per_pkt_change_pct", "%", "profile",
              "CPU time per packet with the profiler against its unprofiled twin"),
)
