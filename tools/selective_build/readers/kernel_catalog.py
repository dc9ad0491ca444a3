"""Read the kernel catalog (:mod:`selective_build.model.coverage`): the
operator names of etsb's own kernel yamls, under etsb's root, and those of
ExecuTorch's libraries from the package data ``executorch_ops.yaml``.

Only a build that lacks a kernel reads it, so nothing here is on the path of
a build that succeeds.
"""

from __future__ import annotations

import os
import re

from selective_build.model.coverage import ETSB, EXECUTORCH, KernelCatalog, KernelLibrary
from selective_build.model.errors import Location, UserError
from selective_build.model.memo import memoized

EXECUTORCH_OPS_YAML = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                                   "executorch_ops.yaml")
# etsb's libraries: directory under etsb's root, and its kernel yaml there.
ETSB_LIBRARIES = (
    ("kernels/portable", "functions.yaml"),
    ("kernels/quantized", "quantized.yaml"),
    ("kernels/llm", "functions.yaml"),
)
# A kernel yaml entry's operator: `- op: add.out` or `- func: ns::name.overload(...)`.
_ENTRY = re.compile(r"^- (op|func):\s*([\w:.]+)", re.MULTILINE)


def yaml_operator_names(text: str) -> frozenset:
    """The qualified operator names of a kernel yaml's entries (``aten::`` when none is given)."""
    return frozenset(name if "::" in name else f"aten::{name}" for _, name in _ENTRY.findall(text))


def parse_executorch_ops(text: str, path: str) -> KernelCatalog:
    """The libraries of an ``executorch_ops.yaml`` text (the generator's layout:
    ``version:``, then ``libraries:`` of ``  path:`` headings and ``  - name`` lines)."""
    version, libraries, current = "", [], None
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#") or line == "libraries:":
            continue
        if line.startswith("version: "):
            version = line.split(": ", 1)[1].strip()
        elif line.startswith("  - ") and current is not None:
            current[1].append(line[4:].strip())
        elif line.startswith("  ") and line.endswith(":") and not line.startswith("   "):
            current = (line.strip()[:-1], [])
            libraries.append(current)
        else:
            raise UserError(f"unexpected line {line!r} (regenerate it with scripts/gen_executorch_ops.py)",
                            Location(path, number))
    return KernelCatalog(version, tuple(KernelLibrary(EXECUTORCH, name, frozenset(ops)) for name, ops in libraries))


@memoized(spread=True)
def load_catalog(etsb_root: str | None = None) -> KernelCatalog:
    """etsb's libraries under ``etsb_root`` (default: etsb's own files; a
    library missing there is left out), then ExecuTorch's from the package
    data. Read once per process."""
    from selective_build.readers.etsb_root import REPO
    from selective_build.readers.files import read_text

    etsb_root = etsb_root or REPO
    ours, unread = [], []
    for directory, name in ETSB_LIBRARIES:
        path = os.path.join(etsb_root, directory, name)
        if os.path.isfile(path):
            ours.append(KernelLibrary(ETSB, directory, yaml_operator_names(read_text(path, "kernel yaml"))))
        else:
            unread.append(directory)
    theirs = parse_executorch_ops(read_text(EXECUTORCH_OPS_YAML, "package data file"), EXECUTORCH_OPS_YAML)
    return theirs.replace(libraries=tuple(ours) + theirs.libraries, unread=tuple(unread))
