"""A PCIe link: one crossbar per direction, sized like the link, behind a
bound on the NIC's outstanding DMA."""

from m5.objects import Bridge, CommMonitor, IOXBar, SrcClockDomain, SubSystem, VoltageDomain

# The crossbars move `WIDTH_BYTES` per cycle.
WIDTH_BYTES = 16
# gem5's DMA engine cuts every transfer into cache lines (DmaPort's
# ChunkGenerator uses the system's line size), one packet each.
LINE_BYTES = 64
# A crossbar's layer stays busy one cycle beyond a packet's data
# (NoncoherentXBar::recvTimingReq: clockEdge(Cycles(1)) + payloadDelay), so a
# line takes LINE_BYTES / WIDTH_BYTES + 1 cycles. The clock runs that much
# faster than data rate / width, so that a line takes its data's time at the
# link's data rate, whose TLP overhead pcie_data_gbytes_per_s has paid:
# 3.37 GB/s (Gen2 x8, 128 B payloads) runs the crossbars at 263 MHz.
CYCLES_PER_LINE = LINE_BYTES // WIDTH_BYTES + 1
# ittReadRead's bins: 20 of 50 ns, so that back-to-back reads (a few ns
# apart) and reads waiting for a round trip (hundreds of ns) fall apart.
ITT_MAX_BIN = "1us"


class PcieLink(SubSystem):
    """`downstream` carries requests from the root complex (the I/O bus) to
    the device and their responses back; `upstream` carries the device's DMA.

    PCIe is full duplex, so each direction gets its own crossbar with the
    per-direction data bandwidth; a crossbar's latencies are whole cycles of
    its clock, so the one-way latency is rounded to that clock. Crossbars
    rather than a gem5 `Bridge` for the path itself: a Bridge has no bandwidth.

    `root_port`, a zero-delay Bridge, hands the DMA to the I/O bus: a
    crossbar passes a packet's `payloadDelay` (its data's time on this link)
    to the next crossbar, which stays busy that long (BaseXBar), so without
    it every link's DMA would hold the shared I/O bus at the link's pace,
    capping all links together at one link's rate; a Bridge accounts for the
    delay and clears it.

    Read requests: a device keeps at most `read_requests` requests of
    `max_read_request` bytes outstanding, so at most their product is in
    flight; a transfer larger than that waits a round trip per part (the
    10GbE study's burst-size effect). `dma_window`, a Bridge whose response
    queue holds that many lines, enforces it. gem5 answers every write too,
    so the bound also holds the NIC's writes, which PCIe posts and bounds by
    flow-control credits instead: a difference only where the bound is below
    a packet (1 request of 512 B against 1514 B frames, not 32 of them).
    The NIC's `dma` port connects to `dma_monitor` (a CommMonitor, which
    changes no timing): it records the NIC's DMA as it leaves the device,
    bytes read and written and the gaps between reads (`ittReadRead`), which
    a window smaller than a transfer stretches.
    """

    def __init__(self, nic) -> None:
        """`nic`: the host's spec.Nic, whose pcie_* keys describe the link."""
        super().__init__()
        clock_mhz = nic.pcie_data_gbytes_per_s * 1000 * CYCLES_PER_LINE / LINE_BYTES
        cycles = max(1, round(nic.pcie_latency_ns * clock_mhz / 1000))
        self.clk_domain = SrcClockDomain(clock=f"{clock_mhz:.6g}MHz",
                                         voltage_domain=VoltageDomain())
        self.downstream = self._direction(cycles)
        self.upstream = self._direction(cycles)
        lines = max(1, nic.pcie_read_bytes_in_flight // LINE_BYTES)
        self.dma_window = Bridge(req_size=lines, resp_size=lines, delay="0ns")
        self.dma_monitor = CommMonitor(itt_max_bin=ITT_MAX_BIN,
                                       disable_bandwidth_hists=True,
                                       disable_burst_length_hists=True,
                                       disable_outstanding_hists=True,
                                       disable_transaction_hists=True)
        self.dma_monitor.mem_side_port = self.dma_window.cpu_side_port
        self.dma_window.mem_side_port = self.upstream.cpu_side_ports
        # As deep as the window, so that it never refuses what the window let through.
        self.root_port = Bridge(req_size=lines, resp_size=lines, delay="0ns")
        self.upstream.mem_side_ports = self.root_port.cpu_side_port

    def _direction(self, cycles: int) -> IOXBar:
        # One cycle to arbitrate; the rest of the latency on the way there and
        # the whole of it on the way back (a read's completion crosses the link).
        return IOXBar(clk_domain=self.clk_domain, width=WIDTH_BYTES, frontend_latency=1,
                      forward_latency=max(0, cycles - 1), response_latency=cycles,
                      header_latency=0)
