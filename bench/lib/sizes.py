"""Sizes of binaries: stripped, by part as `etsb size` splits them (their link
maps), their code, and the ExecuTorch libraries they load, resolved as ldd does."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import lib.env  # noqa: F401  (puts tools/ on sys.path)
from lib.results import kb, markdown
from selective_build.driver import size as size_mod
from selective_build.driver.platforms import strip_for
from selective_build.readers.elf import elf_machine

RUNTIME_LIB = "libexecutorch.so"
PARTS = (size_mod.PART_KERNELS, size_mod.PART_KERNEL_SUPPORT, size_mod.PART_REGISTRATION, size_mod.PART_RUNNER)


def stripped(path: Path, tmp: Path) -> int:
    """Bytes of ``path`` once stripped by its platform's strip (a stripped copy in ``tmp``)."""
    copy = tmp / (path.name + ".stripped")
    subprocess.run([strip_for(elf_machine(str(path))), "-o", str(copy), str(path)], check=True)
    return os.stat(copy).st_size


def parts_by_map(binary: Path, total: int) -> dict[str, int]:
    """``binary``'s bytes by part as `etsb size` splits them (its link map
    beside it, ``binary``.map); what no object holds of ``total`` is the other part."""
    objects = size_mod.attribute(Path(f"{binary}.map").read_text(encoding="utf-8", errors="replace"))
    return size_mod.split(objects, total)[0]


def text_size(object_file: Path) -> int:
    """Bytes of code (.text) in an object file, from binutils' size."""
    out = subprocess.run(["size", str(object_file)], check=True, capture_output=True, text=True).stdout
    return int(out.splitlines()[1].split()[0])


def executorch_libraries(binary: Path) -> dict[str, Path]:
    """The ExecuTorch libraries ``binary`` loads (libexecutorch*), in the order the walk over NEEDED meets
    them, each resolved as ldd resolves it (exit when one does not)."""
    out = subprocess.run(["ldd", str(binary)], check=True, capture_output=True, text=True).stdout
    resolved = {name.strip(): rest.split("(")[0].strip()
                for name, rest in (line.split("=>", 1) for line in out.splitlines() if "=>" in line)}
    found, pending = {}, [binary]
    while pending:
        for name in size_mod.needed_libraries(str(pending.pop(0))):
            if name.startswith("libexecutorch") and name not in found:
                if resolved.get(name, "not found") == "not found":
                    raise SystemExit(f"{binary}: {name} does not resolve")
                found[name] = Path(resolved[name]).resolve()
                pending.append(found[name])
    return found


@dataclass(frozen=True)
class Size:
    """A binary by part (as `etsb size` splits it), and the ExecuTorch libraries it loads, stripped."""

    binary: size_mod.BinarySize
    runtime: int
    backends: int

    @property
    def total(self) -> int:
        """The executable and the libraries it loads."""
        return self.binary.stripped + self.runtime + self.backends

    @property
    def kernel_code(self) -> int:
        """Kernels, kernel utilities and registration: what selection trims."""
        return sum(self.binary.parts.get(p, 0) for p in PARTS[:3])


def libraries(binary: Path, tmp: Path, cache: dict) -> tuple[int, int, list[str]]:
    """Stripped bytes of the runtime and of the other ExecuTorch libraries ``binary`` loads, and their names."""
    found = executorch_libraries(binary)
    if RUNTIME_LIB not in found:
        raise SystemExit(f"{binary} does not load {RUNTIME_LIB}")
    for path in found.values():
        if path not in cache:
            cache[path] = stripped(path, tmp)
    others = [n for n in found if n != RUNTIME_LIB]
    return cache[found[RUNTIME_LIB]], sum(cache[found[n]] for n in others), others


def measure(workspace: Path, binary: Path, tmp: Path, cache: dict) -> Size:
    """``binary``'s Size (its link map beside it)."""
    relative = str(binary.relative_to(workspace))
    runtime, backends, _ = libraries(binary, tmp, cache)
    return Size(size_mod.measure(str(workspace), relative, relative), runtime, backends)


def yaml_operators(path: Path) -> int:
    """Operators of a kernel library's functions.yaml."""
    return len(re.findall(r"^- (?:op|func):", path.read_text(), re.MULTILINE))


def size_table(sizes: dict[str, Size], every: Size | None, candidates: dict[str, Size],
               base: dict[str, Size] | None, base_side: str, operators: dict[str, int]) -> str:
    """One side's binaries by part, against the all-kernels companion (the
    last row); ``operators``: each program's, and the library yaml's ("")."""
    parts = [p for p in PARTS if any(s.binary.parts.get(p, 0) for s in [*sizes.values(), *([every] if every else [])])]
    headers = ["program", "operators (program/library)", "kernel files (linked/all)", *(f"{p} KB" for p in parts),
               "rest KB", "stripped KB", "stripped/all-kernels", "kernel code/all-kernels",
               *(["dtype-restricted candidate KB", "kept form"] if candidates else []),
               "runtime KB", "backends KB", "total KB", *([f"total/{base_side}"] if base else [])]
    rows = []
    for name, size in [*sizes.items(), *([("all kernels (companion)", every)] if every else [])]:
        b, candidate = size.binary, candidates.get(name)
        row = [name, f"{operators.get(name, operators[''])}/{operators['']}",
               f"{len(b.operators)}/{len(every.binary.operators)}" if every else str(len(b.operators)),
               *(kb(b.parts.get(p, 0)) for p in parts), kb(b.stripped - sum(b.parts.get(p, 0) for p in parts)),
               kb(b.stripped), f"{b.stripped / every.binary.stripped:.2f}" if every else "-",
               f"{size.kernel_code / every.kernel_code:.2f}" if every else "-"]
        if candidates:
            row += ([kb(candidate.binary.stripped), "dtype" if candidate.binary.stripped == b.stripped else "op"]
                    if candidate else ["-", "-"])
        row += [kb(size.runtime), kb(size.backends) if size.backends else "-", kb(size.total)]
        if base:
            row.append(f"{size.total / base[name].total:.2f}x" if name in base else "-")
        rows.append(row)
    return markdown(headers, rows)
