"""Guest artifacts: kernels and the disk image, built from Debian packages and
the recipes in `kernels/` and `disk-images/`, cached under `cache_dir()`.

    kernel("smp") -> Kernel   bzImage (QEMU), vmlinux (gem5), System.map
    image() -> Image          raw ext4 root file system

Both build on first use (minutes for a kernel) unless `build=False`, which
raises ArtifactError instead; `g5net artifacts build` builds everything.
"""

from .cache import cache_dir
from .images import Image, image
from .kernels import BUILDS, VARIANTS, Kernel, for_host, kernel

__all__ = ["BUILDS", "VARIANTS", "Image", "Kernel", "cache_dir", "for_host", "image", "kernel"]
