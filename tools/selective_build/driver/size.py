"""``etsb size``: where a binary's bytes go. The stripped size of the binary
(on a board, its flash: text + data, and its static RAM: data + bss, not the
file's size), split by the linker's map (every input section the link kept, attributed to
the object that brought it): kernels per operator, registration, runner, the
C and C++ libraries and start-up, and, when ExecuTorch's runtime is linked in
(``runtime = "static"``), its core and its prim ops apart, and the embedded
model; and the ExecuTorch runtime library and backend libraries it loads."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from selective_build.driver.layout import EXTERNAL_DIR, OBJ_NAME, OUT
from selective_build.driver.platforms import HOST, PLATFORM_DEFINE, PLATFORMS, strip_for
from selective_build.model.errors import UserError
from selective_build.model.records import record
from selective_build.readers.elf import elf_machine, memory_sizes

# Input sections that end up in the stripped file (bss takes no file space).
_KEPT = re.compile(r"^\.(text|rodata|data|eh_frame|gcc_except_table|init_array|fini_array|tdata)")
_SECTION = re.compile(r"^ (\.\S+)(?:\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S.*))?$")
_CONTINUATION = re.compile(r"^\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S.*)$")
_KERNEL_OBJECT = re.compile(r"op_(\w+?)\.(?:cpp|cc|cxx|c)\.o")
# Archive members compiled from the ExecuTorch tree's runtime (`@executorch//:runtime`,
# runtime = "static"): the driver names a member after its source path, `/` as `__`.
_TREE_RUNTIME_MEMBER = re.compile(r"\(" + re.escape(f"{EXTERNAL_DIR}/executorch/".replace("/", "__"))
                                  + r"(runtime|kernels__prim_ops|extension__data_loader|schema)__[^)]*\)$")
# The main of a binary: etsb's runner, its deploy runner, or a binary's own
# sources (compiled into a configuration's objects folder, not from a library).
_RUNNER_OBJECTS = ("runner.", "deploy.")
_OWN_OBJECT = re.compile("^" + re.escape(OUT) + r"/[^/()]+/" + re.escape(OBJ_NAME) + r"/[^()]*\.o$")
# A board's start-up code and platform layer (platforms/<board>/, linked whole).
_BOARD_MEMBER = re.compile(r"\(platforms__[^)]*\)$")

PART_RUNTIME = "ExecuTorch runtime core (static)"
PART_PRIM_OPS = "ExecuTorch prim ops (static)"
PART_KERNELS = "kernels"
PART_KERNEL_SUPPORT = "kernel utilities"
PART_REGISTRATION = "registration"
PART_RUNNER = "runner"
PART_MODEL = "embedded model and inputs"
PART_CXX = "C and C++ libraries, start-up"
PART_OTHER = "ELF headers, symbols, dynamic linking"
# On a board, what no input object holds of the flash: the vector table, the
# sections the linker makes (exception index), alignment.
PART_OTHER_BOARD = "vector table, linker-made sections, alignment"
# The parts in the order tables list them (kernels, with their files, first).
PARTS = (PART_KERNELS, PART_KERNEL_SUPPORT, PART_REGISTRATION, PART_RUNNER, PART_MODEL, PART_RUNTIME,
         PART_PRIM_OPS, PART_CXX, PART_OTHER)


@record
class BinarySize:
    """A binary's stripped size and its parts, in bytes (on a board, its flash and RAM
    too, and the parts are of its flash)."""

    label: str
    path: str
    stripped: int
    parts: Mapping[str, int]       # part -> bytes (kernels summed)
    operators: Mapping[str, int]   # kernel file (op_<name>) -> bytes
    runtime: int                   # libexecutorch.so, loaded at run time
    backends: Mapping[str, int] = MappingProxyType({})  # backend libraries it loads (and theirs), by file name
    flash: int = 0                 # a board's flash it takes: text + data (0: not a board binary)
    ram: int = 0                   # a board's RAM its static data takes: data + bss


def attribute(map_text: str) -> dict[str, int]:
    """Bytes per input object from a GNU ld map (only sections the link kept)."""
    sizes: dict[str, int] = {}
    lines = map_text.split("\n")
    try:
        start = lines.index("Linker script and memory map")
    except ValueError:
        start = 0
    pending = None
    for line in lines[start:]:
        if pending is not None:
            match = _CONTINUATION.match(line)
            if match:
                size, source = int(match.group(2), 16), match.group(3).strip()
                if size:
                    sizes[source] = sizes.get(source, 0) + size
            pending = None
            continue
        match = _SECTION.match(line)
        if not match or not _KEPT.match(match.group(1)):
            continue
        if match.group(2) is None:
            pending = match.group(1)  # a long section name: its numbers are on the next line
            continue
        size, source = int(match.group(3), 16), match.group(4).strip()
        if size and not source.startswith("0x"):
            sizes[source] = sizes.get(source, 0) + size
    return sizes


def _object_file_name(source: str) -> str:
    """The source file an input object was compiled from, without its directory:
    ``lib.a(pkg__sub__op_add.cpp.o)`` gives ``op_add.cpp.o`` (the driver names an
    archive member after its source path, with ``__`` for ``/``)."""
    member = source[source.rindex("(") + 1:-1] if source.endswith(")") else source
    return os.path.basename(member).rpartition("__")[2]


def classify(source: str) -> tuple[str, str | None]:
    """The part an input object belongs to, and its operator for kernels."""
    name = _object_file_name(source)
    kernel = _KERNEL_OBJECT.fullmatch(name)
    if kernel:
        return PART_KERNELS, kernel.group(1)
    if name.startswith("register_kernels."):
        return PART_REGISTRATION, None
    runtime = _TREE_RUNTIME_MEMBER.search(source)
    if runtime:
        return (PART_PRIM_OPS if runtime.group(1) == "kernels__prim_ops" else PART_RUNTIME), None
    if name.endswith("_deploy.cpp.o"):  # `etsb deploy-source`'s: the program and inputs as arrays
        return PART_MODEL, None
    if name.startswith(_RUNNER_OBJECTS) or _OWN_OBJECT.match(source):
        return PART_RUNNER, None
    # The toolchain's (absolute paths: crt*.o, newlib, libstdc++, libgcc on bare metal) and the board's.
    if source.startswith("/") or "crt" in name or _BOARD_MEMBER.search(source):
        return PART_CXX, None
    return PART_KERNEL_SUPPORT, None


def split(objects: Mapping[str, int], total: int, other: str = PART_OTHER) -> tuple[dict[str, int], dict[str, int]]:
    """Bytes per part (``classify``'s), and per operator for kernels, of the
    input objects' bytes (``attribute``'s); what no object holds of ``total``
    is ``other``."""
    parts: dict[str, int] = {}
    operators: dict[str, int] = {}
    for source, size in objects.items():
        part, operator = classify(source)
        parts[part] = parts.get(part, 0) + size
        if operator:
            operators[operator] = operators.get(operator, 0) + size
    parts[other] = max(0, total - sum(parts.values()))
    return parts, operators


def measure(root: str, binary: str, label: str, board: bool = False) -> BinarySize:
    """Measure ``binary`` (a path relative to ``root``) with its link map beside
    it; a ``board`` binary's parts are of its flash (what the program takes
    there, rather than the file's size)."""
    path = os.path.join(root, binary)
    with open(path + ".map", encoding="utf-8", errors="replace") as handle:
        objects = attribute(handle.read())
    with tempfile.TemporaryDirectory() as tmp:
        stripped_path = os.path.join(tmp, "stripped")
        subprocess.run([strip_for(elf_machine(path)), "-o", stripped_path, path], check=True)
        stripped = os.path.getsize(stripped_path)
    flash = ram = 0
    if board:
        text, data, bss = memory_sizes(path) or (0, 0, 0)
        flash, ram = text + data, data + bss
    parts, operators = split(objects, flash or stripped, PART_OTHER_BOARD if board else PART_OTHER)
    # A binary with the static runtime loads no libexecutorch.so.
    shared_runtime = _runtime_size() if "libexecutorch.so" in needed_libraries(path) else 0
    return BinarySize(label, binary, stripped, parts, operators, shared_runtime, _backend_sizes(path), flash, ram)


def _runtime_library_dir() -> str:
    from selective_build.driver.state import executorch_runtime

    root = executorch_runtime()
    return os.path.join(root, "lib") if root else ""


def _runtime_size() -> int:
    library = os.path.join(_runtime_library_dir(), "libexecutorch.so")
    return os.path.getsize(library) if os.path.exists(library) else 0


def needed_libraries(path: str) -> list[str]:
    """The shared libraries an ELF file names as needed (its DT_NEEDED entries)."""
    run = subprocess.run(["readelf", "-d", path], capture_output=True, text=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run.stdout) if run.returncode == 0 else []


def _backend_sizes(binary: str) -> dict[str, int]:
    """The runtime wheel's libraries other than libexecutorch.so that the binary
    loads (backends, and what they load in turn, such as the thread pool), by size."""
    directory = _runtime_library_dir()
    found: dict[str, int] = {}
    pending = [name for name in needed_libraries(binary) if name != "libexecutorch.so"]
    while pending:
        name = pending.pop()
        path = os.path.join(directory, name)
        if name in found or not name.startswith("libexecutorch") or not os.path.exists(path):
            continue
        found[name] = os.path.getsize(path)
        pending += [n for n in needed_libraries(path) if n != "libexecutorch.so"]
    return dict(sorted(found.items()))


def size_report(label: str, sizes: Sequence[BinarySize]) -> dict:
    """The measurements as plain data (for emit/size_report.py): the binary
    asked for, and per binary its stripped size, parts (those it has) and
    kernels per operator file, in bytes."""
    return {
        "label": label,
        "kernels_part": PART_KERNELS,
        "binaries": [{
            "label": size.label,
            "stripped": size.stripped,
            "parts": {part: size.parts[part] for part in PARTS if size.parts.get(part)},
            "operators": dict(sorted(size.operators.items())),
            "runtime": size.runtime,
            "backends": dict(size.backends),
            **({"flash": size.flash, "ram": size.ram} if size.flash else {}),
        } for size in sizes],
    }


def _kb(size: int) -> str:
    return f"{size / 1024:,.1f} KB"


def render_size_table(label: str, sizes: Sequence[BinarySize], top: int = 0) -> str:
    """The table ``etsb size`` prints: one column per binary (trimmed first,
    then the all-kernels one), one row per part and per operator."""
    trimmed = sizes[0]
    columns = [s.label for s in sizes]
    # (name, sizes, whether the ratio means something): an operator's file is
    # not comparable across binaries, since the linker keeps one copy of the
    # inline code files share and counts it in whichever file came first.
    board = bool(trimmed.flash)
    total = ("flash (text + data)", [s.flash for s in sizes]) if board else ("stripped binary", [s.stripped for s in sizes])
    rows: list[tuple[str, list[int], bool]] = [(*total, True)]
    kernels = [s.parts.get(PART_KERNELS, 0) for s in sizes]
    rows.append((f"  kernels ({len(trimmed.operators)} files op_*)", kernels, True))
    operators = sorted(trimmed.operators, key=lambda op: (-trimmed.operators[op], op))
    if top:
        operators = operators[:top]
    for op in operators:
        rows.append((f"    op_{op}", [s.operators.get(op, 0) for s in sizes], False))
    for part in (*PARTS[1:-1], PART_OTHER_BOARD if board else PART_OTHER):
        values = [s.parts.get(part, 0) for s in sizes]
        if any(values):  # a part no binary has (kernel utilities, for header-only kernels) is left out
            # What no object holds (headers, symbols, padding) has no ratio worth reading.
            rows.append((f"  {part}", values, part not in (PART_OTHER, PART_OTHER_BOARD)))
    if any(s.runtime for s in sizes):
        rows.append(("runtime: libexecutorch.so (shared)", [s.runtime for s in sizes], True))
    # The shared libraries it loads beside the runtime (a delegate's backend, the runtime's thread pool).
    for library in sorted({name for s in sizes for name in s.backends}):
        rows.append((f"also loads: {library} (shared)", [s.backends.get(library, 0) for s in sizes], True))
    if board:
        rows.append(("RAM, static (data + bss)", [s.ram for s in sizes], True))
    name_width = max(len(name) for name, _, _ in rows)
    widths = [max(len(c), 12) for c in columns]
    header = "  ".join([f"{'part':{name_width}}", *(f"{c:>{w}}" for c, w in zip(columns, widths))])
    if len(sizes) > 1:
        header += "  trimmed/all"
    measure = "a board's flash and RAM" if board else "stripped"
    lines = [f"size of {label} ({measure}; kernels, registration and runner from the link map)", header,
             "-" * len(header)]
    for name, values, comparable in rows:
        line = "  ".join([f"{name:{name_width}}", *(f"{_kb(v):>{w}}" for v, w in zip(values, widths))])
        if comparable and len(values) > 1 and values[1]:
            line += f"  {values[0] / values[1]:>10.1%}"
        lines.append(line)
    if operators and len(sizes) > 1:
        lines += ["", "An op_* row is the bytes its kernel file brought: inline code several kernels share is counted",
                  "in whichever file the linker kept it from, so a row may be larger here than with every kernel."]
    if board:  # the figures a board's memories are checked against, to the byte
        lines += ["", *(f"{s.label}: flash {s.flash:,} B, static RAM {s.ram:,} B" for s in sizes)]
    return "\n".join(lines)


def measure_binary(workspace, pattern: str) -> tuple[int, str, list[BinarySize]]:
    """Build the one binary ``pattern`` names in ``workspace`` (and its
    all-kernels companion, if it has one) and measure both: the exit status
    (1 if a build failed), the binary's label, and the measures."""
    status, plan = workspace.build([pattern], progress=sys.stderr)
    if status != 0:
        return 1, pattern, []
    if len(plan.targets) != 1:
        raise UserError(f"'{pattern}' names {len(plan.targets)} targets; name one binary")
    target = plan.targets[0]
    if not target.binary:
        raise UserError(f"{target.label} is a {target.rule}, not a binary")
    board = not PLATFORMS[workspace.defines.get(PLATFORM_DEFINE, HOST)].hosted
    measured = [measure(workspace.root, target.outputs[0], target.label, board)]
    if target.companion:
        # Every kernel of the yaml: minutes the first time, so its progress is shown (on stderr).
        print(f"etsb size: building {target.companion}, the same binary with every kernel, to compare with "
              "(minutes the first time, then a no-op)", file=sys.stderr, flush=True)
        status, companion_plan = workspace.build([target.companion], progress=sys.stderr)
        if status != 0:
            return 1, target.label, measured
        measured.append(measure(workspace.root, companion_plan.targets[0].outputs[0], target.companion, board))
    return 0, target.label, measured
