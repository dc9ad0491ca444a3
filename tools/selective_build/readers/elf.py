"""The ELF header field etsb reads: the machine a binary is built for."""

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


def elf_needed(path: str) -> tuple[str, ...]:
    """The shared libraries the ELF file at ``path`` names as needed (its
    dynamic section's DT_NEEDED entries, in order): what the loader brings in
    beside it. Empty for a statically linked file or one that is not ELF."""
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) < 52 or not data.startswith(_MAGIC) or data[4] not in (1, 2) or data[_DATA] not in (1, 2):
        return ()
    wide, order = data[4] == 2, "little" if data[_DATA] == 1 else "big"

    def number(offset: int, size: int) -> int:
        return int.from_bytes(data[offset:offset + size], order) if offset + size <= len(data) else 0

    word = 8 if wide else 4
    # e_shoff, then e_shentsize and e_shnum (after e_flags, e_ehsize, e_phentsize, e_phnum).
    table = number(0x28 if wide else 0x20, word)
    entry, count = number(0x3A if wide else 0x2E, 2), number(0x3C if wide else 0x30, 2)
    sections = []  # (type, offset, size, link) of each section header
    for index in range(count):
        at = table + index * entry
        if at + entry > len(data) or entry == 0:
            return ()
        sections.append((number(at + 4, 4), number(at + (0x18 if wide else 0x10), word),
                         number(at + (0x20 if wide else 0x14), word), number(at + (0x28 if wide else 0x18), 4)))
    needed = []
    for kind, offset, size, link in sections:
        if kind != 6 or link >= len(sections):  # SHT_DYNAMIC, its strings in section `link`
            continue
        strings = sections[link][1]
        for at in range(offset, offset + size, 2 * word):
            tag, value = number(at, word), number(at + word, word)
            if tag == 0:  # DT_NULL ends the section
                break
            if tag == 1:  # DT_NEEDED: an offset into the string table
                end = data.find(b"\0", strings + value)
                needed.append(data[strings + value:end].decode("utf-8", "replace"))
    return tuple(needed)
