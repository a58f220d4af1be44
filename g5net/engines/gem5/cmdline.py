"""A gem5 guest's kernel command line: the guest protocol's, plus what gem5 needs."""

from __future__ import annotations

import re

from ...artifacts import Kernel
from ...guest import kernel_cmdline
from ...spec import Host, Spec

# Kernel arguments for every gem5 guest, each for a measured reason:
# - idle=halt: Linux idles gem5's CPU (it advertises MONITOR/MWAIT) in MWAIT and
#   then wakes it by a store to its thread flags instead of an interrupt; gem5
#   misses those wake-ups, so a CPU sleeps until its next timer interrupt,
#   which on a tickless idle CPU may never come: hosts with several CPUs hung
#   in boot (seconds of silence, CPUs halted for good). With HLT, every
#   cross-CPU wake-up is an IPI, which gem5 delivers.
# - tsc=reliable, no_timer_check: simulated busy-waiting is dear (an atomic
#   CPU runs ~1.3 M instructions per host second, GEM5-NOTES.md) and a
#   simulated TSC is exact (it counts CPU cycles), so the kernel trusts the
#   TSC without the clocksource watchdog and cross-CPU sync test, and skips
#   the timer-interrupt test loop.
# - cpu_init_udelay=0: Linux waits 10 ms after each secondary CPU's INIT for
#   CPUs it takes for old (gem5 reports a Hygon family 0xf part); modern CPUs
#   get 0, and a simulated CPU needs none.
GEM5_KERNEL_ARGS = ("idle=halt", "tsc=reliable", "no_timer_check", "cpu_init_udelay=0")
# The e1000 driver's delay timers (module parameter, spec key, the driver's own
# default from e1000_param.c): given only where the spec differs, so a default
# spec's command line, and with it its boot checkpoint, stays as it was.
E1000_TIMERS = (("RxIntDelay", "rx_int_delay", 0), ("RxAbsIntDelay", "rx_abs_int_delay", 8),
                ("TxIntDelay", "tx_int_delay", 8), ("TxAbsIntDelay", "tx_abs_int_delay", 32))
# gem5's local APIC timer counts the CPU clock divided by this (X86LocalApic).
APIC_TIMER_DIVISOR = 16
# gem5's x86 Linux loader writes the command line, with its NUL, between
# 0x90000 and the real-mode data at 0x90200, and panics on a longer line
# (src/arch/x86/linux/fs_workload.cc).
MAX_CMDLINE_CHARS = 511
# Linux's smallest CONFIG_HZ: its calibrations' values (per jiffy) are then
# the longest, and so is the command line that carries them.
SMALLEST_HZ = 100


def kernel_hz(kernel: Kernel) -> int | None:
    """The kernel's CONFIG_HZ, from the .config it was built from."""
    text = kernel.config.read_text(errors="replace") if kernel.config.exists() else ""
    m = re.search(r"^CONFIG_HZ=(\d+)$", text, re.M)
    return int(m.group(1)) if m else None


def gem5_cmdline(host: Host, hz: int | None = None) -> str:
    """The guest protocol's command line plus what gem5 needs (gem5_kernel_args)."""
    return kernel_cmdline.build(host, "gem5", gem5_kernel_args(host, hz))


def check_cmdlines(spec: Spec) -> None:
    """SpecError where a host's kernel_args holds a protocol word, or its
    command line, at its longest, does not fit gem5's loader."""
    kernel_cmdline.check(spec, "gem5", lambda h: gem5_kernel_args(h, SMALLEST_HZ), MAX_CMDLINE_CHARS,
                         "gem5's x86 loader")


def gem5_kernel_args(host: Host, hz: int | None = None) -> list[str]:
    """What gem5 needs on the command line besides the protocol's words.

    The kernel is told the TSC rate (`tsc_early_khz`) instead of timing it.
    With the kernel's HZ known, two calibrations are given their result: the
    local APIC timer's (`lapic_timer_period`, kernels/patches; a 100 ms
    busy-wait), its timer ticks per jiffy; and the delay loop's on every
    secondary CPU (`lpj`; about 85 simulated ms of busy-waiting per CPU, as
    only the boot CPU takes the value from the TSC), which with a TSC delay
    loop is TSC cycles per jiffy, the value the boot CPU prints.

    gem5's IGbE models interrupt moderation (its ITR, RDTR, RADV, TIDV and TADV
    registers), but has no parameter for it: the e1000 driver programs them. So
    `nic.intr_delay_ns` becomes the driver's InterruptThrottleRate (interrupts
    per second, 1e9 / the delay rounded; 0 turns throttling off; the spec
    rejects what the driver would clamp), and the four delay timers its
    RxIntDelay, RxAbsIntDelay, TxIntDelay and TxAbsIntDelay, each given once
    per NIC: the driver reads one value per adapter, and adapters without one
    take its defaults.
    """
    args = [*GEM5_KERNEL_ARGS, f"tsc_early_khz={round(host.cpu.clock_ghz * 1e6)}"]
    if hz:
        args.append(f"lapic_timer_period={round(host.cpu.clock_ghz * 1e9 / APIC_TIMER_DIVISOR / hz)}")
        args.append(f"lpj={round(host.cpu.clock_ghz * 1e9 / hz)}")
    delay = host.nic.intr_delay_ns
    rate = round(1e9 / delay) if delay else 0
    args.append("e1000.InterruptThrottleRate=" + ",".join([str(rate)] * host.nic.count))
    for param, key, default in E1000_TIMERS:
        value = getattr(host.nic, key)
        if value != default:
            args.append(f"e1000.{param}=" + ",".join([str(value)] * host.nic.count))
    return args
