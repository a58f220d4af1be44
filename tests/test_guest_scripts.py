"""The guest's shell side (workloads/lib.sh, results.awk, and profile.sh,
which a profiling job carries) run by the host's busybox, the same program
the image carries (busybox-static)."""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
from pathlib import Path

import pytest

from g5net.metrics import profile
from g5net.workloads import profiler

REPO = Path(__file__).resolve().parents[1]
WORKLOADS = REPO / "workloads"
BUSYBOX = shutil.which("busybox")



@pytest.fixture(autouse=True)
def _busybox():
    if BUSYBOX is None:
        pytest.fail("needs busybox on PATH: apt-get install busybox-static "
                    "(listed in disk-images/host-packages.txt)")


def sh(script: str, out: Path, **kwargs) -> subprocess.CompletedProcess:
    """Runs `script` as g5init runs a job: lib.sh sourced first, G5_OUT set."""
    out.mkdir(exist_ok=True)
    return subprocess.run([BUSYBOX, "sh", "-c", f". {WORKLOADS / 'lib.sh'} && {{\n{script}\n}}"],
                          env={"PATH": "/usr/bin:/bin", "G5_OUT": str(out)},
                          capture_output=True, text=True, timeout=30, **kwargs)


def results(files: dict[str, bytes], tmp_path: Path, rc: int = 0, timeout: float | None = None) -> dict:
    d = tmp_path / "g5out"
    d.mkdir()
    for name, data in files.items():
        (d / name).write_bytes(data)
    out = subprocess.run(
        [BUSYBOX, "awk", "-f", str(WORKLOADS / "results.awk"), "-v", "host=h1", "-v",
         "role=server", "-v", "engine=qemu", "-v", f"rc={rc}", *sorted(map(str, d.iterdir()))],
        capture_output=True, check=True, timeout=timeout)
    line = out.stdout.decode()
    assert line.count("\n") == 1 and line.endswith("\n"), "the results block is one line"
    return json.loads(line)


def test_results_round_trip_every_escape(tmp_path):
    files = {
        "quote.out": b'say "hi"\n',
        "backslash.out": b"a\\b\\\\c\\",
        "controls.out": b"tab\there\r\nbell\x07 esc\x1b[0m\x01one\x1f\n",
        "empty.err": b"",
        "no-newline.out": b"last line",
        "utf8.out": "µs ±3 °C\n".encode(),
        "many.out": b"".join(b"line %d\n" % i for i in range(2000)),
    }
    doc = results(files, tmp_path, rc=3)
    assert doc["host"] == "h1" and doc["role"] == "server" and doc["engine"] == "qemu"
    assert doc["job_rc"] == 3
    assert list(doc["items"]) == sorted(files)
    for name, data in files.items():
        assert doc["items"][name].encode() == data, name


def test_results_without_files(tmp_path):
    out = subprocess.run([BUSYBOX, "awk", "-f", str(WORKLOADS / "results.awk"), "-v", "host=h",
                          "-v", "role=client", "-v", "engine=gem5", "-v", "rc=0"],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["items"] == {}


def test_capture_writes_out_err_rc(tmp_path):
    r = sh("g5_capture greet sh -c 'echo hi; echo oops >&2; exit 4'; echo status=$?", tmp_path)
    assert r.stdout == "status=4\n"
    assert (tmp_path / "greet.out").read_text() == "hi\n"
    assert (tmp_path / "greet.err").read_text() == "oops\n"
    assert (tmp_path / "greet.rc").read_text() == "4\n"


def test_retry_keeps_only_the_last_attempt(tmp_path):
    flag = tmp_path / "attempts"
    cmd = (f"n=$(cat {flag} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {flag}; "
           f"echo attempt $n; [ $n -ge 3 ] || {{ echo refused >&2; exit 1; }}")
    r = sh(f"g5_retry 10 sh -c '{cmd}'", tmp_path / "out")
    assert r.returncode == 0
    assert r.stdout == "attempt 3\n" and r.stderr == ""


def test_retry_gives_up_with_the_status(tmp_path):
    r = sh("g5_retry 1 sh -c 'echo no >&2; exit 7'", tmp_path)
    assert r.returncode == 7 and r.stderr == "no\n"


def test_retries_at_once_keep_their_own_output(tmp_path):
    """One client per NIC retries in the background, where $$ is the job's shell's."""
    r = sh("g5_capture a g5_retry 10 sh -c 'sleep 0.3; echo A; echo a >&2' &\n"
           "g5_capture b g5_retry 10 sh -c 'echo B; echo b >&2; sleep 0.3' &\nwait", tmp_path)
    assert r.returncode == 0, r.stderr
    for name in ("a", "b"):
        assert (tmp_path / f"{name}.out").read_text() == name.upper() + "\n"
        assert (tmp_path / f"{name}.err").read_text() == name + "\n"


def test_json_ok_fails_on_a_top_level_error_only(tmp_path):
    """iperf3 -J exits 0 when it never connected; its report says so at the top level."""
    refused = '{\n\t"start":\t{},\n\t"error":\t"unable to connect to server"\n}\n'
    r = sh(f"g5_json_ok printf '{refused}'", tmp_path)
    assert r.returncode == 1 and r.stdout == refused
    nested = '{\n\t"end":\t{\n\t\t"error":\t0\n\t}\n}\n'
    assert sh(f"g5_json_ok printf '{nested}'", tmp_path).returncode == 0
    assert sh("g5_json_ok sh -c 'echo {}; exit 3'", tmp_path).returncode == 3


def test_snapshot_and_roi_copy_proc_files(tmp_path):
    # m5 is not on the host's PATH: a stub shows the calls g5_roi_* make.
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "m5").write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path}/m5.calls\n")
    (stub / "m5").chmod(0o755)
    r = sh(f"PATH={stub}:$PATH; g5_roi_begin plain && g5_roi_end plain && "
           f"g5_roi_begin iperf stats && g5_roi_end iperf stats", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    expected = [f"{roi}.{when}.{f}" for roi in ("iperf", "plain") for when in ("after", "before")
                for f in ("dev", "interrupts", "netstat", "snmp", "softirqs", "softnet_stat", "stat")]
    assert names == sorted(expected)
    assert (tmp_path / "out" / "iperf.before.stat").read_text().startswith("cpu ")
    # Only the region marked `stats` touches gem5's statistics.
    assert (tmp_path / "m5.calls").read_text() == "resetstats\ndumpstats\n"


# Two CPU 0 tables of the kernel's function profiler (function_stat_show):
# before a region and after it, when e1000_clean was called 66 times more.
PROFILE_HEAD = ("  Function                               Hit    Time            Avg             s^2\n"
                "  --------                               ---    ----            ---             ---\n")
PROFILE_BEFORE = PROFILE_HEAD + ("  e1000_clean                           1234    5678.901 us     4.602 us        1.234 us\n"
                                 "  schedule                                12    1000.000 us     83.333 us       0.000 us\n")
PROFILE_AFTER = PROFILE_BEFORE.replace("1234    5678.901 us", "1300    6000.000 us")


def test_profile_functions_leave_the_region_as_the_host_reads_it(tmp_path):
    """g5_profile_snap and g5_profile_region (workloads/profile.sh, as job.py
    ships them) leave NAME.profstart<cpu> and NAME.prof<cpu> with only the
    rows the region changed, and the host's breakdown reads them."""
    table = tmp_path / "tracing" / "trace_stat" / "function0"
    table.parent.mkdir(parents=True)
    table.write_text(PROFILE_BEFORE)
    (tmp_path / "after").write_text(PROFILE_AFTER)
    out = tmp_path / "out"
    r = sh(f"G5_TRACING={tmp_path / 'tracing'}; . {profiler.FUNCTIONS_FILE} && g5_profile_snap w && "
           f"cp {tmp_path / 'after'} {table} && g5_profile_region w", out)
    assert r.returncode == 0, r.stderr
    items = {p.name: p.read_text() for p in out.iterdir()}
    assert sorted(items) == [f"w.{profiler.PROFILE_END}0", f"w.{profiler.PROFILE_START}0"]
    assert "schedule" not in items["w.prof0"] and "e1000_clean" in items["w.profstart0"]
    b = profile.breakdown(items, None)
    assert b is not None and [t[0] for t in b.top] == ["e1000_clean"]
    assert sum(b.time_us.values()) == pytest.approx(6000.0 - 5678.901)


def test_pin_runs_unpinned_when_empty_and_pinned_otherwise(tmp_path):
    r = sh("g5_pin '' echo free && g5_pin 0 cat /proc/self/status", tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("free\n")
    assert "Cpus_allowed_list:\t0\n" in r.stdout


def test_irq_affinity_without_eth0_fails_clearly(tmp_path):
    if "eth0" in Path("/proc/interrupts").read_text():
        pytest.skip("this host has an eth0 interrupt line")
    r = sh("g5_irq_affinity 0", tmp_path)
    assert r.returncode == 1 and "eth0 has no line in /proc/interrupts" in r.stderr
    r = sh("g5_irq_affinity 0 eth5", tmp_path)
    assert r.returncode == 1 and "eth5 has no line in /proc/interrupts" in r.stderr


def test_g5init_is_plain_sh():
    """PID 1 runs under busybox sh: its syntax must parse there."""
    for script in ("g5init", "lib.sh"):
        r = subprocess.run([BUSYBOX, "sh", "-n", str(WORKLOADS / script)],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"{script}: {r.stderr}"


def test_results_time_is_linear_in_the_file_size(tmp_path):
    """A profile table is ~1 MB; concatenating it into one awk string took
    minutes (quadratic), and gem5 runs the guest a thousand times slower.
    Four times the lines take about four times awk's CPU time (quadratic:
    sixteen); CPU time, not the wall clock, so that a loaded machine does
    not decide it."""
    line = '  tcp_sendmsg_locked   12345   678.9 us\t"x"\\\n'

    def cpu_s(lines: int, where: Path) -> float:
        where.mkdir()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        doc = results({"big.prof0": line.encode() * lines}, where, timeout=300)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert doc["items"]["big.prof0"] == line * lines
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    small, large = cpu_s(12500, tmp_path / "small"), cpu_s(50000, tmp_path / "large")
    assert large < 8 * max(small, 0.05), (small, large)
