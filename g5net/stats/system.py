"""What a gem5 config.ini says about each host: CPUs, caches and each NIC's DMA path.

gem5 writes config.ini when it instantiates a system (every run's m5out/, and
`g5net system`). One section per SimObject, named by its path; a port's value
is its peer's `object.port[index]`.
"""

from __future__ import annotations

import configparser
from pathlib import Path
from typing import Any

from ..errors import G5netError

TICKS_PER_S = 10**12
# Crossbars that keep caches coherent: where DMA meets the CPUs' memory traffic.
COHERENT = ("CoherentXBar",)
MEM_SIDE = ("mem_side_ports", "mem_side", "mem_side_port")


class _CaseSensitive(configparser.ConfigParser):
    """gem5's parameter names are case-sensitive; ConfigParser lowers them."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def read(path: Path) -> configparser.ConfigParser:
    ini = _CaseSensitive(interpolation=None, strict=False, delimiters=("=",))
    if not ini.read(path):
        raise G5netError(f"{path}: no such config.ini")
    return ini


def _owner(port: str) -> str:
    """`client.iobus.cpu_side_ports[3]` -> `client.iobus`."""
    return port.rsplit(".", 1)[0]


def _peers(ini: configparser.ConfigParser, section: str) -> list[str]:
    for key in MEM_SIDE:
        if ini.has_option(section, key):
            return ini.get(section, key).split()
    return []


def dma_path(ini: configparser.ConfigParser, nic: str) -> list[dict[str, str]]:
    """The objects a NIC's DMA crosses, from its `dma` port's peer on, up to the
    first crossbar that is coherent or fans out (where the route depends on
    the address): e.g. a PCIe link then the I/O bus, or an on-chip buffer then
    the membus."""
    path: list[dict[str, str]] = []
    section = _owner(ini.get(nic, "dma"))
    while section and len(path) < 16:
        kind = ini.get(section, "type")
        path.append({"object": section, "type": kind})
        peers = _peers(ini, section)
        if kind in COHERENT or len(peers) != 1:
            break
        section = _owner(peers[0])
    return path


def _cpu_side_count(ini: configparser.ConfigParser, cache: str) -> int:
    """How many requesters share a cache: one, or the ports of the crossbar in front of it."""
    peer = ini.get(cache, "cpu_side", fallback="")
    owner = _owner(peer) if peer else ""
    if owner and ini.get(owner, "type", fallback="").endswith("XBar"):
        return len(ini.get(owner, "cpu_side_ports", fallback="").split())
    return 1


def _domain_hz(ini: configparser.ConfigParser, domain: str) -> float:
    """A clock domain's frequency: gem5 writes its period in ticks."""
    return TICKS_PER_S / int(ini.get(domain, "clock").split()[0])


def _clock_hz(ini: configparser.ConfigParser, section: str) -> float:
    return _domain_hz(ini, ini.get(section, "clk_domain"))


def dma_link(ini: configparser.ConfigParser, path: list[dict[str, str]]) -> dict[str, Any]:
    """What a DMA path's link provides as gem5 built it: the first crossbar's
    data bandwidth for cache lines and its one-way latency, and a Bridge's
    bound on the data in flight (its response queue, in lines); {} when the
    path has neither."""
    out: dict[str, Any] = {}
    if not path:
        return out
    # gem5's DMA moves cache lines: the board's line size.
    line = int(ini.get(path[0]["object"].split(".")[0], "cache_line_size"))
    # The path's last crossbar is where it fans out (the I/O bus): not the link.
    link = next((p["object"] for p in path[:-1] if p["type"] == "NoncoherentXBar"), None)
    if link:
        hz = _clock_hz(ini, link)
        cycles = sum(int(ini.get(link, k)) for k in ("frontend_latency", "forward_latency"))
        # A crossbar's layer is busy one cycle beyond a packet's data
        # (NoncoherentXBar::recvTimingReq), so a line takes line / width + 1 cycles.
        line_cycles = -(-line // int(ini.get(link, "width"))) + 1
        out["gbytes_per_s"] = round(line * hz / line_cycles / 1e9, 3)
        out["latency_ns"] = round(cycles / hz * 1e9, 1)
    window = next((p["object"] for p in path if p["type"] == "Bridge"), None)
    if window:
        out["dma_window_bytes"] = int(ini.get(window, "resp_size")) * line
    return out


def line_bytes(ini: configparser.ConfigParser, board: str) -> int | None:
    """The board's cache line: what each of gem5's DMA transfers moves at most
    (DmaPort splits a transfer at line boundaries); None for no such board."""
    return ini.getint(board, "cache_line_size", fallback=None) if ini.has_section(board) else None


def memory(ini: configparser.ConfigParser, prefix: str) -> dict[str, Any]:
    """The memory channels under `prefix` and their summed peak bandwidth: each
    DRAM interface moves burst_length x device_bus_width x devices_per_rank
    bits per tBURST."""
    drams = [s for s in ini.sections()
             if s.startswith(prefix) and ini.get(s, "type", fallback="") == "DRAMInterface"]
    peak = 0.0
    for d in drams:
        bits = 1
        for key in ("burst_length", "device_bus_width", "devices_per_rank"):
            bits *= int(ini.get(d, key))
        peak += bits / 8 / (int(ini.get(d, "tBURST")) / TICKS_PER_S)
    return {"channels": len(drams), "gbytes_per_s": round(peak / 1e9, 2)}


def _nic(ini: configparser.ConfigParser, section: str, prefix: str) -> dict[str, Any]:
    path = dma_path(ini, section)
    return {"object": section[len(prefix):], "mac": ini.get(section, "hardware_address"),
            "dma_path": [{**p, "object": p["object"][len(prefix):]} for p in path],
            "link": dma_link(ini, path)}


def summarise(ini: configparser.ConfigParser, boards: dict[str, str]) -> dict[str, Any]:
    """host -> its CPUs (count, gem5 type, GHz), caches (size, associativity, how
    many requesters share each: CPUs, or the caches above) and NICs (DMA path), for `boards`: host -> board."""
    out: dict[str, Any] = {}
    for host, board in boards.items():
        prefix = f"{board}."
        cpus = [s for s in ini.sections()
                if s.startswith(prefix) and ini.get(s, "type", fallback="").endswith("CPU")]
        caches = [s for s in ini.sections()
                  if s.startswith(prefix) and ini.get(s, "type", fallback="") == "Cache"]
        nics = [s for s in ini.sections()
                if s.startswith(prefix) and ini.has_option(s, "dma")
                and ini.has_option(s, "hardware_address")]
        out[host] = {
            "cpus": len(cpus),
            "cpu_types": sorted({ini.get(s, "type") for s in cpus}),
            "clock_ghz": round(_domain_hz(ini, f"{board}.clk_domain") / 1e9, 3),
            "caches": [{"object": s[len(prefix):], "size_bytes": int(ini.get(s, "size")),
                        "assoc": int(ini.get(s, "assoc")),
                        "requesters": _cpu_side_count(ini, s)} for s in caches],
            "memory": memory(ini, prefix),
            "nics": [_nic(ini, s, prefix) for s in nics],
        }
    return out
