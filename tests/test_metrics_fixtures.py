"""Real-format inputs for the metrics, profile, report and check tests.

- /proc snapshots are this machine's own, taken around real loopback traffic;
  its `lo` counters stand in for a guest NIC (`eth9`), the only thing renamed.
- Function profiles are printed with the kernel's own formatting
  (`function_stat_show` and `trace_print_graph_duration`, kernel/trace/).
- Run directories are written by the code under test (`run_metrics.compute`).
"""

from __future__ import annotations

import json
import socket
import threading
import tomllib
from pathlib import Path

from g5net.guest.protocol import BEGIN, END
from g5net.metrics import derive as run_metrics
from g5net.model import identity
from g5net.model.sweep import Point, Sweep, expand
from g5net.runners.plan import planned
from g5net.runs import record as run_record
from g5net.runs import rundir, sweepdir
from g5net.runs.rundir import RunDir
from g5net.runs.sweepdir import SweepDir
from g5net.spec import Spec
from g5net.model.specs import from_dict
from g5net.workloads import results as guest_results

REPO = Path(__file__).resolve().parents[1]
PROC = {"stat": "/proc/stat", "interrupts": "/proc/interrupts", "softirqs": "/proc/softirqs",
        "snmp": "/proc/net/snmp", "dev": "/proc/net/dev"}


def graph_duration(ns: int) -> str:
    """trace_print_graph_duration: microseconds, with as many of the 3 decimals as
    fit in 7 digits (snprintf into min(5, 8 - len) bytes), then " us " and padding."""
    usecs, rem = divmod(ns, 1000)
    out = str(usecs)
    width = len(out)
    if width < 7:
        decimals = f"{rem:03d}"[:min(5, 8 - width) - 1]
        out += "." + decimals
        width += len(decimals) + 1
    return out + " us " + " " * max(0, 8 - width)


def function_table(rows: list[tuple[str, int, int]], graph: bool = True) -> str:
    """A `trace_stat/function<cpu>` file: rows of (name, hits, total ns), as
    function_stat_show prints them (names cut to 30 characters)."""
    if graph:
        out = ("  Function                               Hit    Time            Avg             s^2\n"
               "  --------                               ---    ----            ---             ---\n")
    else:
        out = ("  Function                               Hit\n"
               "  --------                               ---\n")
    for name, hits, ns in rows:
        line = f"  {name[:30]:<30}  {hits:>10}"
        if graph:
            line += "    " + graph_duration(ns) + "    " + graph_duration(ns // hits) + "    " + graph_duration(0)
        out += line + "\n"
    return out


# A receive-heavy TCP profile: (function, hits, ns) per CPU.
PROFILE_ROWS = [
    ("e1000_clean", 4000, 9_000_000), ("e1000_clean_rx_irq", 4000, 7_500_000),
    ("e1000_intr", 4100, 1_200_000), ("napi_gro_receive", 90000, 6_000_000),
    ("__netif_receive_skb_core.constprop.0", 90000, 5_000_000), ("ip_rcv", 90000, 4_000_000),
    ("tcp_v4_rcv", 90000, 12_000_000), ("tcp_recvmsg_locked", 30000, 3_000_000),
    ("__napi_alloc_skb", 90000, 4_500_000), ("kmem_cache_free", 95000, 2_000_000),
    ("skb_release_data", 90000, 1_800_000), ("skb_copy_datagram_iter", 30000, 25_000_000),
    ("_copy_to_iter", 30000, 3_000_000), ("schedule", 2000, 2_500_000),
    ("_raw_spin_lock_irqsave", 200000, 3_000_000), ("do_idle", 500, 400_000_000),
]


def profile_items(name: str, cpus: int = 2) -> dict[str, str]:
    """`NAME.prof<cpu>` items as g5_profile_snap leaves them after a region, one table per CPU."""
    return {f"{name}.prof{c}": function_table([(f, h // cpus, ns // cpus) for f, h, ns in PROFILE_ROWS])
            for c in range(cpus)}


def _snapshot(tag: str) -> dict[str, str]:
    out = {}
    for key, path in PROC.items():
        text = Path(path).read_text()
        if key == "dev":
            text = text.replace("    lo:", "  eth9:")
        out[f"{tag}.{key}"] = text
    return out


def _traffic(nbytes: int) -> None:
    """Send nbytes over loopback TCP and wait until it has all arrived."""
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]

    def sink() -> None:
        conn, _ = srv.accept()
        with conn:
            while conn.recv(65536):
                pass

    t = threading.Thread(target=sink)
    t.start()
    with socket.create_connection(("127.0.0.1", port)) as c:
        chunk = b"x" * 16384
        for _ in range(nbytes // len(chunk)):
            c.sendall(chunk)
    t.join()
    srv.close()


def roi_items(name: str, nbytes: int = 96 << 20) -> dict[str, str]:
    """The items of one workload's region of interest: /proc before and after real traffic."""
    items = _snapshot(f"{name}.before")
    items[f"{name}.uptime.before"] = Path("/proc/uptime").read_text()
    _traffic(nbytes)
    items.update(_snapshot(f"{name}.after"))
    items[f"{name}.uptime.after"] = Path("/proc/uptime").read_text()
    return items


def iperf_csv(mbps: float, msg_bytes: int) -> str:
    """iperf 2 `-y C` report line (timestamp, addresses, id, interval, bytes, bits/s)."""
    bits = int(mbps * 1e6)
    return (f"20250101000000,10.0.0.2,40000,10.0.0.1,5001,3,0.0-3.0,{bits * 3 // 8},{bits}\n")


def spec_data(attach: str = "pcie", msg_bytes: int = 131072, streams: int = 1,
              profile: bool = True, hosts: tuple[str, str] = ("server", "client")) -> dict:
    """A spec as its TOML parses."""
    return {
        "experiment": {"name": "t"},
        "host": {"nic": {"attach": attach}},
        "hosts": {hosts[0]: {"role": "server"}, hosts[1]: {"role": "client"}},
        "workloads": {"stream": {"kind": "iperf", "msg_bytes": msg_bytes, "streams": streams,
                                 "profile": profile}},
    }


def spec(*args, **kwargs) -> Spec:
    return from_dict(spec_data(*args, **kwargs))


def netpipe_table(min_bytes: int, max_bytes: int) -> str:
    """NPtcp's -o file: bytes, Mbit/s, seconds (half a round trip) per line."""
    rows, n = [], min_bytes
    while n <= max_bytes:
        half_rtt = 25e-6 + n * 8 / 1e9
        rows.append(f"{n:>9d} {n * 8 / half_rtt / 1e6:>12.6f} {half_rtt:>15.9f}")
        n *= 2
    return "\n".join(rows) + "\n"


def quickstart_spec() -> Spec:
    """examples/quickstart.toml with its stream profiled."""
    data = tomllib.loads((REPO / "examples" / "quickstart.toml").read_text())
    data["workloads"]["stream"]["profile"] = True
    return from_dict(data)


def host_items(s: Spec, host: str, mbps: float) -> dict[str, str]:
    items: dict[str, str] = {}
    for w in s.workloads:
        items.update(roi_items(w.name, nbytes=96 << 20 if w.kind == "iperf" else 1 << 20))
        items[f"{w.name}.rc"] = "0\n"
        if w.kind == "iperf":
            items[f"{w.name}.out"] = iperf_csv(mbps, w.msg_bytes)
        elif s.host(host).role == "client":
            items[f"{w.name}.np"] = netpipe_table(w.min_bytes, w.max_bytes)
        if w.profile:
            items.update(profile_items(w.name))
    return items


def console(s: Spec, host: str, items: dict[str, str]) -> str:
    block = {"host": host, "role": s.host(host).role, "engine": "qemu", "job_rc": 0, "items": items}
    return f"G5NET-BOOTED host={host}\n{BEGIN}\n{json.dumps(block)}\n{END}\n"


def results(s: Spec, mbps: float = 900.0) -> dict:
    """results.json of a run of `s`, parsed by the guest parser from consoles."""
    return {h.name: guest_results.host_results(console(s, h.name, host_items(s, h.name, mbps)), s, h)
            for h in s.hosts}


def make_run(store: Path, s: Spec, mbps: float = 900.0, status: str = "done",
             ran_on: dict | None = None, run_id: str | None = None) -> RunDir:
    """A run committed into `store` by the product's writers, as `g5net run`
    commits one: run.json (run_record, with the `engine` and `artifacts` records
    of `ran_on`), results.json, and the metrics.json that run_metrics.compute writes.
    Its id: `run_id`, else its spec's digest."""
    run_id = run_id or identity.spec_digest(s)
    rd = rundir.begin(store, s.experiment.name, run_id)
    res = results(s, mbps)
    rd.write_json(rd.results_json, res)
    rd.write_json(rd.metrics_json, run_metrics.compute(s, res, rd))
    record = {**run_record.begin(run_id, s.experiment.name, s.to_dict()), **(ran_on or {})}
    rd.write_json(rd.run_json, run_record.finish(record, status, 1.0))
    return rundir.commit(rd, store, s.experiment.name, run_id)


def placement_sweep() -> Sweep:
    """NIC placement x (message size, connections), expanded by the sweep's own code."""
    return expand({**spec_data(), "sweep": {
        "host.nic.attach": ["pcie", "integrated"],
        "workloads.stream.msg_bytes": [1024, 16384, 65536],
        "workloads.stream.streams": [1, 4, 16],
        "zip": [["workloads.stream.msg_bytes", "workloads.stream.streams"]]}}, "test-sweep.toml")


def make_point_run(store: Path, p: Point) -> RunDir:
    """The point's run; the integrated NIC 5 % faster."""
    faster = 1.05 if p.params["host.nic.attach"] == "integrated" else 1.0
    return make_run(store, p.spec, p.params["workloads.stream.msg_bytes"] / 100 * faster)


def make_sweep(path: Path, ran: bool = True) -> Path:
    """A sweep directory as `g5net sweep --out PATH` leaves it, written by the
    sweep's own writers: the plan (sweep.json) and, where it `ran`, every point's
    committed run in runs/ and a run still being written there."""
    sd, s = SweepDir(path), placement_sweep()
    points = tuple(planned(p, identity.spec_digest(p.spec)) for p in s.points)
    sweepdir.write(sd, sweepdir.Plan("test-sweep.toml", s.parameters, points))
    if ran:
        for p in s.points:
            make_point_run(sd.store, p)
        rundir.begin(sd.store, "t", "f" * 64)  # a worker's half-written run
    return sd.path


def make_folder(path: Path) -> Path:
    """A folder of single runs (results/ after several `g5net run`), the same
    runs as make_sweep's points, and a run still being written."""
    for p in placement_sweep().points:
        make_point_run(path, p)
    rundir.begin(path, "t", "f" * 64)
    return path
