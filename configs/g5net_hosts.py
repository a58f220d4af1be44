"""gem5 config: the hosts of one g5net experiment and the Ethernet between them.

Run by the gem5 engine (g5net/engines/gem5/), never by hand:

    gem5.opt --outdir=RUN/m5out configs/g5net_hosts.py RUN/gem5-<phase>.json

The JSON (g5net/contract/gem5.py: RunConfig) holds the resolved
spec, the artifacts, each host's kernel command line, readfile and MAC
addresses, and the phase:

- boot: every host boots on `cpu.boot_model` without caches; once every host
  has executed `m5 checkpoint`, one checkpoint of the whole system is written
  to `checkpoint` and gem5 exits.
- measure: that checkpoint is restored with `cpu.model` and the spec's
  caches; gem5 exits once every host has executed `m5 exit`.
- describe: the measure phase's system is built and instantiated (gem5 writes
  config.ini and config.json), and gem5 exits without simulating.
- fast-forward (sampled windows): the boot checkpoint is restored as the hosts
  were booted; once the host that frames regions has executed `m5 checkpoint`
  (its flows are connected), a warm checkpoint is written into each of
  `checkpoints_out` at spec.sample_offsets_ms after it, and gem5 exits.
- window (sampled windows): one warm checkpoint is restored with the spec's
  caches on CPUs that start as `cpu.boot_model` and switch to `cpu.model`
  (SwitchingProcessor); after functional and detailed warming, the statistics
  are reset, the window simulated and the statistics dumped once.

Exit status (contract.ExitStatus): DONE, CONFIG_UNUSABLE, or HOSTS_UNFINISHED
with the reason in the report (contract.Report, <outdir>/contract.REPORT_NAME).
"""

import importlib
import sys

import m5
from gem5.components.memory.memory import ChanneledMemory
from gem5.components.processors.cpu_types import get_cpu_type_from_str
from gem5.resources.resource import DiskImageResource, KernelResource

from g5net.spec import sample_offsets_ms
from g5net.contract import catalogue
from g5net.contract import gem5 as contract

from g5net_components import params
from g5net_components.boards.nic_x86_board import NicX86Board
from g5net_components.cachehierarchies.cache_level import CacheLevel
from g5net_components.cachehierarchies.configurable_cache_hierarchy import (
    ConfigurableCacheHierarchy,
)
from g5net_components.cachehierarchies.uncached_hierarchy import UncachedHierarchy
from g5net_components.network.ethernet_fabric import EthernetFabric
from g5net_components.nics.igbe_params import IgbeParams
from g5net_components.nics.registry import placement_class
from g5net_components.processors.multithreaded_processor import MultithreadedProcessor
from g5net_components.processors.switching_processor import SwitchingProcessor
from g5net_components.simulation.exit_cause import ExitCause
from g5net_components.simulation.multi_host_simulation import MultiHostSimulation


def processor(cpu, phase: contract.Phase):
    """A CPU preset is defaults of the spec, which has resolved the shape."""
    if phase is contract.Phase.WINDOW:
        return SwitchingProcessor(get_cpu_type_from_str(cpu.boot_model),
                                  get_cpu_type_from_str(cpu.model), cpu.cores, cpu.threads_per_core)
    model = cpu.boot_model if phase in contract.AS_BOOTED else cpu.model
    return MultithreadedProcessor(cpu_type=get_cpu_type_from_str(model), cores=cpu.cores,
                                  threads_per_core=cpu.threads_per_core)


def cache_hierarchy(caches, phase: contract.Phase):
    if phase in contract.AS_BOOTED:
        return UncachedHierarchy()
    c = caches
    l2 = CacheLevel(c.l2_kib, c.l2_assoc, c.l2_latency_cycles, c.l2_mshrs) if c.l2_kib else None
    l3 = CacheLevel(c.l3_kib, c.l3_assoc, c.l3_latency_cycles, c.l3_mshrs) if c.l3_kib else None
    return ConfigurableCacheHierarchy(
        l1i=CacheLevel(c.l1i_kib, c.l1i_assoc, c.l1_latency_cycles, c.l1_mshrs),
        l1d=CacheLevel(c.l1d_kib, c.l1d_assoc, c.l1_latency_cycles, c.l1_mshrs),
        l2=l2, l2_shared=c.l2_shared, l3=l3)


# Channels interleave at cache-line granularity, as gem5's own multi-channel
# memories do.
INTERLEAVE_BYTES = 64


def memory(spec):
    """One DIMM of the memory type's gem5 DRAM interface (the catalogue names
    it) per channel."""
    dram = catalogue.MEMORY_TYPES[spec.memory_type]
    interface = getattr(importlib.import_module(dram.gem5_module), dram.gem5_class)
    return ChanneledMemory(interface, spec.memory_channels, INTERLEAVE_BYTES,
                           size=f"{spec.memory_mb}MiB")


def placement(nic, phase: contract.Phase):
    attach = contract.boot_nic_attach(nic.attach, phase)
    if phase in contract.AS_BOOTED:
        # The NIC's wiring holds no state: every boot builds the default one,
        # so that points differing only in their placement or link share a
        # checkpoint.
        nic = type(nic)()
    return placement_class(attach).from_spec(nic)


def board(run: params.RunParams, host) -> NicX86Board:
    """The board of one host (`host`: a contract.HostConfig)."""
    spec = run.host_spec(host)
    b = NicX86Board(
        clk_freq=f"{spec.cpu.clock_ghz:g}GHz",
        processor=processor(spec.cpu, run.phase),
        memory=memory(spec),
        cache_hierarchy=cache_hierarchy(spec.caches, run.phase),
        nics=[IgbeParams.from_spec(spec.nic, mac) for mac in host.macs],
        placement=placement(spec.nic, run.phase))
    # The whole command line is the engine's; X86Board formats it, so braces are escaped.
    b.set_kernel_disk_workload(
        kernel=KernelResource(local_path=host.kernel),
        disk_image=DiskImageResource(local_path=host.disk),
        readfile=host.readfile,
        kernel_args=[host.cmdline.replace("{", "{{").replace("}", "}}")])
    # `g5net console` attaches here; gem5 resolves the path against --outdir.
    b.pc.com_1.device.port = host.console_socket
    # No remote GDB listeners: concurrent runs would fight over their ports.
    b.workload.remote_gdb_port = 0
    return b


def fast_forward(sim: MultiHostSimulation, run: params.RunParams) -> bool:
    """The stream fast-forwarded into its warm checkpoints: one host's
    `m5 checkpoint` says its flows are connected (workloads/windows.py), and
    each checkpoint follows at its offset from then."""
    if not sim.run_until(ExitCause.CHECKPOINT, hosts=1):
        return False
    done_ms = 0.0
    offsets = sample_offsets_ms(run.spec.experiment)
    for k, (ms, directory) in enumerate(zip(offsets, run.config.checkpoints_out)):
        if not sim.run_for((ms - done_ms) / 1000, f"the fast-forward to warm checkpoint {k}"):
            return False
        done_ms = ms
        sim.checkpoint(directory)
    return True


def window(sim: MultiHostSimulation, e) -> bool:
    """One sampled window from its warm checkpoint: functional warming on the
    starting CPUs, the switch, detailed warming, then the window between a
    statistics reset and their one dump."""
    if not sim.run_for(e.functional_warming_ms / 1000, "functional warming"):
        return False
    sim.switch_processors()
    if not sim.run_for(e.detailed_warming_ms / 1000, "detailed warming"):
        return False
    m5.stats.reset()
    if not sim.run_for(e.window_ms / 1000, "the window"):
        return False
    m5.stats.dump()
    return True


def main(argv: list, simulation: type = MultiHostSimulation) -> int:
    """Build the system of the JSON named in `argv` and run its phase under
    `simulation` (a MultiHostSimulation)."""
    try:
        run = params.from_argv(argv)
    except params.ConfigError as e:
        print(f"g5net config: {e}", file=sys.stderr)
        return contract.ExitStatus.CONFIG_UNUSABLE
    boards = {h.board: board(run, h) for h in run.hosts}
    own = [run.spec.link_of(run.spec.host(h.name)) for h in run.hosts]
    fabric = EthernetFabric([b.nics() for b in boards.values()],
                            [(link.speed_gbps, link.delay_us) for link in own], run.spec.switched,
                            run.spec.link.switch_delay_us, run.config.pcap_dir)
    restores = run.phase not in (contract.Phase.BOOT, contract.Phase.DESCRIBE)
    sim = simulation(run, boards, fabric, restore_from=run.config.checkpoint if restores else None)
    sim.instantiate()
    if run.phase is contract.Phase.DESCRIBE:
        done = True
    elif run.phase is contract.Phase.BOOT:
        done = sim.run_until(ExitCause.CHECKPOINT)
        if done:
            sim.checkpoint(run.config.checkpoint)
    elif run.phase is contract.Phase.FAST_FORWARD:
        done = fast_forward(sim, run)
    elif run.phase is contract.Phase.WINDOW:
        done = window(sim, run.spec.experiment)
    else:
        done = sim.run_until(ExitCause.M5_EXIT)
    sim.report.completed = done
    sim.write_report()
    return contract.ExitStatus.DONE if done else contract.ExitStatus.HOSTS_UNFINISHED


if __name__ == "__m5_main__":
    sys.exit(int(main(sys.argv)))
