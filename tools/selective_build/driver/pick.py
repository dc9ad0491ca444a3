"""pick-smaller: of several links of one binary (the same objects, linked in
different ways), keep the smallest, with the files it needs: the smallest
once stripped, kept stripped, or on a board the one taking the least flash
(text + data, what the board holds; not the file's size), said with its RAM
(data + bss)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence

from selective_build.driver.platforms import board_machine, strip_for
from selective_build.model.errors import Location, UserError
from selective_build.readers.elf import elf_machine, elf_needed, memory_sizes
from selective_build.readers.files import read_bytes, write_bytes_atomic


def stripped_sizes(candidates: Sequence[str]) -> list[int]:
    """Each candidate binary's size once stripped (by the strip of the
    platform it is built for); a candidate that is missing or that strip
    cannot read is a UserError at it."""
    return [len(image) for image in stripped_images(candidates)]


def stripped_images(candidates: Sequence[str]) -> list[bytes]:
    """Each candidate binary's bytes once stripped (see ``stripped_sizes``)."""
    images = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, candidate in enumerate(candidates):
            if not os.path.isfile(candidate):
                raise UserError("no such binary", Location(candidate))
            stripped = os.path.join(tmp, str(index))
            run = subprocess.run([strip_for(elf_machine(candidate)), "-o", stripped, candidate],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                raise UserError(f"not a binary strip can read: {run.stderr.strip().rpartition(': ')[2]}",
                                Location(candidate))
            images.append(read_bytes(stripped, "binary"))
    return images


def flash_sizes(candidates: Sequence[str]) -> list[int]:
    """Each board binary's flash: text + data, from its section headers."""
    return [text + data for text, data, _ in (memory_sizes(c) or (0, 0, 0) for c in candidates)]


def ram_size(binary: str) -> int:
    """A board binary's RAM: data + bss, from its section headers."""
    _, data, bss = memory_sizes(binary) or (0, 0, 0)
    return data + bss


def pick_smaller(candidates: Sequence[str], output: str, link_map: bool, beside: Sequence[str]) -> str:
    """Copy the smallest candidate to ``output`` (the first wins ties): by
    stripped size, and stripped, or on a board by flash, as linked; with its
    link map (``output.map``) when ``link_map``, and the files ``beside`` next
    to it; return the line saying what was chosen (a board's with its RAM)."""
    images = stripped_images(candidates)
    sizes = [len(image) for image in images]
    measure = "bytes stripped"
    board = all(board_machine(elf_machine(candidate)) for candidate in candidates)
    if board:
        sizes, measure = flash_sizes(candidates), "bytes of flash"
    chosen = min(range(len(sizes)), key=lambda i: (sizes[i], i))
    if board:
        measure += f", {ram_size(candidates[chosen]):,} of RAM"
    # Everything is read before anything is written: a missing file leaves no partial output.
    files = {output: read_bytes(candidates[chosen], "binary") if board else images[chosen]}
    if link_map:
        files[output + ".map"] = read_bytes(candidates[chosen] + ".map", "link map")
    for path in beside:
        files[os.path.join(os.path.dirname(output), os.path.basename(path))] = read_bytes(path, "file")
    for path in sorted(files, key=lambda p: p == output):  # the binary last
        write_bytes_atomic(path, files[path])
    os.chmod(output, 0o755)
    return (f"{output}: {os.path.basename(candidates[chosen])} ({sizes[chosen]:,} {measure}; "
            + ", ".join(f"{os.path.basename(c)} {s:,}" for c, s in zip(candidates, sizes)) + ")"
            + shared_note(candidates[chosen]))


def shared_note(binary: str) -> str:
    """What the line about a kept binary adds on the shared libraries it
    needs (its DT_NEEDED entries), which the loader brings in beside it and
    its size does not count: a binary with ExecuTorch linked in still loads
    the system's C and C++ libraries. Nothing for a fully static one."""
    needed = elf_needed(binary)
    if not needed:
        return "; statically linked"
    return "; loads shared, not counted: " + ", ".join(needed)


def shipped_size(binary: str) -> str:
    """What a binary built to ship takes: on a board its flash (text + data)
    and RAM (data + bss), elsewhere its size stripped, with the shared
    libraries it still loads."""
    if board_machine(elf_machine(binary)):
        return f"{flash_sizes([binary])[0]:,} bytes of flash, {ram_size(binary):,} of RAM"
    return f"{stripped_sizes([binary])[0]:,} bytes stripped" + shared_note(binary)
