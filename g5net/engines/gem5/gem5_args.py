"""Flags a user passes to gem5 itself (`--gem5-arg`), e.g. `--debug-flags=Ethernet`.

They travel as an engine option (g5net/model/options.py): a sweep's plan
holds them for its point processes and SLURM jobs. gem5 gets them before its
config script, in the measured phase and when `g5net system` builds a system: the boot checkpoint is shared by runs and
never sees them.

Flags that only make gem5 report more (its debug trace) leave the run id as
it is; any other flag may change what is simulated, so it is part of the
run id. Flags g5net sets itself are refused, however gem5 would be told them
(an abbreviation, a bundle of short flags), and so is a file name that would
take gem5's output out of the run directory.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import UsageError, key_text, quoted
from ...spec import plain_name

# gem5 v24's own options (`gem5 --help`; src/python/m5/main.py): long name ->
# whether it takes a value. Its parser, as optparse and argparse do, takes an
# unambiguous prefix of a long name for the name (--outd=X is --outdir=X) and
# several short flags in one word (-re is -r -e; -dX is -d X).
LONG = {
    "help": False, "build-info": False, "copyright": False, "readme": False, "outdir": True,
    "redirect-stdout": False, "redirect-stderr": False, "silent-redirect": False,
    "stdout-file": True, "stderr-file": True, "listener-mode": True,
    "allow-remote-connections": False, "interactive": False, "pdb": False, "path": True,
    "quiet": False, "verbose": False, "stats-file": True, "stats-help": False,
    "dump-config": True, "json-config": True, "dot-config": True, "dot-dvfs-config": True,
    "debug-break": True, "debug-help": False, "debug-flags": True, "debug-start": True,
    "debug-end": True, "debug-file": True, "debug-activate": True, "debug-ignore": True,
    "remote-gdb-port": True, "list-sim-objects": False,
}
# Short flag -> its long name, or itself where gem5 has none (-m MOD, -c CMD, -P, -s).
SHORT = {"h": "help", "B": "build-info", "C": "copyright", "R": "readme", "d": "outdir",
         "r": "redirect-stdout", "e": "redirect-stderr", "i": "interactive", "p": "path",
         "q": "quiet", "v": "verbose", "m": "-m", "c": "-c", "P": "-P", "s": "-s"}
SHORT_VALUE = {"-m": True, "-c": True, "-P": False, "-s": False}
# gem5's debug-trace options: what they print, not what is simulated.
OBSERVING = ("debug-flags", "debug-start", "debug-end", "debug-file", "debug-ignore",
             "debug-activate", "quiet", "verbose")
# Set by g5net (its output folder, terminals and their loopback address, stats
# and config files), or stopping gem5 for a person (a debugger, help text), or
# running something other than g5net's config (-m, -c, -P).
OWNED = ("outdir", "listener-mode", "allow-remote-connections", "stats-file", "dump-config",
         "json-config", "dot-config", "redirect-stdout", "redirect-stderr", "stdout-file",
         "stderr-file", "silent-redirect", "interactive", "pdb", "-c", "-m", "-P", "debug-break",
         "debug-help", "stats-help", "help", "build-info", "copyright", "readme", "list-sim-objects")
# Options that name a file gem5 writes, relative to --outdir: the run directory.
# gem5's debug trace also takes cout and cerr.
FILES = ("debug-file", "dot-dvfs-config")


def _value(option: str, value: str, arg: str) -> None:
    if option in FILES and not (value in ("cout", "cerr") or all(
            plain_name(part) for part in value.split("/"))):
        raise UsageError(f"--gem5-arg {quoted(arg)}: --{option} names a file in the run "
                         f"directory: give a relative path of plain names (no '..', not absolute)")


def _left_to_user(option: str, arg: str) -> str:
    if option in OWNED:
        raise UsageError(f"--gem5-arg {quoted(arg)}: gem5 reads it as {_word(option, None)}, "
                         f"which g5net sets itself")
    return option


def _long(arg: str) -> tuple[str, str | None]:
    """(gem5's option, its value) that the word `--name[=value]` is to gem5."""
    name, eq, value = arg[2:].partition("=")
    matches = [o for o in LONG if o == name] or [o for o in LONG if name and o.startswith(name)]
    if len(matches) != 1:
        why = f"ambiguous (--{', --'.join(matches)})" if matches else "not one of gem5's options"
        raise UsageError(f"--gem5-arg {quoted(arg)}: --{key_text(name)} is {why} (`gem5 --help` lists them)")
    option = _left_to_user(matches[0], arg)
    if LONG[option] and not eq:
        raise UsageError(f"--gem5-arg {quoted(arg)}: --{option} takes a value: give it in the same "
                         f"word (--{option}=VALUE)")
    if eq and not LONG[option]:
        raise UsageError(f"--gem5-arg {quoted(arg)}: --{option} takes no value")
    return option, (value if eq else None)


def _short(arg: str) -> list[tuple[str, str | None]]:
    """The options the word `-abc` is to gem5: flags, the last of which may take
    the rest of the word as its value."""
    out: list[tuple[str, str | None]] = []
    for i, flag in enumerate(arg[1:], 1):
        if flag not in SHORT:
            raise UsageError(f"--gem5-arg {quoted(arg)}: -{key_text(flag)} is not one of gem5's "
                             f"options (`gem5 --help` lists them)")
        option = _left_to_user(SHORT[flag], arg)
        if LONG.get(option, SHORT_VALUE.get(option)):
            if i == len(arg) - 1:
                raise UsageError(f"--gem5-arg {quoted(arg)}: -{flag} takes a value: give it in "
                                 f"the same word (-{flag}VALUE)")
            return out + [(option, arg[i + 1:])]
        out.append((option, None))
    return out


def _word(option: str, value: str | None) -> str:
    flag = option if option.startswith("-") else f"--{option}"
    return flag if value is None else (f"{flag}={value}" if flag.startswith("--") else flag + value)


def check(args: Sequence[str]) -> tuple[str, ...]:
    """`args` as gem5 reads them, one `--name[=value]` word per option, each one
    that g5net leaves to the user; UsageError naming the word and the option
    gem5 would take it for."""
    words = []
    for arg in args:
        if not arg.startswith("-") or arg in ("-", "--"):
            raise UsageError(f"--gem5-arg {quoted(arg)}: a gem5 flag starts with '-'; give a value "
                             f"in the same word (--debug-flags=Ethernet)")
        for option, value in ([_long(arg)] if arg.startswith("--") else _short(arg)):
            if value is not None:
                _value(option, value, arg)
            words.append(_word(option, value))
    return tuple(words)


def simulated(args: Sequence[str]) -> tuple[str, ...]:
    """The flags (as `check` writes them) that may change what gem5 simulates:
    those the run id covers."""
    return tuple(a for a in args if a.partition("=")[0].removeprefix("--") not in OBSERVING)
