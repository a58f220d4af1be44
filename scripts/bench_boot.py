#!/usr/bin/env python3
"""gem5 boot time by CPUs per host: a pair of examples/quickstart-gem5.toml hosts
with N CPUs each (N/2 cores of 2 hardware threads, as examples/smp-gem5.toml
has for N = 4; 1 is the quickstart itself; 64 is the niagara2 preset, 8 x 8),
booted on the atomic CPU into their checkpoint. Prints, per N: host seconds to the checkpoint,
simulated seconds, and simulated instructions per CPU (mean, and the boot
CPU's share). A checkpoint that exists already is reported from its record
(boot.json) instead of being booted again. Skipped, with the reason, where gem5
is missing.

Then the boots that change the hosts' shape rather than their CPUs, each the
quickstart pair with one thing changed (--shapes): a switch between them,
MTU 9000, three NICs a host, and three hosts (two clients) through a switch.

Then where the quickstart's boot goes: the same pair booted with the
kernel's log on its console (`loglevel=7`; our hosts boot `quiet`), and the
console's timestamps cut into the kernel's phases (simulated seconds, share of
the boot, and host seconds read off the boot's progress reports where this run
booted it), with the longest silences; beside it the quiet boot, to show what
printing the log cost.

    .venv/bin/python scripts/bench_boot.py [--cpus 1,2,4,8,16,64] [--shapes switch,mtu9000] [--no-phases]
"""

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchlib import gem5_engine  # noqa: E402

from g5net import spec as specmod  # noqa: E402
from g5net.engines.base import BootFailed  # noqa: E402
from g5net.model import specs  # noqa: E402
from g5net.runners import execute as run  # noqa: E402
from g5net.runs.rundir import RunDir  # noqa: E402

SPEC = REPO / "examples" / "quickstart-gem5.toml"
DEFAULT_CPUS = "1,2,4,8,16"
BOOT_LIMIT_S = 4 * 3600


def pair(cpus: int) -> specmod.Spec:
    d = specs.load(SPEC).to_dict()
    d["experiment"]["name"] = f"boot-{cpus}cpu"
    for h in d["hosts"].values():
        if cpus == 64:
            h["cpu"] = {"preset": "niagara2", "model": "timing", "boot_model": "atomic"}
        elif cpus > 1:
            h["cpu"].update(cores=cpus // 2, threads_per_core=2)
    return specs.from_dict(d)


def _switched(d: dict) -> None:
    d["link"]["switch"] = True


def _jumbo(d: dict) -> None:
    for h in d["hosts"].values():
        h.setdefault("nic", {})["mtu"] = 9000


def _three_nics(d: dict) -> None:
    for h in d["hosts"].values():
        h.setdefault("nic", {})["count"] = 3


def _three_hosts(d: dict) -> None:
    d["hosts"]["client"]["replicas"] = 2
    _switched(d)


# Boots of another shape than the CPUs' (the studies' boots of their own).
SHAPES = {"switch": _switched, "mtu9000": _jumbo, "three-nics": _three_nics,
          "three-hosts": _three_hosts}


def shaped(name: str) -> specmod.Spec:
    """The quickstart pair changed as SHAPES[name] says."""
    d = specs.load(SPEC).to_dict()
    d["experiment"]["name"] = f"boot-{name}"
    SHAPES[name](d)
    return specs.from_dict(d)


def print_boot(label: str, ckpt) -> None:
    boot = json.loads(ckpt.meta.read_text())
    per_cpu = [i for insts in boot.get("insts", {}).values() for i in insts]
    firsts = [insts[0] for insts in boot.get("insts", {}).values()]
    mean = sum(per_cpu) / len(per_cpu) / 1e6 if per_cpu else float("nan")
    share = sum(firsts) / sum(per_cpu) if per_cpu and sum(per_cpu) else float("nan")
    print(f"{label:>11}  {boot['wall_s']:>7.0f}  {boot['sim_seconds']:>6.3f}  {mean:>11.1f}  {share:>14.2f}",
          flush=True)


# Where one phase of a Linux 6.1 x86 boot ends: the first console line that
# matches, in this order; the last phase, userspace, ends at the checkpoint.
PHASES = (
    ("early setup: memory map, page tables, ACPI", r"Memory: \d+K/"),
    ("scheduler, timers, clock calibration", r"smp: Bringing up secondary CPUs"),
    ("CPUs brought up", r"smp: Brought up"),
    ("initcalls: buses, devices, drivers", r"Freeing unused kernel image"),
)
USERSPACE = "userspace: g5init to BOOTED"
_PROGRESS = re.compile(r"(\d+) s: ([\d.]+) simulated s")
_STAMP = re.compile(r"^\[\s*(\d+\.\d+)\]\s?(.*)$")
SILENCES = 5


def verbose_pair(cpus: int) -> specmod.Spec:
    """pair(cpus), its kernels' log printed on the consoles."""
    d = pair(cpus).to_dict()
    d["experiment"]["name"] += "-loglevel7"
    for h in d["hosts"].values():
        h["kernel_args"] = [*h.get("kernel_args", []), "loglevel=7"]
    return specs.from_dict(d)


def booted(engine, spec: specmod.Spec, clock: list[tuple[float, float]] | None = None):
    """The spec's checkpoint, booted now unless it exists; None if the boot
    failed. `clock` gets (host s, simulated s) from the boot's progress lines."""
    arts = run.resolve_artifacts(spec, progress=lambda m: None)

    def progress(line: str) -> None:
        print(f"  {line}", file=sys.stderr, flush=True)
        m = _PROGRESS.search(line)
        if m and clock is not None:
            clock.append((float(m.group(1)), float(m.group(2))))

    with tempfile.TemporaryDirectory() as tmp:
        try:
            ckpt, _ = engine.booted(spec, arts, RunDir(Path(tmp)), time.monotonic() + BOOT_LIMIT_S,
                                    progress=progress)
        except BootFailed as e:
            print(f"{spec.experiment.name}: boot failed: {e}")
            return None
    return ckpt


def _stamped(console: str) -> list[tuple[float, str]]:
    """(kernel timestamp, text) of every timestamped console line."""
    return [(float(m.group(1)), m.group(2)) for m in map(_STAMP.match, console.splitlines()) if m]


def phases(console: str, sim_seconds: float) -> list[tuple[str, float]]:
    """(phase, simulated seconds) from a timestamped boot console; the last
    phase ends at the checkpoint (`sim_seconds`: BOOTED has no timestamp)."""
    out, start, rest = [], 0.0, _stamped(console)
    for name, pattern in PHASES:
        at = next((i for i, (_, line) in enumerate(rest) if re.search(pattern, line)), None)
        if at is None:
            raise ValueError(f"no console line matches {pattern!r}: is this a boot log of our kernel?")
        end = rest[at][0]
        out.append((name, end - start))
        start, rest = end, rest[at:]
    return [*out, (USERSPACE, sim_seconds - start)]


def silences(console: str, n: int = SILENCES) -> list[tuple[float, str]]:
    """The n longest gaps between timestamped lines: (seconds, the line after)."""
    stamped = _stamped(console)
    gaps = [(b[0] - a[0], b[1]) for a, b in zip(stamped, stamped[1:])]
    return sorted(gaps, reverse=True)[:n]


def host_seconds(clock: list[tuple[float, float]], sim_s: float) -> float | None:
    """Host seconds into the boot at simulated time `sim_s`, between the two
    progress reports around it; None without reports (a boot done earlier)."""
    for (h0, s0), (h1, s1) in zip(clock, clock[1:]):
        if s0 <= sim_s <= s1:
            return h0 + (h1 - h0) * ((sim_s - s0) / (s1 - s0) if s1 > s0 else 0.0)
    return None


def print_phases(engine, cpus: int) -> None:
    clock: list[tuple[float, float]] = [(0.0, 0.0)]
    quiet, loud = booted(engine, pair(cpus)), booted(engine, verbose_pair(cpus), clock)
    if quiet is None or loud is None:
        return
    q, l = (json.loads(c.meta.read_text()) for c in (quiet, loud))
    clock.append((l["wall_s"], l["sim_seconds"]))
    host = pair(cpus).hosts[0].name
    console = loud.console(host).read_text(errors="replace")
    print(f"\nboot phases of host {host} ({cpus} CPU): kernel log on the console "
          f"(loglevel=7), {l['sim_seconds']:.3f} simulated s in {l['wall_s']:.0f} host s; "
          f"the quiet boot {q['sim_seconds']:.3f} simulated s (printing the log cost "
          f"{l['sim_seconds'] / q['sim_seconds']:.2f}x in simulated time)")
    # Host seconds per phase from the progress reports (every 30 s), where this
    # run booted it: an idle CPU's simulated time costs little host time.
    print(f"  {'phase':<44} {'sim s':>7} {'share':>6} {'host s':>7}")
    start = 0.0
    for name, sim_s in phases(console, l["sim_seconds"]):
        a, b = host_seconds(clock, start), host_seconds(clock, start + sim_s)
        took = f"{b - a:>7.0f}" if a is not None and b is not None else f"{'-':>7}"
        print(f"  {name:<44} {sim_s:>7.3f} {sim_s / l['sim_seconds']:>6.1%} {took}")
        start += sim_s
    print("  longest silences on the console (simulated s, then the line that ended it):")
    for gap, line in silences(console):
        print(f"    {gap:7.3f}  {line[:90]}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cpus", default=DEFAULT_CPUS, help=f"CPUs per host, comma-separated (default {DEFAULT_CPUS})")
    p.add_argument("--shapes", default=",".join(SHAPES),
                   help=f"boots of another shape, comma-separated, or '' for none (default: all of "
                        f"{', '.join(SHAPES)})")
    p.add_argument("--no-phases", dest="phases", action="store_false",
                   help="leave out where the boot goes (a boot of the 1-CPU pair with its "
                        "kernel log on the console)")
    args = p.parse_args()
    engine = gem5_engine()
    if engine is None:
        return 0
    shapes = [s for s in args.shapes.split(",") if s]
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown:
        p.error(f"--shapes: {unknown[0]!r} is none of {', '.join(SHAPES)}")
    print(f"{'CPUs/host':>11}  {'host s':>7}  {'sim s':>6}  {'M insts/CPU':>11}  {'boot CPU share':>14}")
    for n in (int(c) for c in args.cpus.split(",") if c):
        ckpt = booted(engine, pair(n))
        if ckpt is not None:
            print_boot(str(n), ckpt)
    for name in shapes:
        ckpt = booted(engine, shaped(name))
        if ckpt is not None:
            print_boot(name, ckpt)
    if args.phases:
        print_phases(engine, 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
