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


# Section header fields, by EI_CLASS (1: 32-bit, 2: 64-bit): (offset, size) of
# e_shoff in the file header; e_shentsize's offset (e_shnum follows it); and in
# each section header sh_type, sh_flags, sh_offset, sh_size and sh_link.
_CLASS = 4
_SHOFF = {1: (0x20, 4), 2: (0x28, 8)}
_SHENTSIZE = {1: 0x2E, 2: 0x3A}
_SH_TYPE = (4, 4)
_SH_FLAGS = {1: (8, 4), 2: (8, 8)}
_SH_OFFSET = {1: (0x10, 4), 2: (0x18, 8)}
_SH_SIZE = {1: (0x14, 4), 2: (0x20, 8)}
_SH_LINK = {1: (0x18, 4), 2: (0x28, 4)}
_SHT_DYNAMIC, _SHT_NOBITS = 6, 8   # the dynamic section; a section taking memory but no file space (.bss)
_SHF_WRITE, _SHF_ALLOC = 0x1, 0x2
_DT_NULL, _DT_NEEDED = 0, 1


def _sections(image: bytes) -> tuple[list[tuple[int, int, int, int, int]], int, str] | None:
    """The section headers of an ELF image as (type, flags, offset, size, link),
    with its class and byte order; None when it is not ELF or its headers run past its end."""
    if not image.startswith(_MAGIC) or len(image) < 64 or image[_CLASS] not in (1, 2) or image[_DATA] not in (1, 2):
        return None
    bits, order = image[_CLASS], "little" if image[_DATA] == 1 else "big"

    def field(offset: int, size: int) -> int:
        return int.from_bytes(image[offset:offset + size], order)

    table = field(*_SHOFF[bits])
    entry, count = field(_SHENTSIZE[bits], 2), field(_SHENTSIZE[bits] + 2, 2)
    if count and (entry == 0 or table + count * entry > len(image)):
        return None
    headers = []
    for index in range(count):
        at = table + index * entry
        headers.append(tuple(field(at + offset, size) for offset, size in
                             (_SH_TYPE, _SH_FLAGS[bits], _SH_OFFSET[bits], _SH_SIZE[bits], _SH_LINK[bits])))
    return headers, bits, order


def elf_needed(path: str) -> tuple[str, ...]:
    """The shared libraries the ELF file at ``path`` names as needed (its
    dynamic section's DT_NEEDED entries, in order): what the loader brings in
    beside it. Empty for a statically linked file or one that is not ELF."""
    with open(path, "rb") as handle:
        image = handle.read()
    found = _sections(image)
    if found is None:
        return ()
    headers, bits, order = found
    word = 8 if bits == 2 else 4
    needed = []
    for kind, _, offset, size, link in headers:
        if kind != _SHT_DYNAMIC or link >= len(headers):
            continue
        strings = headers[link][2]
        for at in range(offset, min(offset + size, len(image) - 2 * word + 1), 2 * word):
            tag, value = (int.from_bytes(image[at + i:at + i + word], order) for i in (0, word))
            if tag == _DT_NULL:
                break
            if tag == _DT_NEEDED:
                end = image.find(b"\0", strings + value)
                needed.append(image[strings + value:end].decode("utf-8", "replace"))
    return tuple(needed)


def memory_sizes(path: str) -> tuple[int, int, int] | None:
    """The bytes a program's memory image takes, as GNU size's Berkeley format
    counts them from the section headers: text (allocated, read-only: code,
    constants), data (allocated, writable, with contents: what start-up copies
    from flash) and bss (allocated, no contents); None when ``path`` is not an
    ELF file. On a board, flash holds text + data and RAM data + bss."""
    with open(path, "rb") as handle:
        found = _sections(handle.read())
    if found is None:
        return None
    text = data = bss = 0
    for kind, flags, _, size, _ in found[0]:
        if not flags & _SHF_ALLOC:
            continue
        if kind == _SHT_NOBITS:
            bss += size
        elif flags & _SHF_WRITE:
            data += size
        else:
            text += size
    return text, data, bss
