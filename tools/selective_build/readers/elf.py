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
