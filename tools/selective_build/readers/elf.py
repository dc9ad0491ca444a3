"""What etsb reads of an ELF file: the machine a binary is built for, and
the sizes of its memory image by kind (a board's flash and RAM)."""

from __future__ import annotations

# e_ident's size and the class/data bytes in it; e_machine follows e_type.
_MAGIC = b"\x7fELF"
_DATA = 5            # EI_DATA: 1 little-endian, 2 big-endian
_MACHINE = 18        # e_machine, two bytes, at the same place in 32- and 64-bit files


def elf_machine(path: str) -> int | None:
    """The ELF machine number (e_machine: 62 x86-64, 183 AArch64, 40 Arm) of
    the file at ``path``; None when it is not an ELF file."""
    with open(path, "rb") as handle:
        header = handle.read(_MACHINE + 2)
    if len(header) < _MACHINE + 2 or not header.startswith(_MAGIC) or header[_DATA] not in (1, 2):
        return None
    return int.from_bytes(header[_MACHINE:_MACHINE + 2], "little" if header[_DATA] == 1 else "big")


# Section header fields (ELF32 / ELF64 offsets): e_shoff, e_shentsize, e_shnum in the
# file header; sh_type, sh_flags, sh_size in each section header.
_CLASS = 4           # EI_CLASS: 1 32-bit, 2 64-bit
_SHOFF = {1: (32, 4), 2: (40, 8)}
_SHENTSIZE = {1: 46, 2: 58}
_SH_TYPE = 4
_SH_FLAGS = {1: (8, 4), 2: (8, 8)}
_SH_SIZE = {1: (20, 4), 2: (32, 8)}
_SHT_NOBITS = 8      # a section that takes memory but no file space (.bss)
_SHF_WRITE = 0x1
_SHF_ALLOC = 0x2


def memory_sizes(path: str) -> tuple[int, int, int] | None:
    """The bytes a program's memory image takes, as GNU size's Berkeley format
    counts them from the section headers: text (allocated, read-only: code,
    constants), data (allocated, writable, with contents: what start-up copies
    from flash) and bss (allocated, no contents); None when ``path`` is not an
    ELF file. On a board, flash holds text + data and RAM data + bss."""
    with open(path, "rb") as handle:
        image = handle.read()
    if not image.startswith(_MAGIC) or len(image) < 64 or image[_CLASS] not in (1, 2) or image[_DATA] not in (1, 2):
        return None
    bits, order = image[_CLASS], "little" if image[_DATA] == 1 else "big"

    def field(offset: int, size: int) -> int:
        return int.from_bytes(image[offset:offset + size], order)

    table = field(*_SHOFF[bits])
    entry, count = field(_SHENTSIZE[bits], 2), field(_SHENTSIZE[bits] + 2, 2)
    text = data = bss = 0
    for index in range(count):
        header = table + index * entry
        flags = field(header + _SH_FLAGS[bits][0], _SH_FLAGS[bits][1])
        if not flags & _SHF_ALLOC:
            continue
        size = field(header + _SH_SIZE[bits][0], _SH_SIZE[bits][1])
        if field(header + _SH_TYPE, 4) == _SHT_NOBITS:
            bss += size
        elif flags & _SHF_WRITE:
            data += size
        else:
            text += size
    return text, data, bss
