"""A gem5 guest's kernel command line: the guest protocol's, plus what gem5 needs."""

from __future__ import annotations

import re

from ...artifacts import Kernel
from ...guest.protocol import kernel_cmdline
from ...spec import Host

# Simulated busy-waiting is dear (an atomic CPU runs ~1.3 M instructions per
# host second, GEM5-NOTES.md) and a simulated TSC is exact (it counts CPU
# cycles), so the kernel is told the TSC rate instead of timing it against the
# PIT, trusts it without the clocksource watchdog and cross-CPU sync test, and
# skips the timer-interrupt test loop.
GEM5_KERNEL_ARGS = ("tsc=reliable", "no_timer_check")
# e1000 module parameter bounds (Documentation/networking/device_drivers/ethernet/intel/e1000.rst).
E1000_ITR_RANGE = (100, 100000)
# gem5's local APIC timer counts the CPU clock divided by this (X86LocalApic).
APIC_TIMER_DIVISOR = 16


def kernel_hz(kernel: Kernel) -> int | None:
    """The kernel's CONFIG_HZ, from the .config it was built from."""
    text = kernel.config.read_text(errors="replace") if kernel.config.exists() else ""
    m = re.search(r"^CONFIG_HZ=(\d+)$", text, re.M)
    return int(m.group(1)) if m else None


def gem5_cmdline(host: Host, hz: int | None = None) -> str:
    """The guest protocol's command line plus what gem5 needs.

    With the kernel's HZ known, `lapic_timer_period` (kernels/patches) spares
    the 100 ms busy-wait that calibrates the local APIC timer: the period is
    the APIC timer's ticks per jiffy.

    gem5's IGbE has no interrupt-delay parameter: the e1000 driver programs the
    NIC's interrupt throttle register, so `nic.intr_delay_ns` becomes the
    driver's InterruptThrottleRate (interrupts per second; 0 turns throttling off),
    given once per NIC: the driver reads one value per adapter, and adapters
    without one throttle dynamically.
    """
    args = [kernel_cmdline(host, "gem5"), *GEM5_KERNEL_ARGS,
            f"tsc_early_khz={round(host.cpu.clock_ghz * 1e6)}"]
    if hz:
        args.append(f"lapic_timer_period={round(host.cpu.clock_ghz * 1e9 / APIC_TIMER_DIVISOR / hz)}")
    delay = host.nic.intr_delay_ns
    lo, hi = E1000_ITR_RANGE
    rate = min(hi, max(lo, round(1e9 / delay))) if delay else 0
    args.append("e1000.InterruptThrottleRate=" + ",".join([str(rate)] * host.nic.count))
    return " ".join(args)
