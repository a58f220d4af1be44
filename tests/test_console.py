"""`g5net console`: finding a run in progress, attaching to a gem5 terminal
socket, following a QEMU console log."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from g5net.commands import console
from g5net.engines.gem5.boards import console_socket
from g5net.errors import G5netError
from g5net.model import specs
from g5net.runs.rundir import RunDir


def make_run(store: Path, dirname: str, engine: str, quickstart_text: str) -> RunDir:
    rd = RunDir(store / dirname)
    rd.m5out.mkdir(parents=True)
    rd.spec_json.write_text(specs.loads(quickstart_text).with_engine(engine).to_json())
    return rd


def test_a_run_in_progress_is_found_by_its_final_name(tmp_path: Path, quickstart_text: str):
    live = make_run(tmp_path, ".tmp-quickstart-0123456789ab-x1y2", "gem5", quickstart_text)
    assert console.find_run(tmp_path / "quickstart-0123456789ab").path == live.path
    with pytest.raises(G5netError, match="no run in progress"):
        console.find_run(tmp_path / "other-0123456789ab")


def test_attach_relays_the_gem5_terminal(tmp_path: Path, quickstart_text: str, capsysbinary,
                                         monkeypatch: pytest.MonkeyPatch):
    # Deep enough that the socket's path exceeds what sockaddr_un holds.
    rd = make_run(tmp_path / ("d" * 60) / ("e" * 60), ".tmp-q-1-a", "gem5", quickstart_text)
    path = rd.m5out / console_socket("client")
    assert len(str(path)) > 108
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    fd = os.open(rd.m5out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        server.bind(f"/proc/self/fd/{fd}/{path.name}")
    finally:
        os.close(fd)
    server.listen(1)

    def guest():
        conn, _ = server.accept()
        rd.run_json.write_text(json.dumps({"status": "done"}))  # the run ends with this gem5
        conn.sendall(b"G5NET-BOOTED host=client\r\n")
        conn.close()
    t = threading.Thread(target=guest)
    t.start()
    monkeypatch.setattr("sys.stdin", open("/dev/null"))
    rc = console.main(_args(rd.path, "client"))
    t.join()
    server.close()
    assert rc == 0
    assert capsysbinary.readouterr().out == b"G5NET-BOOTED host=client\r\n"


def test_qemu_console_is_followed_until_the_run_ends(tmp_path: Path, quickstart_text: str,
                                                     capsysbinary):
    rd = make_run(tmp_path, ".tmp-q-1-b", "qemu", quickstart_text)
    rd.console("server").write_text("booting\n")
    rd.run_json.write_text(json.dumps({"status": "running"}))

    def finish():
        with open(rd.console("server"), "a") as f:
            f.write("G5NET-BOOTED host=server\n")
        rd.run_json.write_text(json.dumps({"status": "done"}))
    timer = threading.Timer(0.5, finish)
    timer.start()
    assert console.main(_args(rd.path, "server")) == 0
    timer.join()
    assert capsysbinary.readouterr().out == b"booting\nG5NET-BOOTED host=server\n"


def test_a_finished_run_prints_the_whole_console(tmp_path: Path, quickstart_text: str, capsys):
    rd = make_run(tmp_path, "quickstart-0123456789ab", "gem5", quickstart_text)
    rd.console("client").write_text("all of it\n")
    rd.run_json.write_text(json.dumps({"status": "done"}))
    assert console.main(_args(rd.path, "client")) == 0
    captured = capsys.readouterr()
    assert captured.out == "all of it\n" and "not running" in captured.err
    with pytest.raises(G5netError, match="no such host|nohost"):
        console.main(_args(rd.path, "nohost"))


def _args(path: Path, host: str):
    return type("Args", (), {"rundir": path, "host": host})()



def _serve(path: Path, data: bytes, then=None) -> tuple[socket.socket, threading.Thread]:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def run():
        conn, _ = server.accept()
        if then:
            then()
        conn.sendall(data)
        conn.close()
        server.close()
        path.unlink()
    t = threading.Thread(target=run)
    t.start()
    return server, t


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A directory whose sockets' paths fit AF_UNIX's 108 bytes, which
    pytest's own (deeper under pytest-xdist's workers) need not."""
    d = Path(tempfile.mkdtemp(prefix="g5net-console-"))
    yield d
    shutil.rmtree(d)


def test_gem5_console_follows_the_boot_phase_then_the_measurement(
        short_tmp: Path, quickstart_text: str, capsysbinary, monkeypatch: pytest.MonkeyPatch):
    rd = make_run(short_tmp, ".tmp-q-1-c", "gem5", quickstart_text)
    boot_out = short_tmp / "checkpoint-staging" / "m5out"
    boot_out.mkdir(parents=True)
    rd.m5out_boot.symlink_to(boot_out)
    done = lambda: rd.run_json.write_text(json.dumps({"status": "done"}))  # noqa: E731
    _, boot = _serve(boot_out / console_socket("server"), b"booting\n")
    _, measure = _serve(rd.m5out / console_socket("server"), b"measuring\n", then=done)
    monkeypatch.setattr("sys.stdin", open("/dev/null"))
    assert console.main(_args(rd.path, "server")) == 0
    boot.join()
    measure.join()
    assert capsysbinary.readouterr().out == b"booting\nmeasuring\n"
