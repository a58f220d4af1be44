"""`g5net` command line: one module per subcommand under `g5net.commands`.

Exit status: 0 success, 1 the thing ran and failed (a failed run, a violated
check), 2 bad input or environment (spec error, missing artifact or engine).
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys

from . import __version__, home
from .errors import G5netError, os_error_text

# Order is the order `g5net --help` lists them.
COMMANDS = ("run", "sweep", "status", "collect", "console", "artifacts", "doctor", "system",
            "stats", "report", "check", "study", "spec")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="g5net",
        description="Full-system network experiments: two or more Linux hosts linked by "
                    "Ethernet, simulated in gem5 (detailed) or QEMU (fast functional check).",
        epilog="Start with: g5net run examples/quickstart.toml",
    )
    parser.add_argument("--version", action="version", version=f"g5net {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"g5net.commands.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # A shell starts background jobs with SIGINT ignored, and Python then keeps
    # it ignored: `kill -INT` must still stop a backgrounded run or sweep cleanly.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        home.check()
        return args.func(args) or 0
    except G5netError as e:
        print(f"g5net {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # A reader that stops early (`| head`) is not an error of ours; point
        # stdout at /dev/null so the interpreter's final flush stays quiet too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:
        # The environment refused (read-only folder, full disk, a name too long):
        # bad environment, not a failed experiment, and one line says which path.
        print(f"g5net {args.command}: error: {os_error_text(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"g5net {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
