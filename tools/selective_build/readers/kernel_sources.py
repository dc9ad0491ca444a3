"""Where a kernel library's C++ kernels are defined, read from its sources.

A kernel yaml names each kernel by its C++ function (``kernel_name:
torch::executor::add_out``) but not the file that defines it, and a library
such as ExecuTorch's portable kernels holds one file per operator family plus
utility sources that those files need. To compile only what a selection
uses, etsb indexes the library once:

* the kernels each source defines: a function whose first parameter is a
  ``KernelRuntimeContext&`` (or ``RuntimeContext&``), or the first argument of
  a macro written at the start of a line (ExecuTorch's
  ``DEFINE_UNARY_UFUNC_REALHBF16(cos_out, std::cos)``);
* the utility sources each source needs: for every header it includes,
  transitively, the library source with the header's name (``util/
  broadcast_util.h`` -> ``util/broadcast_util.cpp``).

Includes are resolved as the compiler would with an include root holding
``executorch/`` -> the tree: ``#include <executorch/kernels/portable/cpu/
util/x.h>`` is ``<tree>/kernels/portable/cpu/util/x.h``. Headers outside the
tree (the runtime's, the standard library's) are not followed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from selective_build.model.errors import Location, Problem, UserError
from selective_build.model.records import record
from selective_build.readers.files import read_text

# A function definition or declaration taking the kernel context first.
_CONTEXT_FUNCTION = re.compile(r"\b(\w+)\s*\(\s*(?:[\w:]+::)?(?:Kernel)?RuntimeContext\s*&")
# A macro called at the start of a line with a name first: DEFINE_X(cos_out, ...).
_MACRO_DEFINITION = re.compile(r"^[A-Z][A-Z0-9_]*\(\s*([a-z_]\w*)\s*[,)]", re.MULTILINE)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.MULTILINE)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
# The include prefix that stands for the tree's root.
TREE_PREFIX = "executorch/"


@record
class KernelSources:
    """A kernel library's sources, indexed: which source defines each kernel
    function, and which other sources of the library each one needs."""

    root: str                                    # the tree, holding kernels/ (and the prefix's other folders)
    definitions: Mapping[str, tuple[str, ...]]   # function name -> sources defining it (relative to root)
    needs: Mapping[str, tuple[str, ...]]         # source -> library sources it needs, transitively

    def sources_for(self, kernels: Iterable[tuple[str, str, Location | None]]) -> tuple[str, ...]:
        """The sources to compile for ``kernels`` ((operator, C++ kernel name,
        where the yaml names it) triples): each kernel's defining source and
        what it needs, sorted. A kernel no source defines, or more than one
        does, is an error at the yaml entry, naming the operator."""
        chosen: set[str] = set()
        problems = []
        for operator, kernel_name, location in sorted(set(kernels), key=lambda k: (k[0], k[1])):
            function = kernel_name.rsplit("::", 1)[-1]
            found = self.definitions.get(function, ())
            if len(found) != 1:
                where = (f"no source of the kernel library in {self.root} defines it" if not found
                         else f"more than one source of {self.root} defines it: {', '.join(found)}")
                problems.append(Problem(f"operator {operator}: kernel '{kernel_name}': {where}",
                                        location or Location(self.root)))
                continue
            chosen.add(found[0])
            chosen.update(self.needs.get(found[0], ()))
        if problems:
            raise UserError.of(problems)
        return tuple(sorted(chosen))


def library_sources(root: str, folders: Iterable[str]) -> list[str]:
    """The ``.cpp`` files below ``folders`` of the tree ``root`` (relative to
    it), leaving out test folders: a kernel library's sources."""
    if not os.path.isdir(root):
        raise UserError("not a directory (the kernel library's source tree)", Location(root))
    found = []
    for folder in folders:
        top = os.path.join(root, folder)
        if not os.path.isdir(top):
            raise UserError(f"the tree has no folder '{folder}'", Location(root))
        for directory, subdirectories, files in os.walk(top):
            subdirectories[:] = sorted(d for d in subdirectories if d not in ("test", "tests"))
            found.extend(os.path.relpath(os.path.join(directory, name), root)
                         for name in sorted(files) if name.endswith(".cpp"))
    return sorted(found)


def index_kernel_sources(root: str, sources: Iterable[str]) -> KernelSources:
    """Index the library ``sources`` (paths relative to the tree ``root``)."""
    sources = sorted(set(sources))
    by_header = {os.path.splitext(source)[0] + ".h": source for source in sources}
    reader = _IncludeReader(root)
    definitions: dict[str, list[str]] = {}
    needs: dict[str, tuple[str, ...]] = {}
    for source in sources:
        text = reader.text(source)
        for function in _defined_functions(text):
            definitions.setdefault(function, []).append(source)
        headers = reader.closure(source)
        needs[source] = tuple(sorted(by_header[h] for h in headers if h in by_header and by_header[h] != source))
    # What a needed source needs is needed too (a utility source including another's header).
    for source in sources:
        pending, seen = list(needs[source]), set(needs[source])
        while pending:
            for more in needs[pending.pop()]:
                if more not in seen and more != source:
                    seen.add(more)
                    pending.append(more)
        needs[source] = tuple(sorted(seen))
    return KernelSources(root, {name: tuple(files) for name, files in sorted(definitions.items())}, needs)


def _defined_functions(text: str) -> list[str]:
    """The kernel functions a source defines (not those it only declares)."""
    names = []
    for match in _CONTEXT_FUNCTION.finditer(text):
        if _is_definition(text, match.end()):
            names.append(match.group(1))
    names.extend(match.group(1) for match in _MACRO_DEFINITION.finditer(text))
    return names


def _is_definition(text: str, start: int) -> bool:
    """Whether the parameter list opened before ``start`` is followed by a
    body (``{``) rather than ending a declaration (``;``)."""
    depth = 1
    for index in range(start, len(text)):
        char = text[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and char in "{;":
            return char == "{"
    return False


class _IncludeReader:
    """Reads the tree's sources and headers (comments removed), once each."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._texts: dict[str, str] = {}
        self._includes: dict[str, tuple[str, ...]] = {}

    def text(self, relative: str) -> str:
        if relative not in self._texts:
            self._texts[relative] = _COMMENT.sub("", read_text(os.path.join(self.root, relative), "kernel source"))
        return self._texts[relative]

    def includes(self, relative: str) -> tuple[str, ...]:
        """The tree headers ``relative`` includes directly (relative to the root)."""
        if relative not in self._includes:
            found = []
            for name in _INCLUDE.findall(self.text(relative)):
                if name.startswith(TREE_PREFIX):
                    header = name[len(TREE_PREFIX):]
                else:  # a quoted include, relative to the including file
                    header = os.path.normpath(os.path.join(os.path.dirname(relative), name))
                if os.path.isfile(os.path.join(self.root, header)):
                    found.append(header)
            self._includes[relative] = tuple(found)
        return self._includes[relative]

    def closure(self, relative: str) -> set[str]:
        """Every tree header ``relative`` includes, transitively."""
        seen: set[str] = set()
        pending = list(self.includes(relative))
        while pending:
            header = pending.pop()
            if header not in seen:
                seen.add(header)
                pending.extend(self.includes(header))
        return seen
