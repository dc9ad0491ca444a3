"""pick-smaller: of several links of one binary (the same objects, linked in
different ways), keep the smallest, with the files it needs: the smallest
once stripped, or on a board the one taking the least flash (text + data,
what the board holds; not the file's size)."""

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
    sizes = []
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
            sizes.append(os.path.getsize(stripped))
    return sizes


def flash_sizes(candidates: Sequence[str]) -> list[int]:
    """Each board binary's flash: text + data, from its section headers."""
    return [text + data for text, data, _ in (memory_sizes(c) or (0, 0, 0) for c in candidates)]


def pick_smaller(candidates: Sequence[str], output: str, link_map: bool, beside: Sequence[str]) -> str:
    """Copy the smallest candidate (stripped, or by flash for a board's) to
    ``output`` (the first wins ties), with its link map (``output.map``) when
    ``link_map``, and the files ``beside`` next to it; return the line saying
    what was chosen."""
    sizes = stripped_sizes(candidates)
    measure = "bytes stripped"
    if all(board_machine(elf_machine(candidate)) for candidate in candidates):
        sizes, measure = flash_sizes(candidates), "bytes of flash"
    chosen = min(range(len(sizes)), key=lambda i: (sizes[i], i))
    # Everything is read before anything is written: a missing file leaves no partial output.
    files = {output: read_bytes(candidates[chosen], "binary")}
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
