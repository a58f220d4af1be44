"""The config JSON of one gem5 phase for a spec (contract.RunConfig)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...spec import Spec
from ..base import Artifacts
from .boards import board_names, console_socket, macs
from .cmdline import gem5_cmdline, kernel_hz
from ...contract.gem5 import HostConfig, Phase, RunConfig


def host_cmdlines(spec: Spec, artifacts: Artifacts) -> dict[str, str]:
    """Each host's whole kernel command line (it depends on its kernel's HZ)."""
    return {h.name: gem5_cmdline(h, kernel_hz(artifacts.kernel_of(h))) for h in spec.hosts}


def run_config(phase: Phase, spec: Spec, artifacts: Artifacts, readfiles: dict[str, Path],
               checkpoint: Path, pcap_dir: Path | None = None,
               checkpoints_out: Sequence[Path] = ()) -> RunConfig:
    names = board_names(spec)
    cmdlines = host_cmdlines(spec, artifacts)
    hosts = tuple(
        HostConfig(name=h.name, board=names[h.name],
                   kernel=str(artifacts.kernel_of(h).vmlinux),
                   disk=str(artifacts.image.path), cmdline=cmdlines[h.name],
                   readfile=str(readfiles[h.name]), macs=tuple(macs(spec, h)),
                   console_socket=console_socket(names[h.name]))
        for h in spec.hosts)
    return RunConfig(phase=phase, spec=spec.to_dict(), hosts=hosts, checkpoint=str(checkpoint),
                     pcap_dir=str(pcap_dir) if pcap_dir else None,
                     checkpoints_out=tuple(str(c) for c in checkpoints_out))
