"""Real guests under QEMU: our kernel and image boot, run a job from the job
disk, print the results block and end the QEMU process by themselves."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from g5net import artifacts
from g5net.engines import qemu as qemu_engine

pytestmark = pytest.mark.slow

QEMU = "qemu-system-x86_64"
BOOT_TIMEOUT_S = 180
RESULTS = re.compile(r"<<<G5NET-RESULTS-BEGIN>>>\r?\n(.*?)\r?\n<<<G5NET-RESULTS-END>>>", re.S)


def cmdline(host: str, role: str, ip: str, extra: str = "") -> str:
    return (f"console=ttyS0 root=/dev/sda ro rootfstype=ext4 init=/sbin/g5init panic=-1 "
            f"g5net.engine=qemu g5net.host={host} g5net.role={role} g5net.ip={ip}/24 "
            f"g5net.mtu=1500 {extra}").strip()


def job_disk(script: str, path: Path) -> Path:
    data = script.encode()
    path.write_bytes(data + b"\0" * (-len(data) % 512 or 512))
    return path


def qemu(kernel: artifacts.Kernel, image: artifacts.Image, append: str, job: Path,
         netdev: str | None = None, mac: str = "52:54:00:00:00:01", smp: int = 2) -> list[str]:
    if shutil.which(QEMU) is None:
        pytest.fail(f"{QEMU} not found: apt-get install qemu-system-x86")
    cmd = [QEMU, "-machine", "pc,accel=tcg", "-smp", str(smp), "-m", "512", "-display", "none",
           "-monitor", "none", "-serial", "stdio", "-no-reboot", "-nodefaults",
           "-kernel", str(kernel.bzimage), "-append", append,
           "-drive", f"file={image.path},format=raw,if=ide,index=0,snapshot=on",
           "-drive", f"file={job},format=raw,if=ide,index=1"]
    if netdev:
        cmd += ["-netdev", netdev, "-device", f"e1000,netdev=n0,mac={mac}"]
    return cmd


def results(console: str) -> dict:
    m = RESULTS.search(console)
    assert m, f"no results block in the console:\n{console[-3000:]}"
    return json.loads(m.group(1))


def boot_alone(cmd: list[str]) -> subprocess.CompletedProcess:
    """One guest's QEMU to its end, booted again as the engine does when the
    guest's disk probes swapped their names (qemu.DISK_SWAP_ATTEMPTS): that is
    Linux's asynchronous probing, not the guest protocol under test."""
    for _ in range(qemu_engine.DISK_SWAP_ATTEMPTS):
        run = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=BOOT_TIMEOUT_S)
        if not qemu_engine.disks_swapped(run.stdout):
            break
    return run


@pytest.mark.parametrize("variant", artifacts.VARIANTS)
def test_one_guest_runs_its_job_and_exits(tmp_path, variant):
    k, img = artifacts.kernel(variant), artifacts.image()
    job = job_disk('g5_capture hello echo hi\ng5_capture engine sh -c \'echo "$G5_ENGINE"; m5 dumpstats\'\n',
                   tmp_path / "job.img")
    start = time.monotonic()
    run = boot_alone(qemu(k, img, cmdline("h1", "client", "10.0.0.1"), job, netdev="user,id=n0"))
    elapsed = time.monotonic() - start
    console = run.stdout
    assert run.returncode == 0, f"QEMU failed ({run.returncode}): {run.stderr}\n{console[-3000:]}"
    assert "G5NET-BOOTED host=h1" in console, console[-3000:]
    doc = results(console)
    assert (doc["host"], doc["role"], doc["engine"], doc["job_rc"]) == ("h1", "client", "qemu", 0)
    assert doc["items"]["hello.out"] == "hi\n"
    assert doc["items"]["hello.rc"] == "0\n"
    assert doc["items"]["engine.out"] == "qemu\n"
    assert "g5init.err" not in doc["items"], doc["items"].get("g5init.err")
    print(f"{variant}: boot + job + exit in {elapsed:.1f} s")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def booted_pair(tmp_path: Path, server_job: Path, client_job: Path) -> tuple[int, str, str]:
    """A server (10.0.0.1) and a client (10.0.0.2) on the smp kernel, each
    with its job disk, back to back over a QEMU socket netdev, to their
    ends: the client's exit status and both consoles. The pair is booted
    again where a guest's disk probes swapped (boot_alone)."""
    k, img = artifacts.kernel("smp"), artifacts.image()

    def server_cmd(port: int) -> list[str]:
        return qemu(k, img, cmdline("server", "server", "10.0.0.1"), server_job,
                    netdev=f"socket,id=n0,listen=127.0.0.1:{port}", mac="52:54:00:00:00:01")

    def client_cmd(port: int) -> list[str]:
        return qemu(k, img, cmdline("client", "client", "10.0.0.2"), client_job,
                    netdev=f"socket,id=n0,connect=127.0.0.1:{port}", mac="52:54:00:00:00:02")

    for _ in range(qemu_engine.DISK_SWAP_ATTEMPTS):
        outcome = _pair(tmp_path, server_cmd, client_cmd)
        if not any(map(qemu_engine.disks_swapped, outcome[1:])):
            break
    return outcome


def _pair(tmp_path: Path, server_cmd: Callable[[int], list[str]],
          client_cmd: Callable[[int], list[str]]) -> tuple[int, str, str]:
    """One boot of booted_pair, the consoles in files (a pipe that nobody
    reads while the other guest runs would stall a guest's serial output). A
    server that stops at boot because its disk probes swapped ends the
    client at once: the client would otherwise retry its connections for
    many minutes against no server."""
    port = _free_port()
    server_path, client_path = tmp_path / "server.console", tmp_path / "client.console"
    with open(server_path, "wb") as sout, open(client_path, "wb") as cout:
        server = subprocess.Popen(server_cmd(port), stdout=sout, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL)
        client = None
        try:
            deadline = time.monotonic() + 10
            while f":{port:04X} 00000000:0000 0A" not in Path("/proc/net/tcp").read_text():
                assert time.monotonic() < deadline, "the server's QEMU never listened"
                time.sleep(0.05)
            client = subprocess.Popen(client_cmd(port), stdout=cout, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL)
            deadline = time.monotonic() + 600
            while client.poll() is None:
                if server.poll() is not None and qemu_engine.disks_swapped(
                        server_path.read_text(errors="replace")):
                    break
                if time.monotonic() > deadline:
                    pytest.fail("the client did not end within 600 s; its console ends:\n"
                                + client_path.read_text(errors="replace")[-3000:]
                                + "\nand the server's:\n"
                                + server_path.read_text(errors="replace")[-3000:])
                time.sleep(1)
            # A client stopped at boot likewise leaves its server waiting: both
            # boot again (booted_pair).
            if client.poll() is not None and client.returncode == 0 and not \
                    qemu_engine.disks_swapped(client_path.read_text(errors="replace")):
                try:
                    server.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    pytest.fail("the server did not end within 60 s of its client; its console "
                                "ends:\n" + server_path.read_text(errors="replace")[-3000:])
        finally:
            for proc in (client, server):
                if proc is not None and proc.poll() is None:
                    proc.kill()
                    proc.wait()
    return (client.returncode if client else -1, server_path.read_text(errors="replace"),
            client_path.read_text(errors="replace"))


def test_two_guests_iperf_iperf3_netpipe(tmp_path):
    """Back to back over a QEMU socket netdev: each server exits after its client
    (lib.sh's notes), so one job runs the three benchmarks in sequence."""
    server_job = job_disk(
        "g5_capture iperf timeout 120 iperf -s -P 1\n"
        "g5_capture iperf3 timeout 120 iperf3 -s -1\n"
        "g5_capture netpipe timeout 300 NPtcp\n", tmp_path / "server.img")
    client_job = job_disk(
        "g5_roi_begin iperf\n"
        "g5_capture iperf iperf -c 10.0.0.1 -n 8M --connect-retries 300\n"
        "g5_roi_end iperf\n"
        "g5_capture iperf3 g5_retry 60 iperf3 -c 10.0.0.1 -n 8M\n"
        "g5_capture netpipe g5_retry 60 NPtcp -h 10.0.0.1 -u 65536 -o $G5_OUT/netpipe.np\n",
        tmp_path / "client.img")
    client_rc, server_console, client_console = booted_pair(tmp_path, server_job, client_job)
    assert client_rc == 0, f"client QEMU failed ({client_rc}):\n{client_console[-3000:]}"
    c, s = results(client_console), results(server_console)
    assert c["job_rc"] == 0 and s["job_rc"] == 3, "NPtcp's receiver always ends with status 3"
    assert re.search(r"\d+ [MG]bits/sec", c["items"]["iperf.out"]), c["items"]["iperf.out"]
    assert s["items"]["iperf.rc"] == "0\n" and s["items"]["iperf3.rc"] == "0\n"
    assert "receiver" in c["items"]["iperf3.out"]
    assert c["items"]["netpipe.rc"] == "0\n" and s["items"]["netpipe.rc"] == "3\n"
    assert len(c["items"]["netpipe.np"].splitlines()) > 20
    assert "iperf.before.snmp" in c["items"] and "iperf.after.netstat" in c["items"]
