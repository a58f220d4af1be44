"""`g5net examples`: the example specs g5net carries, listed or copied out."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from .. import home
from ..errors import UsageError

EPILOG = """\
Every example in g5net's help (`g5net run examples/quickstart.toml`) works as
typed from any folder: a path under examples/ that the working directory
lacks is read from g5net's own copy. Copy one out to change it.

Examples:
  g5net examples                          # name and first line of each
  g5net examples quickstart sweep-quick   # copy them into ./examples/
  g5net examples --all --to my-specs      # every one, into my-specs/
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("examples", help="list the example specs, or copy them out to edit",
                       description="List the example experiment specs g5net carries (the "
                                   "specs its help and README use), or copy some into a "
                                   "folder of yours.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="examples to copy (NAME or NAME.toml); none: list them")
    p.add_argument("--all", action="store_true", help="copy every example")
    p.add_argument("--to", type=Path, default=Path("examples"), metavar="DIR",
                   help="folder to copy into (default: %(default)s); an existing file is "
                        "never overwritten")
    p.add_argument("--json", action="store_true",
                   help="list as JSON: [{\"name\", \"path\", \"summary\"}, ...]")
    p.set_defaults(func=main)


def bundled() -> dict[str, Path]:
    """Every example spec, by name (the file name without .toml)."""
    return {p.stem: p for p in sorted((home.REPO / "examples").glob("*.toml"), key=lambda p: p.stem)}


# A listing's summary is cut at this many characters.
SUMMARY_CHARS = 100


def summary(path: Path) -> str:
    """The first sentence of the spec's opening comment, at most SUMMARY_CHARS."""
    words = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        words += line.lstrip("#").split()
    text = " ".join(words)
    end = text.find(". ")
    text = text if end < 0 else text[:end + 1]
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS - 3].rstrip(" ,;:(") + "..."


def main(args: argparse.Namespace) -> int:
    specs = bundled()
    if not args.names and not args.all:
        if args.json:
            print(json.dumps([{"name": n, "path": str(p), "summary": summary(p)}
                              for n, p in specs.items()], indent=1))
        else:
            width = max(map(len, specs), default=0)
            for name, path in specs.items():
                print(f"{name:<{width}}  {summary(path)}")
        return 0
    names = list(specs) if args.all else [n.removesuffix(".toml") for n in args.names]
    unknown = [n for n in names if n not in specs]
    if unknown:
        raise UsageError(f"no example {', '.join(map(repr, unknown))} (have: {', '.join(specs)})")
    taken = [args.to / f"{n}.toml" for n in names if (args.to / f"{n}.toml").exists()]
    if taken:
        raise UsageError(f"{', '.join(map(str, taken))}: already there (never overwritten); "
                         f"remove it or choose another --to")
    args.to.mkdir(parents=True, exist_ok=True)
    for n in names:
        shutil.copyfile(specs[n], args.to / f"{n}.toml")
        print(args.to / f"{n}.toml")
    return 0
