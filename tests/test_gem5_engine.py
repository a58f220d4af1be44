"""The gem5 engine without gem5: discovery, probing, the config JSON, checkpoint
keys, failure classification, and the boot/measure flow against a fake gem5
that behaves like configs/g5net_hosts.py from the outside."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from g5net import spec as specmod
from g5net.artifacts import Image, Kernel, kernels
from g5net.contract import gem5 as contract
from g5net.engines.base import Artifacts
from g5net.engines.gem5 import (
    boards,
    checkpoints,
    cmdline,
    config_files,
    engine,
    probe,
    process,
)
from g5net.engines.gem5.run_config import run_config
from g5net.errors import BootError, Gem5Error, SpecError
from g5net.guest import protocol
from g5net.model import specs, sweep
from g5net.runners import execute, plan
from g5net.runs.rundir import RunDir

REPO = Path(__file__).resolve().parents[1]
PROBE = {"version": "24.0.0.1", "isas": ["x86"], "protocol": "MESI_Two_Level",
         "classic_caches": True, "kvm_cpu": False}

# What the real config does, seen from outside: consoles, a report, a checkpoint.
FAKE_GEM5 = r'''
import json, os, sys
args = sys.argv[1:]
if any(a.endswith("g5net_probe.py") for a in args):
    print("G5NET-PROBE " + os.environ["FAKE_PROBE"])
    sys.exit(0)
outdir = [a.split("=", 1)[1] for a in args if a.startswith("--outdir=")][0]
os.makedirs(outdir, exist_ok=True)
cfg = json.load(open(args[-1]))
with open(os.environ["FAKE_CALLS"], "a") as f:
    f.write(cfg["phase"] + "\n")
fail = os.environ.get("FAKE_FAIL", "")
if fail == "guest-panic":
    import time
    for h in cfg["hosts"]:
        with open(os.path.join(outdir, h["board"] + ".pc.com_1.device"), "w") as c:
            c.write("G5NET-BOOTED host=%s\nKernel panic - not syncing: Attempted to kill init!\n" % h["name"])
    time.sleep(60)
if fail in ("stall", "frozen") and cfg["phase"] == "boot":
    import time
    for h in cfg["hosts"]:
        with open(os.path.join(outdir, h["board"] + ".pc.com_1.device"), "w") as c:
            c.write("Linux version 6.1\n")
    # CPU 0 of each host spins, CPU 1 halted for good; simulated time goes on
    # (stall) or stands still after 0.3 s (frozen).
    for step in range(1, 1200):
        sim = 0.1 * step if fail == "stall" else 0.3
        insts = {h["board"]: [1000 * step, 5] for h in cfg["hosts"]}
        with open(os.path.join(outdir, "g5net-progress.json.part"), "w") as f:
            json.dump({"sim_seconds": sim, "insts": insts}, f)
        os.replace(os.path.join(outdir, "g5net-progress.json.part"),
                   os.path.join(outdir, "g5net-progress.json"))
        time.sleep(0.05)
    sys.exit(0)
if fail == "panic":
    print("src/arch/x86/interrupts.cc:408: panic: Local APIC Trigger Mode registers are unimplemented.")
    sys.exit(134)
for h in cfg["hosts"]:
    with open(os.path.join(outdir, h["board"] + ".pc.com_1.device"), "w") as c:
        if cfg["phase"] == "boot":
            c.write("Linux version 6.1\nG5NET-BOOTED host=%s\n" % h["name"])
            c.write(open(h["readfile"]).read().splitlines()[0] + "\n")
        else:
            c.write("job: " + open(h["readfile"]).read().splitlines()[0] + "\n")
report = {"phase": cfg["phase"], "completed": fail != "stuck", "sim_seconds": 0.25,
          "reason": "waiting for 1 more 'checkpoint' event(s), got 'm5_exit instruction encountered' (code 0)" if fail == "stuck" else "",
          "exits": []}
json.dump(report, open(os.path.join(outdir, "g5net-gem5.json"), "w"))
if fail == "stuck":
    sys.exit(3)
if cfg["phase"] == "boot":
    os.makedirs(cfg["checkpoint"], exist_ok=True)
    open(os.path.join(cfg["checkpoint"], "m5.cpt"), "w").write("[root]\n")
'''


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("G5NET_CACHE", str(d))
    return d


@pytest.fixture
def fake_gem5(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: Path) -> Path:
    binary = tmp_path / "bin" / "gem5.opt"
    binary.parent.mkdir()
    binary.write_text(f"#!{sys.executable}\n{FAKE_GEM5}")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("FAKE_PROBE", json.dumps(PROBE))
    monkeypatch.setenv("FAKE_CALLS", str(tmp_path / "calls"))
    monkeypatch.setenv("G5NET_GEM5", str(binary))
    return binary


@pytest.fixture
def quickstart(quickstart_text: str) -> specmod.Spec:
    return specs.loads(quickstart_text).with_engine("gem5")


def fake_artifacts(tmp_path: Path) -> Artifacts:
    k = tmp_path / "art"
    builds = {v: Kernel(variant=v, bzimage=k / f"bzImage-{v}", vmlinux=k / f"vmlinux-{v}",
                        system_map=k / f"System.map-{v}", digest=f"{v}-digest")
              for v in kernels.BUILDS}
    return Artifacts(kernels=builds, image=Image(path=k / "disk.img", digest="image-digest"))


def override(spec: specmod.Spec, text: str) -> specmod.Spec:
    """The spec with TOML `text` merged into [host] and friends."""
    import tomllib
    extra = tomllib.loads(text)
    d = spec.to_dict()

    def merge(a: dict, b: dict) -> dict:
        for key, value in b.items():
            a[key] = merge(a.get(key, {}), value) if isinstance(value, dict) else value
        return a
    for table, values in extra.items():
        if table == "host":
            for h in d["hosts"].values():
                merge(h, values)
        else:
            merge(d.setdefault(table, {}), values)
    return specs.from_dict(d)


# ------------------------------------------------------------------ discovery

def test_missing_gem5_says_how_to_point_at_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    with pytest.raises(Gem5Error, match="G5NET_GEM5.*PATH") as e:
        probe.find_binary({"PATH": str(tmp_path)})
    assert "export G5NET_GEM5=/path/to/gem5/build/X86/gem5.opt" in str(e.value)


def test_env_var_naming_a_missing_file_is_an_error(tmp_path: Path):
    bad = tmp_path / "nowhere" / "gem5.opt"
    with pytest.raises(Gem5Error, match=f"G5NET_GEM5={bad}: not an executable file"):
        probe.find_binary({"G5NET_GEM5": str(bad), "PATH": ""})


def test_path_lookup_prefers_gem5_fast_and_says_why(tmp_path: Path):
    (tmp_path / "opt").mkdir()
    for name in ("gem5.fast", "gem5.opt", "opt/gem5.opt"):
        p = tmp_path / name
        p.write_text("#!/bin/sh\n")
        p.chmod(0o755)
    path, why = probe.choose_binary({"PATH": str(tmp_path)})
    assert path == tmp_path / "gem5.fast" and why.startswith("gem5.fast on PATH, preferred")
    assert probe.choose_binary({"PATH": str(tmp_path / "opt")}) == (
        tmp_path / "opt" / "gem5.opt", "gem5.opt on PATH (no gem5.fast there)")
    # One the user names is used as it is; a gem5.fast beside it is pointed out.
    path, why = probe.choose_binary({"G5NET_GEM5": str(tmp_path / "gem5.opt"), "PATH": ""})
    assert path == tmp_path / "gem5.opt"
    assert why.startswith("G5NET_GEM5 names it; a gem5.fast is beside it")


def test_probe_reads_the_build_and_remembers_it(fake_gem5: Path, tmp_path: Path):
    b = probe.probe(fake_gem5)
    assert (b.version, b.isas, b.protocol, b.problems()) == ("24.0.0.1", ("x86",), "MESI_Two_Level", [])
    os.environ["FAKE_PROBE"] = "not json"  # a second probe would fail: the answer is cached
    assert probe.probe(fake_gem5) == b


def test_probe_of_something_else_is_a_clear_error(tmp_path: Path, cache: Path):
    not_gem5 = tmp_path / "gem5.opt"
    not_gem5.write_text("#!/bin/sh\necho 'hello'\nexit 1\n")
    not_gem5.chmod(0o755)
    with pytest.raises(Gem5Error, match=r"is not a usable gem5 \(status 1.*hello.*G5NET_GEM5"):
        probe.probe(not_gem5)


def test_build_problems_name_what_is_missing():
    b = probe.Gem5Build(Path("/x"), "d", "24.0.0.1", ("arm",), "", True, False)
    problems = " ".join(b.problems())
    assert "not X86" in problems and "no Ruby protocol" in problems
    old = probe.Gem5Build(Path("/x"), "d", "v23.1.0.0", ("x86",), "MESI_Two_Level", True, False)
    assert old.problems() == ["is gem5 v23.1.0.0; g5net's configs are written for v24 "
                              "(build gem5 v24.0.0.1)"]


# ------------------------------------------------------------------ planning

def test_board_names_keep_good_host_names_and_fix_others(quickstart: specmod.Spec):
    d = quickstart.to_dict()
    d["hosts"] = {"server": d["hosts"]["server"], "client-1": d["hosts"]["client"],
                  "network": dict(d["hosts"]["client"], ip="10.0.0.9")}
    spec = specs.from_dict(d)
    assert boards.board_names(spec) == {"server": "server", "client-1": "host_client_1",
                                      "network": "host_network"}


def test_cmdline_adds_gem5_args_and_interrupt_throttling(quickstart: specmod.Spec):
    line = cmdline.gem5_cmdline(quickstart.host("client"))
    assert "g5net.engine=gem5" in line and "g5net.host=client" in line
    assert "tsc=reliable" in line
    assert "e1000.InterruptThrottleRate=100000" in line  # 10 us default
    off = override(quickstart, "[host.nic]\nintr_delay_ns = 0")
    assert "e1000.InterruptThrottleRate=0" in cmdline.gem5_cmdline(off.host("client"))
    three = override(quickstart, "[host.nic]\ncount = 3")
    assert "e1000.InterruptThrottleRate=100000,100000,100000 " in \
        cmdline.gem5_cmdline(three.host("client")) + " "
    # The delay timers only where they differ from the driver's defaults.
    assert "RxIntDelay" not in line and "TxAbsIntDelay" not in line
    timers = override(quickstart, "[host.nic]\nrx_int_delay = 32\nrx_abs_int_delay = 128\nintr_delay_ns = 125000")
    line = cmdline.gem5_cmdline(timers.host("client"))
    assert "e1000.RxIntDelay=32" in line and "e1000.RxAbsIntDelay=128" in line
    assert "e1000.InterruptThrottleRate=8000" in line and "TxIntDelay" not in line


@pytest.mark.parametrize("table, key", [
    ("intr_delay_ns = 5000", "intr_delay_ns: 5000 is out of range"),
    ("intr_delay_ns = 20000000", "intr_delay_ns: 20000000 is out of range"),
    ("rx_int_delay = 70000", "rx_int_delay: 70000 is out of range"),
    ("tx_abs_int_delay = -1", "tx_abs_int_delay: -1 is out of range"),
])
def test_moderation_the_driver_cannot_take_is_an_error(quickstart: specmod.Spec, table: str, key: str):
    with pytest.raises(SpecError, match=rf"nic\.{key}"):
        override(quickstart, f"[host.nic]\n{table}")


@pytest.mark.parametrize("table, message", [
    ("[host.nic]\npcie_lanes = 3", r"hosts.server.nic.pcie_lanes: 3 is not one of 1, 2, 4, 8, 16"),
    ("[host.nic]\npcie_gen = 5", r"hosts.server.nic.pcie_gen: 5 is out of range"),
    ("[host.nic]\npcie_latency_ns = -10", r"hosts.server.nic.pcie_latency_ns: -10"),
    ("[host.nic]\npcie_max_read_request = 300", r"hosts.server.nic.pcie_max_read_request: 300 is not one of 128"),
    ("[host.nic]\npcie_read_requests = 0", r"hosts.server.nic.pcie_read_requests: 0 is out of range"),
    ('[host]\nmemory_type = "ddr9"', r"hosts.server.memory_type: 'ddr9' is not one of 'ddr3_1600'"),
    ("[host]\nmemory_channels = 3", r"hosts.server.memory_channels: 3 is not one of 1, 2, 4, 8"),
])
def test_link_and_memory_the_model_cannot_take_are_errors(quickstart: specmod.Spec, table: str,
                                                           message: str):
    with pytest.raises(SpecError, match=message):
        override(quickstart, table)


def test_check_spec_rejects_what_gem5_cannot_build(quickstart: specmod.Spec):
    # Jumbo frames fit one receive buffer (kernels/patches/e1000-jumbo-single-buffer.patch).
    engine.check_spec(override(quickstart, "[host.nic]\nmtu = 16000"))
    with pytest.raises(Gem5Error, match=r"hosts.server.memory_mb: 4096 exceeds"):
        engine.check_spec(override(quickstart, "[host]\nmemory_mb = 4096"))
    with pytest.raises(Gem5Error, match=r"hosts.server.cpu.model: \"minor\" does not boot x86 .*#1206"):
        engine.check_spec(override(quickstart, '[host.cpu]\nmodel = "minor"'))
    with pytest.raises(SpecError, match=r"hosts.server.nic.dca: .*shared last-level cache"):
        override(quickstart, '[host.nic]\nattach = "integrated"\ndca = true\n'
                             '[host.caches]\nl2_shared = false')
    d = quickstart.to_dict()
    d["hosts"]["client"]["nic"]["count"] = 2
    with pytest.raises(Gem5Error, match=r"nic.count: .*same count"):
        engine.check_spec(specs.from_dict(d))


def _key(spec: specmod.Spec, tmp_path: Path, arts: Artifacts | None = None, gem5: str = "g",
         configs: str = "c") -> str:
    return engine.boot_checkpoint(spec, arts or fake_artifacts(tmp_path), gem5, configs).key


@pytest.mark.parametrize("change", [
    '[host.cpu]\nmodel = "atomic"',
    '[host.caches]\nl2_kib = 4096',
    '[host.nic]\nattach = "integrated"',
    '[host.nic]\nrx_fifo_kib = 64',
    '[link]\nspeed_gbps = 40',
    '[workloads.stream]\nmsg_bytes = 8192',
])
def test_post_boot_settings_share_a_checkpoint(quickstart: specmod.Spec, tmp_path: Path, change: str):
    assert _key(override(quickstart, change), tmp_path) == _key(quickstart, tmp_path)


@pytest.mark.parametrize("change", [
    '[host.nic]\nmtu = 2000',
    '[host]\nmemory_mb = 512',
    '[host.cpu]\ncores = 2',
    '[host.cpu]\nclock_ghz = 3.0',
    '[host.cpu]\nboot_model = "timing"',
    '[host.sysctl]\n"net.core.rmem_max" = 1048576',
    # Hosts on O3 boot a kernel of their own (configs/README.md, "O3 and the hlt").
    '[host.cpu]\nmodel = "o3"',
])
def test_boot_settings_need_their_own_checkpoint(quickstart: specmod.Spec, tmp_path: Path, change: str):
    assert _key(override(quickstart, change), tmp_path) != _key(quickstart, tmp_path)


def test_kernel_image_and_gem5_are_part_of_the_key(quickstart: specmod.Spec, tmp_path: Path):
    arts = fake_artifacts(tmp_path)
    base = _key(quickstart, tmp_path, arts)
    other_kernel = dataclasses.replace(arts, kernels={
        **arts.kernels, "smp": dataclasses.replace(arts.kernels["smp"], digest="new")})
    other_image = dataclasses.replace(arts, image=dataclasses.replace(arts.image, digest="new"))
    assert _key(quickstart, tmp_path, other_kernel) != base
    assert _key(quickstart, tmp_path, other_image) != base
    assert _key(quickstart, tmp_path, arts, gem5="g2") != base
    assert _key(quickstart, tmp_path, arts, configs="c2") != base


def _config_params():
    """configs/g5net_components/params.py: it imports only g5net.spec and the contract,
    so it is importable here."""
    path = REPO / "configs" / "g5net_components" / "params.py"
    loader = importlib.util.spec_from_file_location("g5net_config_params", path)
    module = importlib.util.module_from_spec(loader)
    sys.modules[loader.name] = module
    loader.loader.exec_module(module)
    return module


def test_config_json_is_what_the_gem5_config_reads(quickstart: specmod.Spec, tmp_path: Path):
    arts = fake_artifacts(tmp_path)
    readfiles = {h.name: tmp_path / f"job-{h.name}.sh" for h in quickstart.hosts}
    path = tmp_path / "gem5.json"
    path.write_text(run_config(contract.Phase.MEASURE, quickstart, arts, readfiles, tmp_path / "cpt",
                               tmp_path / "pcap").to_json())
    params = _config_params().load(str(path))
    assert params.phase.value == "measure"
    assert params.spec.to_dict() == quickstart.to_dict()
    client = params.hosts[1]
    assert client.name == client.board == "client"
    assert client.kernel == str(arts.kernels["smp"].vmlinux)
    assert client.readfile == str(readfiles["client"])
    assert client.macs == ("00:90:00:00:02:01",)
    assert client.cmdline == cmdline.gem5_cmdline(quickstart.host("client"))
    assert client.console_socket == "client.console"
    assert params.config.checkpoint == str(tmp_path / "cpt")
    assert params.config.pcap_dir == str(tmp_path / "pcap")


@pytest.mark.parametrize("phase", ["boot", "measure"])
def test_config_json_matches_golden(phase: str, tmp_path: Path):
    """What a config receives, as a golden file: a change shows in review.
    Regenerate with: G5NET_REGEN_GOLDEN=1 pytest tests/test_gem5_engine.py"""
    spec = specs.load(REPO / "examples" / "quickstart-gem5.toml")
    arts = fake_artifacts(Path("/artifacts"))
    readfiles = {h.name: Path(f"/run/job-{h.name}.sh") for h in spec.hosts}
    text = run_config(contract.Phase(phase), spec, arts, readfiles,
                      Path("/checkpoints/key/cpt")).to_json()
    golden = REPO / "tests" / "golden" / f"gem5-config-quickstart-{phase}.json"
    if os.environ.get("G5NET_REGEN_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text(), f"regenerate with G5NET_REGEN_GOLDEN=1 if intended ({golden})"


def test_config_reader_rejects_a_wrong_schema(tmp_path: Path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"schema": 99}))
    params = _config_params()
    with pytest.raises(params.ConfigError, match="schema 99"):
        params.load(str(path))
    good = json.loads((REPO / "tests" / "golden" / "gem5-config-quickstart-boot.json").read_text())
    del good["hosts"][0]["readfile"]
    path.write_text(json.dumps(good))
    with pytest.raises(params.ConfigError, match=r"hosts\[0\]: missing key 'readfile'"):
        params.load(str(path))


# ------------------------------------------------------------------ failures

def _result(tmp_path: Path, rc: int | None, log: str, reason: str = "") -> process.Gem5Result:
    p = tmp_path / "gem5.log"
    p.write_text(log)
    return process.Gem5Result(returncode=rc, wall_s=1.0, log=p, booted_s={},
                              report=contract.Report(phase="boot", reason=reason))


@pytest.mark.parametrize("rc,log,expected", [
    (0, "", None),
    (None, "", None),  # a timeout is reported as timed_out, not as a failure
    (134, "build/X86/arch/x86/interrupts.cc:408: panic: Local APIC Trigger Mode registers are "
          "unimplemented.\nMemory Usage: 1 KBytes\n",
     "gem5 panic: build/X86/arch/x86/interrupts.cc:408: panic: Local APIC Trigger Mode registers are unimplemented."),
    (1, "src/sim/sim_object.cc:10: fatal: Attempt to instantiate orphan node\n",
     "gem5 fatal: src/sim/sim_object.cc:10: fatal: Attempt to instantiate orphan node"),
    (-11, "", "gem5 died of SIGSEGV"),
    # As gem5.opt printed it, on an L1D that 8 threads shared (configs/README.md).
    (-6, "gem5.opt: src/mem/cache/base.cc:420: virtual void gem5::BaseCache::recvTimingReq("
         "gem5::PacketPtr): Assertion `blk && blk->isValid()' failed.\nProgram aborted at tick 9552\n",
     "gem5 failed an assertion: src/mem/cache/base.cc:420: Assertion `blk && blk->isValid()' failed."),
    (1, "Traceback (most recent call last):\n  File \"g5net_hosts.py\", line 1\n"
        "ConfigError: direct cache access needs a shared last-level cache\n",
     "gem5 config failed: ConfigError: direct cache access needs a shared last-level cache"),
    (1, "g5net_components.params.ConfigError: no LLC\n\nAt:\n  configs/g5net_hosts.py(9): main\n",
     "gem5 config failed: g5net_components.params.ConfigError: no LLC"),
    (3, "", "hosts did not finish: stuck"),
])
def test_classify_failure(tmp_path: Path, rc, log, expected):
    assert process.classify_failure(_result(tmp_path, rc, log, "stuck")) == expected


def test_a_process_that_dies_after_the_simulation_ended_leaves_its_results(tmp_path: Path):
    """A signal after every process wrote a completed report is a note, not a
    failure; before that, a failure that names the process."""
    p = tmp_path / "gem5.log"
    p.write_text("")
    ended = process.Gem5Result(returncode=-6, wall_s=1.0, log=p, booted_s={}, failing="client",
                               report=contract.Report(phase="measure", completed=True))
    assert process.classify_failure(ended) is None
    assert process.teardown_crash(ended) == ("gem5 process client died of SIGABRT after the "
                                             "simulation ended (its report written, completed): "
                                             "its results stand")
    cut = dataclasses.replace(ended, report=contract.Report(phase="measure", completed=False))
    assert process.teardown_crash(cut) is None
    assert process.classify_failure(cut) == "gem5 process client died of SIGABRT"
    assert process.teardown_crash(dataclasses.replace(ended, returncode=1)) is None


# ------------------------------------------------------------------ the flow

def _run(spec: specmod.Spec, tmp_path: Path, name: str):
    rd = RunDir(tmp_path / name)
    rd.path.mkdir()
    lines: list[str] = []
    out = engine.Gem5Engine().run(spec, fake_artifacts(tmp_path), rd, lines.append)
    return rd, out, lines


def test_second_run_restores_the_first_runs_checkpoint(fake_gem5: Path, tmp_path: Path,
                                                       quickstart: specmod.Spec):
    rd, out, _ = _run(quickstart, tmp_path, "a")
    assert out.failure is None and not out.timed_out
    assert set(out.boot_s) == {"server", "client"}
    console = rd.console("client").read_text()
    # The boot phase's console, then the measure phase's: the job came from readfile.
    assert "G5NET-BOOTED host=client" in console and protocol.STUB_MARK in console
    assert "job: # g5net job for host client" in console
    assert json.loads((rd.path / "gem5-measure.json").read_text())["phase"] == "measure"

    atomic = override(quickstart, '[host.cpu]\nmodel = "atomic"')
    rd2, out2, progress = _run(atomic, tmp_path, "b")
    assert out2.failure is None and out2.boot_s == {}
    assert any("restoring checkpoint" in line for line in progress)
    assert "G5NET-BOOTED host=server" in rd2.console("server").read_text()
    assert (tmp_path / "calls").read_text().split() == ["boot", "measure", "measure"]


def test_boot_that_never_reaches_the_checkpoint_is_a_boot_failure(
        fake_gem5: Path, tmp_path: Path, quickstart: specmod.Spec, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_FAIL", "stuck")
    rd, out, _ = _run(quickstart, tmp_path, "a")
    assert str(out.failure).startswith("boot: hosts did not finish: waiting for 1 more 'checkpoint'")
    assert isinstance(out.failure, BootError)
    assert not list((tmp_path / "cache" / "checkpoints").iterdir())  # nothing half-made kept
    assert (rd.path / "engine-boot.log").exists()


def test_gem5_panic_is_an_engine_failure_with_the_log_tail(
        fake_gem5: Path, tmp_path: Path, quickstart: specmod.Spec, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_FAIL", "panic")
    _, out, _ = _run(quickstart, tmp_path, "a")
    assert str(out.failure).startswith("gem5 panic: src/arch/x86/interrupts.cc:408: panic: Local APIC")
    assert str(out.failure).endswith("(while booting)")
    assert isinstance(out.failure, Gem5Error) and not isinstance(out.failure, BootError)
    assert "Trigger Mode" in out.engine_log_tail


def test_a_guest_panic_stops_gem5_early_and_the_console_says_why(
        fake_gem5: Path, tmp_path: Path, quickstart: specmod.Spec, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_FAIL", "guest-panic")
    monkeypatch.setattr(process, "PANIC_GRACE_S", 0.5)
    monkeypatch.setattr(process, "WATCH_S", 0.1)
    t0 = time.monotonic()
    _, out, _ = _run(quickstart, tmp_path, "a")
    assert time.monotonic() - t0 < 30
    assert out.failure is None and not out.timed_out
    assert "Kernel panic - not syncing" in out.consoles["server"]


def test_a_boot_whose_consoles_stand_still_while_time_goes_on_is_stopped_as_stalled(
        fake_gem5: Path, tmp_path: Path, quickstart: specmod.Spec, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_FAIL", "stall")
    monkeypatch.setattr(process, "WATCH_S", 0.1)
    t0 = time.monotonic()
    rd, out, _ = _run(quickstart, tmp_path, "a")
    # The fake advances 2 simulated s per host second: stopped after about 1 s, not its 60.
    assert time.monotonic() - t0 < 20
    assert str(out.failure).startswith("boot stalled: no console output for 2.")
    assert "CPUs halted: server 1; client 1;" in str(out.failure)
    assert "last console lines: server: 'Linux version 6.1'" in str(out.failure)
    assert str(out.failure).endswith("(while booting)") and not out.timed_out
    assert isinstance(out.failure, BootError)
    assert not list((tmp_path / "cache" / "checkpoints").iterdir())
    assert rd.console("client").read_text() == "Linux version 6.1\n"  # kept in the run


def test_a_boot_whose_simulated_time_stands_still_is_stopped_as_stalled(
        fake_gem5: Path, tmp_path: Path, quickstart: specmod.Spec, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_FAIL", "frozen")
    monkeypatch.setattr(process, "WATCH_S", 0.1)
    # The rule's host-time bound, shortened from its 600 s to keep the test quick.
    monkeypatch.setattr(engine, "BOOT_STALL", process.Stall(sim_s=2.0, wall_s=1.0))
    _, out, _ = _run(quickstart, tmp_path, "a")
    assert str(out.failure).startswith("boot stalled: simulated time stood still at 0.300 s")


def test_engine_digest_covers_the_binary_and_the_configs(fake_gem5: Path, monkeypatch):
    gem5 = engine.Gem5Engine()
    before = gem5.info().digest
    assert before != gem5.probe().digest
    monkeypatch.setattr(engine, "configs_digest", lambda: "changed")
    assert gem5.info().digest != before


def test_checkpoint_stub_checkpoints_once_then_runs_the_restored_job(tmp_path: Path):
    """The boot phase's job under a POSIX sh, with an `m5` that behaves like gem5:
    readfile gives the stub until the system is 'restored', then the real job."""
    # The guest's /tmp and /sys are its own; here the stub keeps the job in
    # tmp_path, and its NICs (none) too.
    _stub_in(tmp_path)
    (tmp_path / "job.sh").write_text("echo real job ran\n")
    m5 = _fake_m5(tmp_path)
    env = {"PATH": f"{m5.parent}:/usr/bin:/bin"}
    out = subprocess.run(["sh", "-c", f". {tmp_path}/stub.sh"], env=env, capture_output=True,
                         text=True, timeout=30, cwd=tmp_path)
    assert out.stdout == "real job ran\n", out.stderr
    assert (tmp_path / "calls").read_text().split() == ["checkpoint", "readfile", "readfile", "readfile"]


def test_checkpoint_stub_waits_for_every_nics_carrier_before_it_checkpoints(tmp_path: Path):
    """A checkpoint before a NIC's carrier is up restores a host whose first
    ARP request is dropped (guest/protocol.py): the stub checkpoints only once
    every NIC that is up reads carrier 1."""
    net = _stub_in(tmp_path)
    for nic, carrier in (("eth0", "1"), ("eth1", "0")):
        (net / nic).mkdir(parents=True)
        (net / nic / "carrier").write_text(carrier + "\n")
    (tmp_path / "job.sh").write_text("echo real job ran\n")
    m5 = _fake_m5(tmp_path)
    stub = subprocess.Popen(["sh", "-c", f". {tmp_path}/stub.sh"], env={"PATH": f"{m5.parent}:/usr/bin:/bin"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        time.sleep(1.0)
        assert stub.poll() is None and not (tmp_path / "calls").exists(), "checkpointed before eth1's carrier"
        (net / "eth1" / "carrier").write_text("1\n")
        out, err = stub.communicate(timeout=30)
    finally:
        stub.kill()
    assert out == "real job ran\n", err
    assert (tmp_path / "calls").read_text().split()[0] == "checkpoint"


def test_a_changed_boot_phase_job_comes_with_a_new_checkpoint_format():
    """The stub is not in the checkpoint key (checkpoints.boot_state), so a
    checkpoint made by an older stub would be restored under a newer one; only
    CHECKPOINT_FORMAT tells them apart. Each format's stubs are pinned here:
    change the stub, bump the format, and record the new digests."""
    stubs = {3: ("862349a196eb4062", "fc49ead31ea59e97")}
    now = tuple(hashlib.sha256(protocol.checkpoint_stub(p).encode()).hexdigest()[:16] for p in (False, True))
    assert checkpoints.CHECKPOINT_FORMAT in stubs, f"record format {checkpoints.CHECKPOINT_FORMAT}'s stubs {now}"
    assert stubs[checkpoints.CHECKPOINT_FORMAT] == now, (
        f"the boot-phase job changed without CHECKPOINT_FORMAT: bump it and record {now}")


def _stub_in(tmp_path: Path) -> Path:
    """The boot-phase job written to tmp_path/stub.sh with the guest's /tmp
    and /sys/class/net under tmp_path; the latter's path."""
    net = tmp_path / "sys-class-net"
    (tmp_path / "stub.sh").write_text(protocol.checkpoint_stub().replace("/tmp/", f"{tmp_path}/")
                                      .replace("/sys/class/net/", f"{net}/"))
    return net


def _fake_m5(tmp_path: Path) -> Path:
    """An `m5` that logs its calls to tmp_path/calls and, like gem5, reads out
    the stub until the system is 'restored' (the third readfile), then the job."""
    m5 = tmp_path / "bin" / "m5"
    m5.parent.mkdir()
    m5.write_text(f"""#!/bin/sh
case $1 in
checkpoint) echo checkpoint >>{tmp_path}/calls ;;
readfile) echo readfile >>{tmp_path}/calls
    if [ $(grep -c readfile {tmp_path}/calls) -ge 3 ]; then cat {tmp_path}/job.sh; else cat {tmp_path}/stub.sh; fi ;;
esac
""")
    m5.chmod(0o755)
    return m5


def test_lapic_timer_period_follows_the_clock_and_the_kernels_hz(quickstart: specmod.Spec, tmp_path):
    arts = fake_artifacts(tmp_path)
    (tmp_path / "art").mkdir(exist_ok=True)
    arts.kernels["smp"].config.write_text("CONFIG_SMP=y\nCONFIG_HZ=250\n")
    assert cmdline.kernel_hz(arts.kernels["smp"]) == 250
    # 2 GHz CPU, local APIC at clock / 16, 250 jiffies per second; the delay
    # loop counts TSC cycles: 8 M per jiffy, what the boot CPU prints
    # ("Calibrating delay loop (skipped) ... (lpj=8000000)").
    line = cmdline.gem5_cmdline(quickstart.host("client"), 250)
    assert "lapic_timer_period=500000" in line and "lpj=8000000" in line
    assert "lapic_timer_period" not in cmdline.gem5_cmdline(quickstart.host("client"))
    assert "lpj=" not in cmdline.gem5_cmdline(quickstart.host("client"))


def test_a_sweep_of_cpu_models_plans_the_o3_points_on_a_boot_of_their_own(
        fake_gem5: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """examples/sampled-sweep-gem5.toml: its O3 points boot the O3 kernel
    build, so they share a boot with each other and not with the timing ones."""
    def resolve(spec: specmod.Spec, progress, build: bool) -> Artifacts:
        """As execute.resolve_artifacts: the kernels the spec's hosts boot."""
        every = fake_artifacts(tmp_path)
        return dataclasses.replace(every, kernels={b: every.kernels[b] for b in map(kernels.for_host, spec.hosts)})
    monkeypatch.setattr(execute, "resolve_artifacts", resolve)
    path = REPO / "examples" / "sampled-sweep-gem5.toml"
    planned = plan.make(sweep.load(path), str(path), lambda _m: None, build=True)
    boots = {p.index: p.checkpoint for p in planned.points}
    models = {p.index: p.spec["hosts"]["server"]["cpu"]["model"] for p in planned.points}
    assert sorted(models.values()) == ["o3", "o3", "timing", "timing"]
    for model in ("o3", "timing"):
        assert len({boots[i] for i, m in models.items() if m == model}) == 1
    assert len(set(boots.values())) == 2


def test_results_of_o3_hosts_record_the_o3_patches_too(quickstart_text: str, quickstart: specmod.Spec):
    gem5 = engine.Gem5Engine()
    assert "kernel_patches_o3" not in gem5.provenance([quickstart])
    o3 = specs.loads(quickstart_text.replace("[host.cpu]\n", '[host.cpu]\nmodel = "o3"\n'))
    assert {h.cpu.model for h in o3.hosts} == {"o3"}
    got = gem5.provenance([quickstart, o3])
    assert got["kernel_patches_o3"] == kernels.current_o3_patches_digest() != got["kernel_patches"]
    assert gem5.changed_since(got) is None
    assert gem5.changed_since({**got, "kernel_patches_o3": "0" * 64}) == \
        "kernels/patches-o3/, which their O3 hosts' kernels had, has changed"


def test_checkpoints_ignore_only_existing_measure_only_configs():
    for name in contract.MEASURE_ONLY_CONFIGS:
        assert (config_files.CONFIGS / name).is_file(), f"MEASURE_ONLY_CONFIGS names a missing {name}"
    assert config_files.configs_digest(boot=True) != config_files.configs_digest()


@pytest.fixture
def unwinding():
    """Stop signals unwind (as in a runner's worker) for the test, as before after it."""
    import signal

    from g5net.machine import stop_signals
    saved = {sig: signal.getsignal(sig) for sig in stop_signals.STOP_SIGNALS}
    stop_signals.unwind_on_stop()
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def test_a_stop_after_the_simulation_ended_waits_until_the_run_is_written(
        fake_gem5: Path, tmp_path: Path, quickstart: specmod.Spec, monkeypatch: pytest.MonkeyPatch,
        unwinding):
    """SIGTERM (the local runner stopping, SLURM's time limit) that arrives once
    gem5 has exited, while the run's results are being derived, no longer
    throws the simulation away: the run is committed, then g5net unwinds."""
    import signal

    from g5net.machine import stop_signals
    from g5net.metrics import derive
    from g5net.runners import execute

    compute = derive.compute

    def stopped_meanwhile(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)  # the handler has run: the stop is held, not raised
        return compute(*args, **kwargs)

    monkeypatch.setattr(derive, "compute", stopped_meanwhile)
    store = tmp_path / "runs"
    with pytest.raises(stop_signals.Stopped) as e:
        execute.execute(quickstart, store, progress=lambda line: None, arts=fake_artifacts(tmp_path))
    assert e.value.signum == signal.SIGTERM
    (run,) = store.iterdir()
    assert not run.name.startswith(".") and json.loads((run / "run.json").read_text())["status"]
    # Holding ends with the run: the next one's simulation is stoppable again.
    assert stop_signals._held is None


def test_a_stop_after_a_boot_was_simulated_waits_until_its_checkpoint_is_published(
        fake_gem5: Path, tmp_path: Path, quickstart: specmod.Spec, monkeypatch: pytest.MonkeyPatch,
        unwinding):
    """A boot is minutes of simulation: a SIGTERM that arrives once gem5 has
    written it, while its consoles are read, unwinds after the checkpoint is
    published, and the next run restores it."""
    import signal

    from g5net.machine import stop_signals

    read = engine.read_text
    sent: list[int] = []

    def stopped_meanwhile(path):
        if not sent:
            sent.append(signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)  # the handler has run: the stop is held, not raised
        return read(path)

    monkeypatch.setattr(engine, "read_text", stopped_meanwhile)
    with pytest.raises(stop_signals.Stopped):
        _run(quickstart, tmp_path, "a")
    assert engine.Gem5Engine().checkpoint(quickstart, fake_artifacts(tmp_path)).exists()
    monkeypatch.setattr(engine, "read_text", read)
    _, out, progress = _run(quickstart, tmp_path, "b")
    assert out.failure is None and out.boot_s == {}
    assert any("restoring checkpoint" in line for line in progress)
