"""Flags a user passes to gem5 itself (`--gem5-arg`), e.g. `--debug-flags=Ethernet`.

They travel in $G5NET_GEM5_ARGS (shell words), so that a sweep's point
processes and SLURM jobs, which inherit the environment, pass the same ones.
gem5 gets them before its config script, in the measured phase and when
`g5net system` builds a system: the boot checkpoint is shared by runs and
never sees them.

Flags that only make gem5 report more (its debug trace) leave the run id as
it is; any other flag may change what is simulated, so it is part of the
run id. Flags g5net sets itself are refused.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence

from ...errors import UsageError

ENV_ARGS = "G5NET_GEM5_ARGS"
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


def from_env(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    env = os.environ if environ is None else environ
    try:
        words = shlex.split(env.get(ENV_ARGS, ""))
    except ValueError as e:
        raise UsageError(f"${ENV_ARGS}: not shell words ({e})") from e
    return check(words)


def export(args: Sequence[str]) -> None:
    """Add `args` to this process's $G5NET_GEM5_ARGS, for it and every process it starts."""
    if args:
        os.environ[ENV_ARGS] = shlex.join(from_env() + check(args))


def simulated(args: Sequence[str]) -> tuple[str, ...]:
    """The flags that may change what gem5 simulates: those the run id covers."""
    return tuple(a for a in args if _name(a) not in OBSERVING)
