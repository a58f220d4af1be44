"""`g5net console`: watch (gem5: and type into) a running host's serial console."""

from __future__ import annotations

import argparse
import os
import selectors
import socket
import sys
import termios
import time
import tty
from pathlib import Path

from .. import engines
from ..errors import CorruptRunError, G5netError
from ..machine import bounded_read
from ..machine.staged_dir import TMP_PREFIX
from ..runs.rundir import RunDir, read_record
from ..model.specs import from_dict

DETACH = b"\x1d"  # Ctrl-], as telnet
# What attach() returns: the user left, or gem5 closed the terminal.
DETACHED, ENDED = "detached", "ended"
POLL_S = 0.2


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "console",
        help="attach to a running host's serial console",
        description="Attach to the serial console of host NAME of a run in progress. Under gem5 "
                    "this connects to the board's terminal socket (what gem5's m5term does for "
                    "its TCP ports): the output so far, then live output, and what you type "
                    "goes to the guest. Under QEMU it follows the live console log. A finished "
                    "run's console is printed whole.",
        epilog="RUNDIR is the run directory, or the name it will have once finished: a run in "
               "progress lives in DIR/.tmp-NAME-<id>-*, which is found from DIR/NAME-<id>.\n"
               "Detach with Ctrl-] (gem5) or Ctrl-C.\n"
               "Exit status: 0 the console ended or was detached, 2 no such run or host.\n"
               "Example: g5net console results/quickstart-3f2a9c01d4e5 --host client",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("rundir", type=Path, metavar="RUNDIR", help="run directory (see below)")
    p.add_argument("--host", required=True, metavar="NAME", help="host name from the spec")
    p.set_defaults(func=main)


def find_run(path: Path) -> RunDir:
    """The run in progress that will be committed at `path` (a rerun of a
    finished point is one), else the run at `path`."""
    live = sorted(path.parent.glob(f"{TMP_PREFIX}{path.name}*"), key=lambda p: p.stat().st_mtime)
    live = [p for p in live if RunDir(p).spec_json.is_file()]
    if live:
        return RunDir(live[-1])
    if RunDir(path).spec_json.is_file():
        return RunDir(path)
    raise G5netError(f"{path}: no run directory there and no run in progress "
                     f"({path.parent}/{TMP_PREFIX}{path.name}*)")


def main(args: argparse.Namespace) -> int:
    rd = find_run(args.rundir)
    spec = from_dict(read_record(rd.spec_json), source=str(rd.spec_json))
    host = spec.host(args.host)
    if _in_progress(rd):
        sockets = engines.get(spec.experiment.engine).console_sockets(spec, rd, host.name)
        if sockets:
            return relay(rd, sockets)
        return follow(rd.console(host.name), rd)
    if rd.console(host.name).exists():
        sys.stdout.write(bounded_read.read_bytes(rd.console(host.name)).decode(errors="replace"))
        print(f"\n[g5net console: {host.name} is not running; this was its whole console]",
              file=sys.stderr)
        return 0
    raise G5netError(f"{rd.path}: host {host.name} has no console yet")


def _in_progress(rd: RunDir) -> bool:
    # A run runs under its temporary name only: a committed run whose run.json
    # is damaged (no status) is not one to wait for.
    return (rd.path.exists() and rd.path.name.startswith(TMP_PREFIX)
            and _status(rd) in (None, "running"))


def relay(rd: RunDir, sockets: tuple[Path, ...]) -> int:
    """Attach to the terminal at whichever of `sockets` is open (gem5: the
    boot's, then the measurement's), until the run ends or the user detaches."""
    while _in_progress(rd):
        for sock in sockets:
            if sock.is_socket():
                try:
                    if attach(sock) == DETACHED:
                        return 0
                except G5netError:
                    pass  # a socket left by a gem5 that just ended
        time.sleep(POLL_S)
    return 0


def follow(path: Path, rd: RunDir) -> int:
    """Print `path` as it grows, until the run is no longer in progress there."""
    out = sys.stdout.buffer
    try:
        while not path.exists():  # the engine has not started the guest yet
            if not _in_progress(rd):
                return 0
            time.sleep(POLL_S)
        with bounded_read.open_regular(path) as f:
            while True:
                chunk = f.read(65536)
                if chunk:
                    out.write(chunk)
                    out.flush()
                    continue
                if not _in_progress(rd):
                    return 0
                time.sleep(POLL_S)
    except KeyboardInterrupt:
        return 0


def _status(rd: RunDir) -> str | None:
    try:
        return rd.read_run().get("status")
    except CorruptRunError:
        return None


def _connect(sock: Path) -> socket.socket:
    # A Unix socket path has ~107 bytes; run directories can be deeper. The
    # directory's descriptor under /proc names it in a few.
    fd = os.open(sock.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(f"/proc/self/fd/{fd}/{sock.name}")
        return s
    finally:
        os.close(fd)


def attach(sock: Path) -> str:
    """Relay between the terminal and gem5's serial terminal socket."""
    try:
        conn = _connect(sock)
    except OSError as e:
        raise G5netError(f"{sock}: cannot connect: {e.strerror}") from e
    stdin = sys.stdin.buffer
    interactive = stdin.isatty()
    saved = termios.tcgetattr(stdin) if interactive else None
    print(f"[g5net console: attached to {sock}; Ctrl-] detaches]", file=sys.stderr)
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ)
    if interactive:
        tty.setraw(stdin.fileno())
        sel.register(stdin, selectors.EVENT_READ)
    out = sys.stdout.buffer
    try:
        while True:
            for key, _ in sel.select():
                if key.fileobj is conn:
                    data = conn.recv(65536)
                    if not data:
                        return ENDED
                    out.write(data)
                    out.flush()
                else:
                    data = os.read(stdin.fileno(), 1024)
                    if not data or DETACH in data:
                        return DETACHED
                    conn.sendall(data)
    except KeyboardInterrupt:
        return DETACHED
    finally:
        if saved is not None:
            termios.tcsetattr(stdin, termios.TCSADRAIN, saved)
        conn.close()
        print("\n[g5net console: detached]", file=sys.stderr)
