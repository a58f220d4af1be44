"""`g5net run`: one experiment, one run directory."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .. import engines
from ..model import specs
from ..errors import EngineError
from ..metrics.spread import SPREAD
from ..runners import execute as run
from . import add_gem5_args, bundled_file

DEFAULT_STORE = Path("results")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run one experiment spec",
        description="Boot every host of SPEC, run its workloads and write a run directory "
                    "(run.json, results.json, metrics.json, consoles, engine output) under --out.",
        epilog="Exit status: 0 the run is done, 1 it failed or timed out (run.json says why), "
               "2 the spec or environment is wrong.\n"
               "Example: g5net run examples/quickstart.toml --engine qemu --out results",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", type=bundled_file, metavar="SPEC.toml", help="experiment spec (TOML)")
    p.add_argument("--engine", choices=("qemu", "gem5", "auto"),
                   help="override experiment.engine from the spec; auto: gem5 where "
                        "`g5net doctor` finds one, else qemu")
    p.add_argument("--out", type=Path, default=DEFAULT_STORE, metavar="DIR",
                   help="store the run directory under DIR (default: %(default)s)")
    p.add_argument("--json", action="store_true",
                   help="print run.json's status, run directory and metrics as JSON on stdout")
    add_gem5_args(p)
    p.set_defaults(func=main)


def _fmt(v: Any, unit: str = "", digits: int = 1) -> str:
    return "-" if v is None else f"{v:,.{digits}f}{unit}"


def _throughput(m: dict[str, Any]) -> str:
    """The throughput, ± its 95% interval where windows or repeats measured it."""
    ci = m.get(SPREAD, {}).get("throughput_mbps", {}).get("ci95")
    if ci is None or m.get("throughput_mbps") is None:
        return _fmt(m.get("throughput_mbps"), " Mb/s")
    return f"{_fmt(m['throughput_mbps'])} ± {ci:,.1f} Mb/s"


def summary_rows(metrics: dict[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [
        ("host", "workload", "throughput", "latency", "cpu", "ctxt/s", "intr/s", "intr/pkt")]
    for host, workloads in metrics["hosts"].items():
        for name, m in workloads.items():
            rows.append((host, name, _throughput(m),
                         _fmt(m.get("latency_us"), " us"),
                         _fmt(m["cpu_util"] * 100 if m.get("cpu_util") is not None else None, "%", 0),
                         _fmt(m.get("ctxt_per_s"), "", 0), _fmt(m.get("intr_per_s"), "", 0),
                         _fmt(m.get("intr_per_pkt"), "", 3)))
    return rows


def print_table(rows: list[tuple[str, ...]], file=None) -> None:
    file = file or sys.stdout
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))),
              file=file)


def best_engine(log) -> str:
    """The most detailed engine this machine has."""
    try:
        engines.get("gem5").info()
    except EngineError as e:
        log(f"engine auto: qemu ({e})")
        return "qemu"
    log("engine auto: gem5")
    return "gem5"


def main(args: argparse.Namespace) -> int:
    log = (lambda m: None) if args.quiet else (lambda m: print(f"[g5net] {m}", file=sys.stderr, flush=True))
    options = engines.options(args.gem5_arg)
    spec = specs.load(args.spec)
    if args.engine:
        spec = spec.with_engine(best_engine(log) if args.engine == "auto" else args.engine)
    rd = run.execute(spec, args.out, progress=log, options=options)
    record = rd.read_run()
    metrics = rd.read_metrics()
    if args.json:
        print(json.dumps({"status": record["status"], "run_id": record["run_id"],
                          "run_dir": str(rd.path), "metrics": metrics}, indent=2))
    else:
        if metrics["hosts"]:
            print_table(summary_rows(metrics))
        print(f"\n{record['status']}: {rd.path}")
        for reason in record.get("failure", {}).get("reasons", []):
            print(f"  {reason}")
    return 0 if record["status"] == "done" else 1
