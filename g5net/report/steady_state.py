"""The README's steady-state tables, made from committed gem5 runs (the
fixtures scripts/gem5_fixtures.py makes): a stream measured over its whole
life against the same stream measured as windows, and the windowed stream at
several message sizes. `make docs` writes them; a test checks they are current."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..metrics.spread import SPREAD
from ..runs.rundir import RunDir

BEGIN = ("<!-- steady-state tables: written by `make docs` from tests/fixtures/gem5-whole-life, "
         "gem5-steady-*, gem5-sampled -->")
END = "<!-- end of the steady-state tables -->"


def _stream(rd: RunDir, host: str) -> dict[str, Any]:
    return json.loads(rd.metrics_json.read_text())["hosts"][host]["stream"]


def _value(m: dict[str, Any], k: str, digits: int) -> str:
    """A metric as the README shows it: ± its 95% interval where it has one."""
    s = m.get(SPREAD, {}).get(k)
    text = f"{m[k]:,.{digits}f}"
    return f"{text} ± {s['ci95']:,.{digits}f}" if s else text


def _row(label: str, rd: RunDir) -> str:
    client, server = _stream(rd, "client"), _stream(rd, "server")
    cells = [label, _value(client, "throughput_mbps", 1), _value(server, "throughput_mbps", 1)]
    for k, digits in (("insts_per_pkt", 0), ("l2_misses_per_pkt", 1), ("cpu_us_per_pkt", 2)):
        cells.append(f"{_value(server, k, digits)} / {_value(client, k, digits)}")
    cells.append(f"{rd.read_run()['timings']['wall_s']:.0f}")
    return "| " + " | ".join(cells) + " |"


def comparison(whole: RunDir, windows: RunDir, sampled: RunDir) -> list[str]:
    """The stream over its whole life against its consecutive windows and its
    sampled ones."""
    region, of = windows.read_run()["region"], sampled.read_run()["region"]
    return [
        "| region | client Mbit/s | server Mbit/s | instructions per packet, server / client "
        "| L2 misses per packet, server / client | CPU us per packet, server / client | host s |",
        "|---|---:|---:|---:|---:|---:|---:|",
        _row("whole life, one dump", whole),
        _row(f"{region['windows']} windows of {region['window_ms']:g} ms after "
             f"{region['warmup_ms']:g} ms", windows),
        _row(f"{of['windows']} sampled windows of {of['window_ms']:g} ms, warm checkpoints "
             f"every {of['sample_every_ms']:g} ms after {of['warmup_ms']:g} ms", sampled),
    ]


def sizes(runs: Sequence[RunDir]) -> list[str]:
    """The windowed stream at each message size: its rate, what a packet costs
    each end, and the largest share of a window spent starting or ending
    programs (PC samples)."""
    lines = ["| message | Mbit/s | instructions per received packet, server "
             "| instructions per sent packet, client | exec, exit and page faults, worst window |",
             "|---:|---:|---:|---:|---:|"]
    for rd in runs:
        spec = json.loads(rd.spec_json.read_text())
        client, server = _stream(rd, "client"), _stream(rd, "server")
        worst = max(w["process_time_pct"] for m in (client, server) for w in m["per_window"])
        lines.append(f"| {spec['workloads']['stream']['msg_bytes'] // 1024} KiB "
                     f"| {_value(server, 'throughput_mbps', 1)} | {_value(server, 'insts_per_rx_pkt', 0)} "
                     f"| {_value(client, 'insts_per_tx_pkt', 0)} | {worst:.1f}% |")
    return lines


# The runs the tables show, by fixture name (scripts/gem5_fixtures.py).
WHOLE, WINDOWS, SAMPLED = "gem5-whole-life", "gem5-steady-state", "gem5-sampled"
SIZES = ("gem5-steady-4k", "gem5-steady-16k", "gem5-steady-64k")


def block(fixtures: Path) -> str:
    """The README's block, from the fixtures under `fixtures`."""
    return "\n".join([BEGIN, "", *comparison(*(RunDir(fixtures / name) for name in (WHOLE, WINDOWS, SAMPLED))), "",
                       *sizes([RunDir(fixtures / name) for name in SIZES]), "", END])
