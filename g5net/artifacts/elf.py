"""Just enough of ELF64 to know what a program needs at run time: its
interpreter (PT_INTERP) and its DT_NEEDED libraries. The image carries only
those libraries, not whole library packages."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from ..errors import ArtifactError

_MAGIC = b"\x7fELF"
_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NULL, _DT_NEEDED, _DT_STRTAB = 0, 1, 5


@dataclass(frozen=True)
class Dependencies:
    interpreter: str | None
    needed: tuple[str, ...]


def is_elf(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == _MAGIC


def dependencies(path: Path) -> Dependencies:
    data = path.read_bytes()
    if data[:4] != _MAGIC or data[4] != 2 or data[5] != 1:
        raise ArtifactError(f"{path}: not a little-endian 64-bit ELF file")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads: list[tuple[int, int, int]] = []  # (vaddr, offset, filesz)
    interpreter = None
    dynamic = None
    for i in range(phnum):
        p_type, _flags, offset, vaddr, _paddr, filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == _PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif p_type == _PT_INTERP:
            interpreter = data[offset:offset + filesz].rstrip(b"\0").decode()
        elif p_type == _PT_DYNAMIC:
            dynamic = (offset, filesz)
    if dynamic is None:
        return Dependencies(interpreter, ())

    def file_offset(vaddr: int) -> int:
        for start, offset, size in loads:
            if start <= vaddr < start + size:
                return offset + vaddr - start
        raise ArtifactError(f"{path}: dynamic section points outside the file ({vaddr:#x})")

    needed_offsets: list[int] = []
    strtab = None
    offset, size = dynamic
    for pos in range(offset, offset + size, 16):
        tag, value = struct.unpack_from("<qQ", data, pos)
        if tag == _DT_NULL:
            break
        if tag == _DT_NEEDED:
            needed_offsets.append(value)
        elif tag == _DT_STRTAB:
            strtab = file_offset(value)
    if not needed_offsets:
        return Dependencies(interpreter, ())
    if strtab is None:
        raise ArtifactError(f"{path}: DT_NEEDED entries without a string table")

    def string(at: int) -> str:
        end = data.index(b"\0", at)
        return data[at:end].decode()

    return Dependencies(interpreter, tuple(string(strtab + o) for o in needed_offsets))
