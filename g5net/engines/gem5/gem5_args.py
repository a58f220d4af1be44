"""Flags a user passes to gem5 itself (`--gem5-arg`), e.g. `--debug-flags=Ethernet`.

They travel as an engine option (g5net/engines/options.py): a sweep's plan
holds them for its point processes and SLURM jobs. gem5 gets them before its
config script, in the measured phase and when `g5net system` builds a system: the boot checkpoint is shared by runs and
never sees them.

Flags that only make gem5 report more (its debug trace) leave the run id as
it is; any other flag may change what is simulated, so it is part of the
run id. Flags g5net sets itself are refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import UsageError

# gem5's debug-trace options: what they print, not what is simulated.
OBSERVING = ("--debug-flags", "--debug-start", "--debug-end", "--debug-file", "--debug-ignore",
             "--debug-activate", "--quiet", "--verbose", "-q", "-v")
# Set by g5net (its output folder, terminals, stats and config files), or
# stopping gem5 for a person (a debugger, help text).
OWNED = ("--outdir", "-d", "--listener-mode", "--stats-file", "--dump-config", "--json-config",
         "--dot-config", "--redirect-stdout", "--redirect-stderr", "-r", "-e", "--stdout-file",
         "--stderr-file", "--silent-redirect", "--interactive", "-i", "--pdb", "-c", "-m", "-P",
         "--debug-break", "--debug-help", "--stats-help", "--help", "-h", "--build-info", "-B",
         "--copyright", "-C", "--readme", "-R")


def _name(arg: str) -> str:
    return arg.partition("=")[0]


def check(args: Sequence[str]) -> tuple[str, ...]:
    """`args`, each one `--name` or `--name=value` word that g5net leaves to the user."""
    for arg in args:
        if not arg.startswith("-"):
            raise UsageError(f"--gem5-arg {arg!r}: a gem5 flag starts with '-'; give a value "
                             f"in the same word (--debug-flags=Ethernet)")
        if _name(arg) in OWNED:
            raise UsageError(f"--gem5-arg {arg!r}: g5net sets {_name(arg)} itself")
    return tuple(args)


def simulated(args: Sequence[str]) -> tuple[str, ...]:
    """The flags that may change what gem5 simulates: those the run id covers."""
    return tuple(a for a in args if _name(a) not in OBSERVING)
