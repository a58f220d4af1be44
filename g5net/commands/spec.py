"""`g5net spec`: what a spec may say, as a reference or as a JSON Schema."""

from __future__ import annotations

import argparse
import json

from ..model.schema import schema
from ..report.reference_docs import spec_markdown


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "spec",
        help="print every spec key (type, default, allowed values), or a JSON Schema of a spec",
        description="Print every key an experiment spec may hold, with its type, default, "
                    "allowed values and meaning, as Markdown (docs/spec.md holds the same); "
                    "with --schema, a JSON Schema (draft 2020-12) of a spec file for editors "
                    "that check TOML against one (e.g. Even Better TOML, taplo).",
        epilog="Exit status: 0.\n"
               "Example: g5net spec --schema > g5net-spec.schema.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--schema", action="store_true", help="print a JSON Schema of a spec file")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    print(json.dumps(schema(), indent=2) if args.schema else spec_markdown())
    return 0
