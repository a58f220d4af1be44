"""`g5net completion`: a shell completion script, generated from the parser by shtab."""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Sequence
from typing import Any

from ..errors import G5netError

SHELLS = ("bash", "zsh")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "completion",
        help="print a bash or zsh completion script for g5net",
        description="Print a script that completes g5net's commands, flags and choices in "
                    "SHELL, generated from g5net's own argument parser (shtab).",
        epilog="Install:\n"
               "  bash: g5net completion bash > ~/.local/share/bash-completion/completions/g5net\n"
               "  zsh:  g5net completion zsh > ~/.zfunc/_g5net   (with fpath+=~/.zfunc before "
               "compinit)\n"
               "Example: g5net completion bash > /tmp/g5net.bash && source /tmp/g5net.bash\n"
               "Exit status: 0 printed, 2 shtab is not installed.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("shell", choices=SHELLS)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    try:
        import shtab
    except ImportError:
        raise G5netError("g5net completion needs shtab: pip install shtab") from None
    from ..cli import build_parser  # the whole parser, this command's own included

    print(shtab.complete(build_parser(), shell=args.shell))
    return 0


def words(values: Sequence[str]) -> dict[str, Any]:
    """What shtab completes an argument with: one of `values`, as they stand when
    the script is generated (set as the argument's `complete` attribute)."""
    fn = "_g5net_" + hashlib.sha256(" ".join(values).encode()).hexdigest()[:8]
    listed = " ".join(values)
    return {"bash": fn, "zsh": f"({listed})",
            "preamble": {"bash": f'{fn}() {{\n  compgen -W "{listed}" -- "$1"\n}}'}}
