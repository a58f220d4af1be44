"""A PCIe link: one crossbar per direction, sized like the link."""

from m5.objects import IOXBar, SrcClockDomain, SubSystem, VoltageDomain

# The crossbars move `WIDTH_BYTES` per cycle; the clock is chosen to give the
# link's bandwidth, so a 4 GB/s link runs them at 250 MHz.
WIDTH_BYTES = 16


class PcieLink(SubSystem):
    """`downstream` carries requests from the root complex (the I/O bus) to
    the device and their responses back; `upstream` carries the device's DMA.

    PCIe is full duplex, so each direction gets its own crossbar with the
    per-direction bandwidth; a crossbar's latencies are whole cycles of its
    clock, so the one-way latency is rounded to that clock (4 ns at 4 GB/s).
    Crossbars rather than a gem5 `Bridge`: a Bridge forwards a fixed address
    list, and the NIC's BAR is placed by Linux at boot; it has no bandwidth
    either.
    """

    def __init__(self, gbytes_per_s: float, latency_ns: float) -> None:
        super().__init__()
        clock_mhz = gbytes_per_s * 1000 / WIDTH_BYTES
        cycles = max(1, round(latency_ns * clock_mhz / 1000))
        self.clk_domain = SrcClockDomain(clock=f"{clock_mhz:g}MHz",
                                         voltage_domain=VoltageDomain())
        self.downstream = self._direction(cycles)
        self.upstream = self._direction(cycles)

    def _direction(self, cycles: int) -> IOXBar:
        # One cycle to arbitrate; the rest of the latency on the way there and
        # the whole of it on the way back (a read's completion crosses the link).
        return IOXBar(clk_domain=self.clk_domain, width=WIDTH_BYTES, frontend_latency=1,
                      forward_latency=max(0, cycles - 1), response_latency=cycles,
                      header_latency=0)
