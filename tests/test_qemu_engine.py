"""The QEMU engine's command lines and limits, and the kernel command line
every engine builds, without booting anything."""

from pathlib import Path

import pytest

from g5net import spec as specmod
from g5net.engines import qemu
from g5net.engines.gem5.cmdline import gem5_cmdline
from g5net.guest.kernel_cmdline import build as kernel_cmdline
from g5net.errors import EngineError
from g5net.model import specs


def with_nics(text: str, count: int) -> specmod.Spec:
    return specs.loads(text.replace("mtu = 1500", f"mtu = 1500\ncount = {count}"))


def test_cmdline_names_the_nic_count_only_when_there_are_several(quickstart_text):
    one = specs.loads(quickstart_text)
    assert "g5net.nics" not in kernel_cmdline(one.host("client"), "qemu")
    two = with_nics(quickstart_text, 2)
    line = kernel_cmdline(two.host("client"), "qemu")
    assert "g5net.ip=10.0.0.2/24" in line.split() and "g5net.nics=2" in line.split()


def test_macs_differ_per_host_and_nic_and_nic0_keeps_its_own():
    assert (qemu.mac(0), qemu.mac(1)) == ("52:54:00:00:00:01", "52:54:00:00:00:02")
    macs = {qemu.mac(host, nic) for host in range(2) for nic in range(6)}
    assert len(macs) == 12


def test_both_hosts_need_the_same_nic_count(quickstart_text):
    qemu.check_spec(with_nics(quickstart_text, 6))
    mixed = quickstart_text.replace('role = "client"', 'role = "client"\nnic.count = 2')
    with pytest.raises(EngineError, match=r"^hosts.client.nic.count: .*same count "
                                          r"\(hosts.server.nic.count = 1, hosts.client.nic.count = 2\)"):
        qemu.check_spec(specs.loads(mixed))


def test_qemu_takes_many_hosts_with_one_nic_count(quickstart_text):
    qemu.check_spec(specs.loads(quickstart_text.replace('role = "client"', 'role = "client"\nreplicas = 8')))
    too_many = quickstart_text.replace('role = "client"', 'role = "client"\nreplicas = 64')
    with pytest.raises(EngineError, match=r"^hosts: the qemu engine runs at most 32 guests"):
        qemu.check_spec(specs.loads(too_many))
    mixed = quickstart_text + '[hosts.client2]\nrole = "client"\n[hosts.client2.nic]\ncount = 2\n'
    with pytest.raises(EngineError, match=r"^hosts\.client2\.nic\.count: .* all hosts need the same count"):
        qemu.check_spec(specs.loads(mixed))


def test_the_specs_kernel_args_come_last_on_every_engine(quickstart_text):
    s = specs.loads(quickstart_text.replace("[hosts.client]", '[hosts.client]\nkernel_args = ["idle=poll"]'))
    assert kernel_cmdline(s.host("client"), "qemu").split()[-1] == "idle=poll"
    # After gem5's own idle=halt: the kernel takes the last one.
    gem5 = gem5_cmdline(s.host("client"), 250).split()
    assert gem5[-1] == "idle=poll" and gem5.index("idle=halt") < len(gem5) - 1
    assert "idle=poll" not in kernel_cmdline(s.host("server"), "qemu")


def test_a_guest_that_took_its_job_disk_for_root_is_told_from_one_that_booted():
    consoles = Path(__file__).parent / "fixtures" / "qemu-disk-swap"
    assert qemu.disks_swapped((consoles / "console-client.log").read_text())
    assert not qemu.disks_swapped((consoles / "console-server.log").read_text())
