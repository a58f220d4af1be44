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
import traceback

from . import home
from .version import __version__
from .errors import G5netError, os_error_text
from .machine.stop_signals import Stopped, unwind_on_stop

# Order is the order `g5net --help` lists them.
COMMANDS = ("run", "sweep", "status", "collect", "console", "artifacts", "doctor", "system",
            "stats", "report", "check", "study", "checkpoints", "examples", "spec", "completion")

CONVENTIONS = """\
Every command takes -q (no progress lines on stderr; results and errors still
print) and -v (on an error, also the chain of causes behind it). Commands
that report take --json (one JSON document on stdout). --out DIR is always a
folder the command writes into (runs, a sweep, a report); -o FILE the one file
it writes (collect's table). Flags that do not go together are an error
naming them (exit status 2).

Start with: g5net run examples/quickstart.toml"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="g5net",
        description="Full-system network experiments: two or more Linux hosts linked by "
                    "Ethernet, simulated in gem5 (detailed) or QEMU (fast functional check).",
        epilog=CONVENTIONS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"g5net {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"g5net.commands.{name}").add_parser(sub)
    for leaf in leaves(parser):
        _add_verbosity(leaf)
    return parser


def leaves(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers that run a command (`run`, `artifacts build`): those without
    subcommands. argparse has no public way to list subparsers."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [parser]
    return [leaf for s in subs for p in dict.fromkeys(s.choices.values()) for leaf in leaves(p)]


def _add_verbosity(p: argparse.ArgumentParser) -> None:
    # Here, once, so that every command has them and means the same by them.
    group = p.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true",
                       help="no progress lines on stderr (results and errors still print)")
    group.add_argument("-v", "--verbose", action="store_true",
                       help="on an error, also print the chain of causes behind it")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # A shell starts background jobs with SIGINT ignored, and Python then keeps
    # it ignored: `kill -INT` must still stop a backgrounded run or sweep cleanly.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    unwind_on_stop()
    try:
        home.check()
        return args.func(args) or 0
    except G5netError as e:
        print(f"g5net {args.command}: error: {e}", file=sys.stderr)
        if args.verbose:
            traceback.print_exception(e, file=sys.stderr)
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
    except Stopped as e:
        print(f"g5net {args.command}: stopped by {e}", file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt:
        print(f"g5net {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
