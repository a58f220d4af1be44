"""The guest's kernel command line (workloads/README.md section 1), built in
this one place: the protocol's words, then the engine's, then the spec's
`kernel_args`. The protocol's words are its own: a spec's word of the same
key would come last and win over what the spec validated (another host's
address, another init), so it is refused. And the whole line must fit the
engine's buffer, which is checked before anything boots: Linux keeps 2047
characters and drops the rest silently, gem5's x86 loader fewer."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import SpecError, quoted
from ..spec import Host, Spec

# Keys whose value the protocol sets (or, for a flag, whose presence it
# decides): the console it reads, the root disk and init it boots, how a
# panic ends the run, the console's verbosity. Every g5net.* key is its own.
PROTOCOL_KEYS = frozenset({"console", "root", "rootfstype", "rootflags", "rootwait", "ro", "rw",
                           "init", "rdinit", "panic", "quiet"})
PROTOCOL_PREFIX = "g5net."
# Linux's COMMAND_LINE_SIZE on x86 (arch/x86/include/asm/setup.h): 2048 bytes
# with the terminating NUL; QEMU hands the whole line over.
LINUX_MAX_CHARS = 2047


def _key(word: str) -> str:
    return word.partition("=")[0]


def protocol_words(host: Host, engine: str) -> list[str]:
    words = ["console=ttyS0", "root=/dev/sda", "ro", "rootfstype=ext4", "init=/sbin/g5init",
             "panic=-1", "quiet", f"g5net.engine={engine}", f"g5net.host={host.name}",
             f"g5net.role={host.role}", f"g5net.ip={host.ip}/24", f"g5net.mtu={host.nic.mtu}"]
    if host.nic.count > 1:
        words.append(f"g5net.nics={host.nic.count}")
    if host.sysctl:
        words.append("g5net.sysctl=" + ",".join(f"{k}={v}" for k, v in host.sysctl.items()))
    return words


def build(host: Host, engine: str, engine_args: Sequence[str] = ()) -> str:
    """One host's command line. The spec's own arguments last: where the kernel
    takes the last of a repeated argument, they win over the engine's."""
    return " ".join([*protocol_words(host, engine), *engine_args, *host.kernel_args])


def check(spec: Spec, engine: str, engine_args: Callable[[Host], Sequence[str]], max_chars: int,
          limit: str) -> None:
    """SpecError naming the key where a host's `kernel_args` holds a word of the
    protocol, or its command line (with `engine_args(host)`, the engine's
    longest) exceeds `max_chars`, the buffer `limit` describes."""
    for h in spec.hosts:
        for word in h.kernel_args:
            if _key(word) in PROTOCOL_KEYS or word.startswith(PROTOCOL_PREFIX):
                raise SpecError(f"hosts.{h.name}.kernel_args: {quoted(word)} sets {_key(word)}, which "
                                f"g5net's guest protocol sets itself (from the spec's validated keys)")
        line = build(h, engine, engine_args(h))
        if len(line) > max_chars:
            raise SpecError(f"hosts.{h.name}: its kernel command line is {len(line)} characters, more "
                            f"than the {max_chars} that {limit} holds; shorten kernel_args or the "
                            f"sysctl table ({len(' '.join(h.kernel_args))} and "
                            f"{sum(len(f'{k}={v},') for k, v in h.sysctl.items())} characters)")
