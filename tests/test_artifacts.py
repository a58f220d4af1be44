"""g5net.artifacts: kernel and image builds, their cache and their errors.

The slow tests build for real. Kernels are built into the default cache
($G5NET_CACHE or ~/.cache/g5net, where `g5net artifacts build` puts them: the
first build takes many minutes); images, cheap to build, into temporary caches.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from g5net import artifacts
from g5net.artifacts import elf, host, images, kernels
from g5net.errors import ArtifactError
from g5net.model import specs


@pytest.fixture
def empty_cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("G5NET_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("G5NET_CACHE", str(tmp_path))
    assert artifacts.cache_dir() == tmp_path
    monkeypatch.delenv("G5NET_CACHE")
    assert artifacts.cache_dir() == Path.home() / ".cache" / "g5net"


def test_unknown_kernel_variant():
    with pytest.raises(ArtifactError, match="'numa' is not one of smp, up, smp-o3, up-o3"):
        artifacts.kernel("numa")


@pytest.mark.parametrize("variant", artifacts.BUILDS)
def test_lookup_without_build_names_the_command(empty_cache, variant):
    with pytest.raises(ArtifactError, match=f"g5net artifacts build --kernel {variant}"):
        artifacts.kernel(variant, build=False)


def test_image_lookup_without_build_names_the_command(empty_cache):
    with pytest.raises(ArtifactError, match="g5net artifacts build --image"):
        artifacts.image(build=False)


def test_hosts_on_o3_boot_their_variant_with_the_o3_patches_after_the_others(quickstart_text):
    client = specs.loads(quickstart_text).host("client")
    assert artifacts.for_host(client) == "smp"
    o3 = dataclasses.replace(client, cpu=dataclasses.replace(client.cpu, model="o3"))
    up = dataclasses.replace(o3, kernel="up")
    assert (artifacts.for_host(o3), artifacts.for_host(up)) == ("smp-o3", "up-o3")
    base = kernels.patch_paths("smp")
    assert base == kernels.patch_paths("up") and base
    o3_patches = kernels.patch_paths("smp-o3")
    assert o3_patches[:len(base)] == base and o3_patches[len(base):] and \
        all(p.parent == kernels.PATCHES_O3 for p in o3_patches[len(base):])
    # Other inputs, so another build, in a source tree of its own.
    version = "6.1.0-test"
    assert kernels.input_key(version, base, kernels.fragment_paths("smp")) != \
        kernels.input_key(version, o3_patches, kernels.fragment_paths("smp"))


def test_fragments_override_in_order():
    wanted = kernels.required_symbols(kernels.fragment_paths("up"))
    assert wanted["CONFIG_SMP"] is None
    assert wanted["CONFIG_E1000"] == "y"
    assert kernels.required_symbols(kernels.fragment_paths("smp"))["CONFIG_NR_CPUS"] == "64"


def test_config_check_names_every_dropped_symbol(tmp_path):
    frag = tmp_path / "frag.config"
    frag.write_text("CONFIG_E1000=y\nCONFIG_NR_CPUS=64\n# CONFIG_SMP is not set\nCONFIG_PCI=y\n")
    config = tmp_path / ".config"
    config.write_text("CONFIG_PCI=y\nCONFIG_NR_CPUS=8\nCONFIG_SMP=y\n# CONFIG_E1000 is not set\n")
    with pytest.raises(ArtifactError) as e:
        kernels.check_config(config, [frag])
    msg = str(e.value)
    assert "CONFIG_E1000=y wanted, resolved to unset" in msg
    assert "CONFIG_NR_CPUS=64 wanted, resolved to 8" in msg
    assert "CONFIG_SMP should be unset but is y" in msg
    assert "CONFIG_PCI" not in msg


def test_missing_host_package_is_named(tmp_path):
    listing = tmp_path / "host-packages.txt"
    listing.write_text("# package probe needed-by\n"
                       "make make kernel\n"
                       "g5net-nonesuch /nonexistent/tool kernel image\n"
                       "other-nonesuch no-such-command-g5net qemu\n")
    with pytest.raises(ArtifactError, match=r"g5net-nonesuch \(no /nonexistent/tool\)") as e:
        host.require("kernel", listing)
    assert "apt-get install g5net-nonesuch" in str(e.value)
    assert "other-nonesuch" not in str(e.value)
    host.require("tests", listing)


def test_host_packages_file_is_well_formed():
    packages = host.host_packages()
    names = {p.name for p in packages}
    assert {"linux-source-6.1", "e2fsprogs", "qemu-system-x86", "bison", "flex"} <= names
    # Every step the build requires packages for names some package.
    steps = ("kernel", "guest-tools", "image")
    assert all(any(step in p.needed_by for p in packages) for step in steps)
    for step in steps:
        host.require(step)


def test_elf_dependencies_of_a_host_program():
    deps = elf.dependencies(Path("/bin/sh").resolve())
    assert deps.interpreter == "/lib64/ld-linux-x86-64.so.2"
    assert "libc.so.6" in deps.needed


def test_recipe_errors_name_the_line(tmp_path):
    recipe = tmp_path / "packages.txt"
    recipe.write_text("iperf\n")
    with pytest.raises(ArtifactError, match=r"packages.txt:1: package iperf lists nothing"):
        images.read_packages(recipe)


def test_missing_debian_package_is_named(empty_cache, tmp_path):
    recipe = tmp_path / "recipe"
    recipe.mkdir()
    (recipe / "packages.txt").write_text("busybox-static bin/busybox\n"
                                         "g5net-no-such-package usr/bin/x\n")
    with pytest.raises(ArtifactError, match=r"packages.txt: Debian package g5net-no-such-package "
                                            r"not found"):
        images.image_from(recipe)


# --- real builds -----------------------------------------------------------


def debugfs_ls(image: Path, directory: str) -> dict[str, str]:
    """name -> octal mode of each entry of `directory` in `image`."""
    out = subprocess.run(["debugfs", "-R", f"ls -l {directory}", str(image)],
                         capture_output=True, text=True, check=True).stdout
    entries = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 8:
            entries[fields[-1]] = fields[1]
    return entries


@pytest.fixture(scope="module")
def built_image() -> artifacts.Image:
    return artifacts.image()


@pytest.mark.slow
def test_image_holds_the_workload_programs(built_image):
    img = built_image.path
    assert img.stat().st_size < 64 << 20, "the image should stay small"
    usr_bin = debugfs_ls(img, "/usr/bin")
    for program in ("iperf", "iperf3", "NPtcp"):
        assert usr_bin[program] == "100755", program
    assert usr_bin["awk"] == "120777", "busybox applets are symlinks"
    sbin = debugfs_ls(img, "/sbin")
    for program in ("g5init", "m5", "ethtool"):
        assert sbin[program] == "100755", program
    assert debugfs_ls(img, "/bin")["busybox"] == "100755"
    assert {"protocols", "services", "passwd"} <= set(debugfs_ls(img, "/etc"))
    assert {"lib.sh", "results.awk"} <= set(debugfs_ls(img, "/g5net"))
    libs = set(debugfs_ls(img, "/lib/x86_64-linux-gnu")) | set(
        debugfs_ls(img, "/usr/lib/x86_64-linux-gnu"))
    assert {"libc.so.6", "libstdc++.so.6", "libiperf.so.0", "libcrypto.so.3"} <= libs
    assert "ld-linux-x86-64.so.2" in debugfs_ls(img, "/lib64")
    for mount_point in ("proc", "sys", "dev", "tmp", "run"):
        assert debugfs_ls(img, "/")[mount_point] == "40755"


@pytest.mark.slow
def test_image_is_reproducible(tmp_path, monkeypatch, built_image):
    digests = []
    for name in ("a", "b"):
        monkeypatch.setenv("G5NET_CACHE", str(tmp_path / name))
        digests.append(artifacts.image(progress=lambda _m: None).digest)
    assert digests[0] == digests[1] == built_image.digest
    subprocess.run(["e2fsck", "-fn", str(built_image.path)], check=True, capture_output=True)


@pytest.mark.slow
def test_cached_image_comes_back_without_a_build(built_image):
    # build=False: found in the cache, or an error.
    assert artifacts.image(build=False) == built_image


@pytest.mark.slow
@pytest.mark.parametrize("variant", artifacts.BUILDS)
def test_kernel_build_outputs_and_config(variant):
    k = artifacts.kernel(variant)
    kernels.check_config(k.config, kernels.fragment_paths(variant.removesuffix(kernels.O3)))
    config = k.config.read_text()
    for symbol in ("CONFIG_64BIT", "CONFIG_PCI", "CONFIG_ACPI", "CONFIG_E1000", "CONFIG_ATA_PIIX",
                   "CONFIG_EXT4_FS", "CONFIG_SERIAL_8250_CONSOLE", "CONFIG_DEVTMPFS_MOUNT",
                   "CONFIG_INET", "CONFIG_PROC_SYSCTL", "CONFIG_PERF_EVENTS",
                   "CONFIG_FUNCTION_PROFILER", "CONFIG_BINFMT_SCRIPT", "CONFIG_EPOLL"):
        assert f"\n{symbol}=y\n" in config, symbol
    assert "\n# CONFIG_MODULES is not set\n" in config
    if variant.startswith("smp"):
        assert "\nCONFIG_SMP=y\n" in config and "\nCONFIG_NR_CPUS=64\n" in config
    else:
        assert "\n# CONFIG_SMP is not set\n" in config
    assert k.vmlinux.read_bytes()[:4] == b"\x7fELF"
    assert k.bzimage.read_bytes()[0x202:0x206] == b"HdrS"
    assert " T start_kernel\n" in k.system_map.read_text()
    # The O3 builds' idle loop holds the O3 patch's labels; the others' do not.
    assert (" T g5net_idle_serialize\n" in k.system_map.read_text()) == variant.endswith(kernels.O3)

    # A cached kernel comes back as it is: not built again (its vmlinux untouched).
    built_at = k.vmlinux.stat().st_mtime_ns
    assert artifacts.kernel(variant, build=False) == k
    assert artifacts.kernel(variant) == k
    assert k.vmlinux.stat().st_mtime_ns == built_at


@pytest.mark.slow
def test_failed_build_leaves_nothing_behind(empty_cache, tmp_path):
    recipe = tmp_path / "recipe"
    recipe.mkdir()
    (recipe / "packages.txt").write_text("busybox-static bin/busybox usr/bin/no-such-program\n")
    with pytest.raises(ArtifactError, match=r"busybox-static: 'usr/bin/no-such-program' "
                                            r"matches nothing"):
        images.image_from(recipe, progress=lambda _m: None)
    leftovers = [p.name for p in (empty_cache / "image").iterdir() if p.is_dir()]
    assert leftovers == [], "no image directory, finished or half-built"


@pytest.mark.slow
def test_concurrent_builds_build_once(empty_cache, built_image):
    code = ("from g5net.artifacts import image; "
            "print(image(progress=lambda m: print('progress:', m)).digest)")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    digests = {out.splitlines()[-1] for out in outs}
    assert digests == {built_image.digest}
    assert sum("assembling" in out for out in outs) == 1, outs


@pytest.mark.slow
def test_missing_library_names_program_and_library(empty_cache, tmp_path):
    recipe = tmp_path / "recipe"
    recipe.mkdir()
    (recipe / "packages.txt").write_text("busybox-static bin/busybox\niperf3 usr/bin/iperf3\n"
                                         "libc6 libs\n")
    with pytest.raises(ArtifactError, match=r"/usr/bin/iperf3 needs libiperf.so.0, which no "
                                            r"`libs` package of packages.txt ships \(libc6\)"):
        images.image_from(recipe, progress=lambda _m: None)


def test_source_tree_patches_and_refreshes_touched_files(empty_cache, tmp_path, monkeypatch):
    """A patch-set change replaces the tree in place; only files the old or new
    patches touch get fresh timestamps, so make rebuilds just those."""
    pristine = tmp_path / "linux"
    (pristine / "kernel").mkdir(parents=True)
    (pristine / "Makefile").write_text("all:\n")
    (pristine / "kernel" / "a.c").write_text("int a;\n")
    (pristine / "kernel" / "b.c").write_text("int b;\n")
    tarball = tmp_path / "linux.tar.xz"
    subprocess.run(["tar", "-cJf", str(tarball), "--mtime=@1000000000", "-C", str(tmp_path),
                    "linux"], check=True)
    patches = tmp_path / "patches"
    patches.mkdir()
    (patches / "a.patch").write_text("why\n--- a/kernel/a.c\n+++ b/kernel/a.c\n@@ -1 +1 @@\n"
                                     "-int a;\n+int a = 1;\n")
    monkeypatch.setattr(kernels, "SOURCE_TARBALL", tarball)
    monkeypatch.setattr(kernels, "PATCHES", patches)

    tree = kernels._source_tree("1.0", kernels.patch_paths(), False, lambda _m: None)
    assert (tree / "kernel" / "a.c").read_text() == "int a = 1;\n"
    assert (tree / "kernel" / "a.c").stat().st_mtime > 1000000000
    assert (tree / "kernel" / "b.c").stat().st_mtime == 1000000000
    assert kernels._source_tree("1.0", kernels.patch_paths(), False, lambda _m: None) == tree
    # The O3 builds' tree, with one more patch, is another: this one stays.
    (o3 := tmp_path / "patches-o3").mkdir()
    (o3 / "b.patch").write_text("why\n--- a/kernel/b.c\n+++ b/kernel/b.c\n@@ -1 +1 @@\n"
                                "-int b;\n+int b = 1;\n")
    monkeypatch.setattr(kernels, "PATCHES_O3", o3)
    o3_tree = kernels._source_tree("1.0", kernels.patch_paths("smp-o3"), True, lambda _m: None)
    assert o3_tree != tree and (o3_tree / "kernel" / "b.c").read_text() == "int b = 1;\n"
    assert (tree / "kernel" / "b.c").read_text() == "int b;\n"
    assert (o3_tree / "kernel" / "a.c").read_text() == "int a = 1;\n"

    (patches / "a.patch").unlink()
    tree = kernels._source_tree("1.0", kernels.patch_paths(), False, lambda _m: None)
    assert (tree / "kernel" / "a.c").read_text() == "int a;\n"
    assert (tree / "kernel" / "a.c").stat().st_mtime > 1000000000, "unpatched: rebuild it too"
    assert (tree / "kernel" / "b.c").stat().st_mtime == 1000000000


@pytest.mark.slow
def test_shipped_patches_apply_to_the_source(tmp_path):
    """Every patch of kernels/patches applies to Debian's linux-source-6.1, and
    those of kernels/patches-o3 after them."""
    version = kernels.source_version()
    tree = tmp_path / "linux-source-6.1"
    for patch in kernels.patch_paths("smp-o3"):
        files = kernels._patched_files(patch)
        assert files, f"{patch} names no file"
        # Each file from the tarball once: a later patch applies to what the earlier left.
        if missing := [f"linux-source-6.1/{f}" for f in files if not (tree / f).exists()]:
            subprocess.run(["tar", "-xf", str(kernels.SOURCE_TARBALL), "-C", str(tmp_path), *missing],
                           check=True)
        r = subprocess.run(["patch", "-p1", "--batch", "-i", str(patch)],
                           cwd=tree, capture_output=True, text=True)
        assert r.returncode == 0, f"{patch} does not apply to {version}: {r.stdout}"
