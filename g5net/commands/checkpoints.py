"""`g5net checkpoints`: the boot checkpoints g5net keeps, listed and pruned."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import engines
from ..artifacts.cache import human_size
from ..engines.base import StoredCheckpoint
from ..errors import UsageError
from ..model import sweep as sweepmod
from ..runners import execute
from ..runners import plan as planmod
from . import bundled_file

DAY_S = 86400
EPILOG = """\
A gem5 run restores the boot checkpoint of its hosts (booted once, minutes,
then shared by every point that boots the same way); each multi-CPU, switched
or per-host boot adds one. A checkpoint is stale when another gem5 binary or
other configs made it: no run restores it again.

Examples:
  g5net checkpoints list
  g5net checkpoints list --for examples/quickstart-gem5.toml studies/10gbe/quick.toml
  g5net checkpoints prune --stale --dry-run
  g5net checkpoints prune --unused --for studies/*/quick.toml --older-than 30
  g5net checkpoints prune --max-gib 2 --json
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("checkpoints", help="list and prune the boot checkpoints in g5net's cache",
                       description="The boot checkpoints in g5net's cache: their size, age, what "
                                   "made them, and which specs' points restore them.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    ls = verbs.add_parser("list", help="every checkpoint: size, age, last use, what made it, who uses it",
                          epilog="Example: g5net checkpoints list --for examples/quickstart-gem5.toml",
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_for(ls)
    ls.add_argument("--json", action="store_true", help="print the checkpoints as a JSON list")
    ls.set_defaults(func=_list)
    pr = verbs.add_parser(
        "prune", help="remove checkpoints by age, size, staleness or use",
        description="Remove the checkpoints that match every criterion given (at least one). "
                    "A checkpoint a run is booting or restoring now is kept, saying so.",
        epilog="Example: g5net checkpoints prune --stale --older-than 7 --dry-run",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    pr.add_argument("--older-than", type=float, metavar="DAYS",
                    help="not restored (nor booted) for more than DAYS days")
    pr.add_argument("--stale", action="store_true",
                    help="made by another gem5 binary or other configs: never restored again")
    pr.add_argument("--unused", action="store_true",
                    help="restored by no point of the specs given with --for (required with it)")
    pr.add_argument("--max-gib", type=float, metavar="GIB",
                    help="the least recently used go until the rest hold at most GIB GiB")
    _add_for(pr)
    pr.add_argument("--dry-run", action="store_true", help="say what would go; remove nothing")
    pr.add_argument("--json", action="store_true",
                    help="print {\"removed\": [...], \"kept_in_use\": [...], \"freed_bytes\"} as JSON")
    pr.set_defaults(func=_prune)


def _add_for(p: argparse.ArgumentParser) -> None:
    p.add_argument("--for", dest="specs", nargs="+", default=[], type=bundled_file, metavar="SPEC",
                   help="specs (every point of a sweep) whose boots to look for among the "
                        "checkpoints; their kernels and image must be built")


def users(specs: Sequence[Path]) -> dict[str, list[str]]:
    """Checkpoint key -> `SPEC` or `SPEC#point` that restore it, as a sweep of
    each spec plans it (runners/plan.py)."""
    found: dict[str, list[str]] = {}
    for path in specs:
        plan = planmod.make(sweepmod.load(path), str(path), execute.silent, build=False)
        for p in plan.points:
            if p.missing:
                raise UsageError(f"--for {path}: point {p.index} boots {', '.join(p.missing)}, not "
                                 f"built yet: no checkpoint to look for (`g5net artifacts build "
                                 f"--for {path}`)")
            if p.checkpoint:
                found.setdefault(p.checkpoint, []).append(
                    f"{path}#{p.index}" if len(plan.points) > 1 else str(path))
    return found


def _record(c: StoredCheckpoint, used_by: Sequence[str], now: float) -> dict[str, Any]:
    return {"key": c.key, "path": str(c.path), "size_bytes": c.size_bytes,
            "age_days": round((now - c.created) / DAY_S, 2),
            "unused_days": round((now - c.last_used) / DAY_S, 2), "current": c.current,
            "made_by": dict(c.made_by), "hosts": list(c.hosts), "boot_wall_s": c.boot_wall_s,
            "used_by": list(used_by)}


def _list(args: argparse.Namespace) -> int:
    now = time.time()
    stored = engines.get("gem5").stored_checkpoints()
    used = users(args.specs)
    records = [_record(c, used.get(c.key, []), now) for c in stored]
    if args.json:
        print(json.dumps(records, indent=1))
        return 0
    for r in records:
        state = "current" if r["current"] else "stale"
        print(f"{r['key'][:12]}  {human_size(r['size_bytes']):>9}  {r['age_days']:6.1f} d old  "
              f"used {r['unused_days']:.1f} d ago  {state}  configs {r['made_by'].get('configs', '?')[:12]}  "
              f"{', '.join(r['hosts'])}")
        if args.specs:
            print(f"{'':14}used by: {', '.join(r['used_by']) or 'none of the specs given'}")
    total = sum(r["size_bytes"] for r in records)
    print(f"{len(records)} checkpoints, {human_size(total)}", file=sys.stderr)
    return 0


def _doomed(stored: Sequence[StoredCheckpoint], args: argparse.Namespace,
            used: dict[str, list[str]], now: float) -> list[StoredCheckpoint]:
    """The checkpoints matching every criterion asked for."""
    chosen = list(stored)
    if args.older_than is not None:
        chosen = [c for c in chosen if now - c.last_used > args.older_than * DAY_S]
    if args.stale:
        chosen = [c for c in chosen if not c.current]
    if args.unused:
        chosen = [c for c in chosen if c.key not in used]
    if args.max_gib is not None:
        # The least recently used first, until what stays fits.
        keep_bytes = sum(c.size_bytes for c in stored)
        by_use, over = sorted(chosen, key=lambda c: c.last_used), []
        for c in by_use:
            if keep_bytes <= args.max_gib * 2**30:
                break
            over.append(c)
            keep_bytes -= c.size_bytes
        chosen = over
    return chosen


def _prune(args: argparse.Namespace) -> int:
    if args.older_than is None and not args.stale and not args.unused and args.max_gib is None:
        raise UsageError("say which to remove: --older-than DAYS, --stale, --unused --for SPEC..., "
                         "or --max-gib GIB (criteria combine)")
    if args.unused and not args.specs:
        raise UsageError("--unused needs --for SPEC...: the specs whose points count as users")
    for name in ("older_than", "max_gib"):
        if getattr(args, name) is not None and getattr(args, name) < 0:
            raise UsageError(f"--{name.replace('_', '-')}: {getattr(args, name)} is negative")
    engine, now = engines.get("gem5"), time.time()
    doomed = _doomed(engine.stored_checkpoints(), args, users(args.specs), now)
    removed, in_use = [], []
    for c in doomed:
        if args.dry_run or engine.remove_checkpoint(c.key):
            removed.append(c)
        else:
            in_use.append(c)
    freed = sum(c.size_bytes for c in removed)
    if args.json:
        print(json.dumps({"removed": [c.key for c in removed], "kept_in_use": [c.key for c in in_use],
                          "freed_bytes": freed, "dry_run": args.dry_run}))
        return 0
    verb = "would remove" if args.dry_run else "removed"
    for c in removed:
        print(f"{verb} {c.key[:12]}  {human_size(c.size_bytes)}  {', '.join(c.hosts)}")
    for c in in_use:
        print(f"kept {c.key[:12]}: a run is booting or restoring it now")
    print(f"{verb} {len(removed)} checkpoints, {human_size(freed)}")
    return 0
