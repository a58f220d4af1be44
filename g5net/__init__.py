"""g5net: dual-host full-system network experiments on gem5 and QEMU."""

__version__ = "0.1.0"
