"""What the catalogue's globs cannot say: counts split by who asked, read
from the `::<requestor>` entries of per-requestor vectors.

- instruction misses of a cache level: its misses whose requestor is a CPU's
  instruction port (`::processor.cores0.core.inst`); data misses are the rest
  (data ports, page-table walkers), so the two add up to the level's misses;
- the NIC's DMA as memory saw it: DRAM bytes read and written for requests
  of the NIC (`::ethernet`, `::ethernet1`, ...);
- the NIC's writes that reached the last-level cache (with direct cache
  access they allocate there; through an I/O cache they do not come by),
  whole lines arriving from the NIC's DMA buffer as InvalidateReq.
"""

from __future__ import annotations

import re
from collections import defaultdict

from .model import Dump

# Unit and meaning of each split.
DESCRIPTIONS = {
    "l2_inst_misses": ("count", "L2 misses of the CPUs' instruction fetches"),
    "l3_inst_misses": ("count", "L3 misses of the CPUs' instruction fetches"),
    "nic_dram_bytes_read": ("bytes", "DRAM bytes read for the NIC's DMA requests"),
    "nic_dram_bytes_written": ("bytes", "DRAM bytes written for the NIC's DMA requests"),
    "llc_nic_writes": ("count", "the NIC's line writes that reached the last-level cache (with "
                                "direct cache access they allocate there; through an I/O cache "
                                "none do)"),
}
# The standard library's and our hierarchy's names for each level.
_LEVELS = {"l2": r"l2cache|l2caches\d*|l2-cache-\d+", "l3": r"l3cache"}
_SPLITS = [
    (f"{level}_inst_misses", re.compile(rf"([^.]+)\.cache_hierarchy\.(?:{names})\.overallMisses::"
                                        rf"(?:[^:]+\.)?inst"))
    for level, names in _LEVELS.items()
] + [
    ("nic_dram_bytes_read", re.compile(r"([^.]+)\.memory\.(?:[^:]+\.)?bytesRead::ethernet\d*")),
    ("nic_dram_bytes_written", re.compile(r"([^.]+)\.memory\.(?:[^:]+\.)?bytesWritten::ethernet\d*")),
    # A whole-line write leaves the NIC's DMA buffer as an InvalidateReq.
    ("llc_nic_writes", re.compile(r"([^.]+)\.cache_hierarchy\.(?:l3cache|l2cache)\."
                                  r"(?:WriteReq|WriteLineReq|InvalidateReq)\.accesses::ethernet\d*")),
]


def splits(dump: Dump) -> dict[str, dict[str, float]]:
    """host -> split name -> value; a split none of whose stats is in the dump is left out."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for name, stat in dump.items():
        if "::" not in name or not ("inst" in name or "ethernet" in name):
            continue
        for split, regex in _SPLITS:
            m = regex.fullmatch(name)
            if m:
                host = out[m[1]]
                host[split] = host.get(split, 0) + stat.value
    return dict(out)
