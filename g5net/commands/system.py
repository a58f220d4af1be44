"""`g5net system`: the gem5 system a spec describes, built without simulating it."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from .. import engines
from ..model import specs
from .. import spec as specmod
from ..errors import Gem5Error
from ..runners import execute as run
from ..stats import system
from . import add_gem5_args, bundled_file


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "system",
        help="build a spec's gem5 system without simulating it, and summarise it",
        description="Build every host of SPEC as the gem5 engine measures it (CPU model, "
                    "caches, NIC placement) and instantiate it without simulating: gem5 "
                    "writes config.ini and config.json, and this prints each host's CPUs, "
                    "caches (size, associativity, requesters sharing each) and each NIC's "
                    "DMA path up to the crossbar where it meets the memory system. Takes "
                    "seconds; a check before committing hours of simulation to a spec.",
        epilog="Exit status: 0 the system was built, 1 gem5 could not build it (the message "
               "quotes gem5), 2 the spec is invalid or no gem5 was found.\n"
               "Example: g5net system examples/quickstart-gem5.toml --out /tmp/qs-system",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", type=bundled_file, metavar="SPEC.toml", help="experiment spec (TOML)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="keep gem5's output (m5out/config.ini, config.json) in DIR "
                        "(default: a temporary directory, removed afterwards)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    add_gem5_args(p)
    p.set_defaults(func=main)


def pcie(nic: specmod.Nic) -> dict[str, Any]:
    """A PCIe-attached NIC's link as the spec asks for it."""
    return {"gen": nic.pcie_gen, "lanes": nic.pcie_lanes,
            "gbytes_per_s": round(nic.pcie_gbytes_per_s, 3),
            "data_gbytes_per_s": round(nic.pcie_data_gbytes_per_s, 3),
            "latency_ns": nic.pcie_latency_ns, "max_payload": nic.pcie_max_payload,
            "max_read_request": nic.pcie_max_read_request,
            "read_requests": nic.pcie_read_requests,
            "read_bytes_in_flight": nic.pcie_read_bytes_in_flight}


def _print_processes(p: dict[str, Any]) -> None:
    if p["layout"] == "one":
        print("processes: one gem5 process for every host")
        return
    hops = ", ".join(f"{h} {d:g} us" for h, d in p["hop_delay_us"].items())
    print(f"processes: one gem5 process per host and one for dist-gem5's switch; each host's "
          f"link to the switch: {hops}; synchronised every {p['sync_quantum_us']:g} us")


def _print(summary: dict[str, Any], config_ini: Path | None) -> None:
    for host, s in summary.items():
        print(f"{host}: {s['cpus']} CPU(s) {', '.join(s['cpu_types'])} at {s['clock_ghz']:g} GHz")
        for c in s["caches"]:
            print(f"  cache {c['object']}: {c['size_bytes'] // 1024} KiB, {c['assoc']}-way, "
                  f"{c['requesters']} requester(s)")
        m = s["memory"]
        print(f"  memory: {s['memory_type']}, {m['channels']} channel(s), "
              f"{m['gbytes_per_s']:g} GB/s peak")
        if s.get("pcie"):
            p = s["pcie"]
            print(f"  pcie: Gen{p['gen']} x{p['lanes']}, {p['gbytes_per_s']:.2f} GB/s per direction, "
                  f"{p['data_gbytes_per_s']:.2f} GB/s of data in {p['max_payload']} B payloads, "
                  f"{p['latency_ns']:g} ns one way; reads {p['read_requests']} x "
                  f"{p['max_read_request']} B = {p['read_bytes_in_flight']} B in flight")
        for n in s["nics"]:
            path = " -> ".join(f"{p['object']} ({p['type']})" for p in n["dma_path"])
            print(f"  nic {n['object']} {n['mac']}: DMA -> {path}")
            if n["link"]:
                link = n["link"]
                print(f"    built: {link['gbytes_per_s']:.2f} GB/s of data, "
                      f"{link['latency_ns']:g} ns one way, "
                      f"{link.get('dma_window_bytes', 0)} B of DMA in flight at most")
    if config_ini:
        print(f"config: {config_ini}")


def main(args: argparse.Namespace) -> int:
    spec = specs.load(args.spec)
    engine = engines.get("gem5", engines.options(args.gem5_arg))
    # No usable gem5, or a spec it cannot build: said before any artifact is built.
    engine.usable(spec)
    arts = run.resolve_artifacts(spec, progress=lambda m: print(m, file=sys.stderr))
    with tempfile.TemporaryDirectory(prefix="g5net-system-") as tmp:
        try:
            ini = engine.describe(spec, arts, args.out or Path(tmp))
        except Gem5Error as e:
            print(f"g5net system: {e}", file=sys.stderr)
            return 1
        summary = system.summarise(system.read(ini), engine.boards(spec))
    for name, s in summary.items():
        host = spec.host(name)
        s["memory_type"] = host.memory_type
        if host.nic.attach == "pcie":
            s["pcie"] = pcie(host.nic)
    layout = engine.layout(spec)
    if args.json:
        json.dump({"hosts": summary, "processes": layout,
                   "config_ini": str(ini) if args.out else None}, sys.stdout, indent=2)
        print()
    else:
        _print(summary, ini if args.out else None)
        _print_processes(layout)
    return 0
