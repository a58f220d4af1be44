"""Windows inside a running stream (experiment.windows): what the spec refuses,
naming the key, and the job each engine renders for them (workloads/windows.py)."""

from __future__ import annotations

import re

import pytest

from g5net.errors import SpecError
from g5net.model import identity
from g5net.model import specs
from g5net.workloads import windows
from test_job import render

BASE = """
[experiment]
name = "windows"
engine = "ENGINE"
windows = 8
window_ms = 5
warmup_ms = 10
[hosts.server]
role = "server"
[hosts.client]
role = "client"
[workloads.stream]
kind = "iperf"
duration_s = 0.055
"""


def windowed(engine: str = "gem5", **replace: str) -> str:
    text = BASE.replace("ENGINE", engine)
    for old, new in replace.items():
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("text, key, words", [
    (windowed(**{"windows = 8": "windows = 1"}), "experiment.windows", "no spread"),
    (windowed(**{"window_ms = 5": "window_ms = 0"}), "experiment.window_ms", "measure nothing"),
    (windowed(**{"warmup_ms = 10": "warmup_ms = 4"}), "experiment.warmup_ms", "shorter than a window"),
    # Warm-up, 8 windows and one more: 55 ms; a stream of 54 ends inside the last.
    (windowed(**{"duration_s = 0.055": "duration_s = 0.054"}), "workloads.stream.duration_s",
     "ends before the windows do"),
    # Warm-up past the end of the workload.
    (windowed(**{"warmup_ms = 10": "warmup_ms = 100"}), "workloads.stream.duration_s", "= 145 ms"),
    (windowed(**{"duration_s = 0.055": "bytes = 4000000"}), "workloads.stream.bytes", "for a time"),
    (windowed(**{'kind = "iperf"\nduration_s = 0.055': 'kind = "netpipe"'}), "workloads.stream.kind",
     "no stream"),
    (windowed(**{"duration_s = 0.055": "duration_s = 0.055\nprofile = true"}),
     "workloads.stream.profile", "pc_sample_us"),
    (windowed(**{'kind = "iperf"': 'kind = "iperf3"'}), "workloads.stream.kind", "use iperf"),
    (windowed(**{"duration_s = 0.055": 'duration_s = 0.055\nprotocol = "udp"'}),
     "workloads.stream.protocol", "no connection"),
    (windowed(**{'name = "windows"': 'name = "windows"\nprocesses = "per-host"'}) + "[link]\ndelay_us = 1\n",
     "experiment.windows", "per-host"),
    (windowed() + '[workloads.other]\nkind = "iperf"\nduration_s = 0.055\n', "experiment.windows",
     "2 workloads"),
])
def test_windows_a_run_cannot_hold_are_refused_by_name(text: str, key: str, words: str):
    with pytest.raises(SpecError, match=rf"^{re.escape(key)}: .*{re.escape(words)}"):
        specs.loads(text)


def test_a_spec_without_windows_keeps_its_run_id():
    """Its windows' keys at any value count for nothing without windows."""
    plain = specs.loads(windowed(**{"windows = 8": "windows = 0"}))
    other = specs.loads(windowed(**{"windows = 8": "windows = 0", "window_ms = 5": "window_ms = 7"}))
    before = specs.loads(windowed(**{"windows = 8\nwindow_ms = 5\nwarmup_ms = 10\n": ""}))
    assert identity.spec_digest(plain) == identity.spec_digest(other) == identity.spec_digest(before)
    assert identity.spec_digest(specs.loads(windowed())) != identity.spec_digest(plain)


def _region(job: str) -> list[str]:
    return job.split("# workload stream: iperf, 8 windows of 5 ms after 10 ms of warm-up\n")[1].splitlines()


def test_gem5_arms_every_window_with_one_call_once_its_stream_is_connected():
    s = specs.loads(windowed())
    client, server = _region(render(s, s.host("client"))), _region(render(s, s.host("server")))
    # Binaries in the page cache; the client starts once its server listens;
    # each host waits for its flow to connect; then one periodic dump (10 ms,
    # then every 5 ms) on the host that frames regions.
    assert client[0] == server[0] == "iperf -v >/dev/null 2>&1"
    assert client[1].startswith("i=0; until nc 10.0.0.1 35001")
    assert client[2].startswith("g5_capture stream ") and client[2].endswith(" &")
    assert client[3].startswith("i=0; until grep -qE ' [0-9A-F]+:1389 01 ' /proc/net/tcp")
    assert client[4] == "g5_windows_arm 10000000 5000000"
    assert not any("g5_windows_arm" in line for line in server)
    assert server[1].startswith("g5_capture stream ") and server[1].endswith(" &")
    assert server[2].startswith("i=0; until grep -qE ':1389 [0-9A-F]+:0000 0A ' /proc/net/tcp")
    assert server[3] == "timeout 120 nc -l -p 35001 </dev/null >/dev/null"
    assert server[4].startswith("i=0; until grep -qE ':1389 [0-9A-F]+:[0-9A-F]{4} 01 '")
    # Each host snapshots its counters as the warm-up begins and after the
    # last window, and sleeps through the windows; then the client stops
    # iperf, which reports, and its server ends with it.
    assert client[-5:] == ["g5_window_snap stream.w0", "sleep 0.0501", "g5_window_snap stream.w8",
                           "killall -INT iperf", "wait"]
    assert server[-3:] == ["g5_window_snap stream.w0", "wait", "g5_window_snap stream.w8"]
    assert "g5_window_snap()" in render(s, s.host("client"))


def test_qemu_snapshots_every_window_edge():
    s = specs.loads(windowed("qemu"))
    lines = _region(render(s, s.host("client")))
    assert not any("g5_windows_arm" in line for line in lines)
    assert lines[-10:] == ["sleep 0.01", "g5_window_snap stream.w0", "k=1", "while [ $k -le 8 ]; do",
                           "\tsleep 0.005", "\tg5_window_snap stream.w$k", "\tk=$((k + 1))", "done",
                           "killall -INT iperf", "wait"]
    assert windows.snapshot("stream", 3) == "stream.w3.proc"


def test_the_warm_up_counts_from_the_last_connection_of_several_streams():
    s = specs.loads(windowed(**{"duration_s = 0.055": "duration_s = 0.055\nstreams = 2"}))
    client = _region(render(s, s.host("client")))
    assert client[3].startswith("i=0; until [ \"$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | "
                                "grep -cE ' [0-9A-F]+:1389 01 ')\" -ge 2 ]")
