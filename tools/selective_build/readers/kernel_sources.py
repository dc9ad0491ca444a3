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

Only the library's own files are read, and an include is followed only to
one of them: relative to the including file, or from an include root
(``#include <executorch/kernels/portable/cpu/util/x.h>`` is the library file
ending in that path, as a compiler with a root whose ``executorch/`` is the
tree finds it). Headers outside the library (the runtime's, the standard
library's) are not followed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence

from selective_build.model.errors import Location, Problem, UserError
from selective_build.model.records import record
from selective_build.readers.cpp_text import declared_functions, defined_functions, names_no_switch, opened_namespaces
from selective_build.readers.cpp_text import switch_names as scanned_switch_names
from selective_build.readers.files import read_text

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.MULTILINE)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
# The place of a file in no named library: after every library.
_NO_LIBRARY = 1 << 30
# The include prefix that stands for the tree's root.
TREE_PREFIX = "executorch/"


@record
class KernelSources:
    """A kernel library's sources, indexed: which source defines each kernel
    function, and which other sources of the library each one needs."""

    root: str                                    # the tree, holding kernels/ (and the prefix's other folders)
    definitions: Mapping[str, tuple[str, ...]]   # function name -> sources defining it (relative to root)
    needs: Mapping[str, tuple[str, ...]]         # source -> library sources it needs, transitively
    switch_names: Mapping[str, tuple[str, ...]] = {}  # source -> names its dtype switches may take
    libraries: tuple[str, ...] = ()              # the libraries' names, first wins (none: one unnamed library)
    library_of: Mapping[str, int] = {}           # source -> its library's place in ``libraries``
    namespaces: Mapping[str, frozenset[str]] = {}  # source -> the outermost namespaces it opens
    unnamed: frozenset[str] = frozenset()        # sources naming no dtype switch (cpp_text.names_no_switch)

    def defining(self, kernel_name: str) -> tuple[str, ...]:
        """The sources defining the kernel ``kernel_name`` (a yaml's
        ``kernel_name``, namespace and all, or a bare function name) in the
        first library that defines it (a vendor library listed before its
        fallback wins). Of sources defining a function of that name, those
        opening the kernel's namespace are taken when there are some
        (``cortex_m::quantize_per_tensor_out`` is not etsb's
        ``torch::executor::quantize_per_tensor_out``)."""
        namespace, _, function = kernel_name.rpartition("::")
        found = self.definitions.get(function, ())
        outermost = namespace.split("::", 1)[0]
        if outermost:
            opening = tuple(source for source in found if outermost in self.namespaces.get(source, ()))
            found = opening or found
        return _first_library(found, self.library_of)

    def switch_names_for(self, kernels: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
        """For ``kernels`` ((operator, C++ kernel name) pairs), each name a
        dtype switch of their sources may take, with the operators whose
        kernels may run it: ExecuTorch's kernels do not always name a switch
        after its operator (``"op_embedding.out"``, ``__func__``, a shared
        pattern's own name)."""
        operators: dict[str, set[str]] = {}
        for operator, kernel_name in kernels:
            found = self.defining(kernel_name)
            if len(found) != 1:
                continue  # sources_for reports it
            for source in (found[0], *self.needs.get(found[0], ())):
                for name in self.switch_names.get(source, ()):
                    operators.setdefault(name, set()).add(operator)
        return {name: tuple(sorted(ops)) for name, ops in sorted(operators.items())}

    def may_share_namespace(self, sources: Sequence[str]) -> bool:
        """Whether functions of one name in ``sources`` may be the same function: the sources
        open a namespace in common, or one opens none this reading sees (then they may)."""
        opened = [self.namespaces.get(source, frozenset()) for source in sources]
        return not all(opened) or bool(frozenset.intersection(*opened))

    def serving(self, kernels: Iterable[tuple[str, str, Location | None]]) -> dict[str, tuple[str, ...]]:
        """The operators of ``kernels`` ((operator, C++ kernel name, place)
        triples) each named library serves (the first defining its kernel),
        by library name, in the libraries' order; unnamed or undefined ones left out."""
        served: dict[int, set[str]] = {}
        for operator, kernel_name, _ in kernels:
            found = self.defining(kernel_name)
            if len(found) == 1 and found[0] in self.library_of:
                served.setdefault(self.library_of[found[0]], set()).add(operator)
        return {self.libraries[place]: tuple(sorted(served[place])) for place in sorted(served)}

    def sources_for(self, kernels: Iterable[tuple[str, str, Location | None]],
                    undefined_ok: bool = False, notes: list[str] | None = None) -> tuple[str, ...]:
        """The sources to compile for ``kernels`` ((operator, C++ kernel name,
        where the yaml names it) triples): each kernel's defining source and
        what it needs, sorted. A kernel no source defines (unless
        ``undefined_ok``: another library, not indexed, may), or more than one
        of its library does, is an error at the yaml entry, naming the operator.

        Whole files are compiled, so a fallback library's source taken for one
        kernel may define another that an earlier library serves (the tree's
        ``op_mul.cpp``, taken for ``mul.Scalar_out``, defines ``mul_out`` too):
        the two could not be linked together. Then the earlier library's source
        is left out if the later one defines every kernel it was taken for
        (said in ``notes``); otherwise it is an error naming both."""
        picks: dict[str, list[tuple[str, str]]] = {}  # kernel source -> (operator, function) it serves
        problems = []
        for operator, kernel_name, location in sorted(set(kernels), key=lambda k: (k[0], k[1])):
            function = kernel_name.rsplit("::", 1)[-1]
            found = self.defining(kernel_name)
            if not found and undefined_ok:
                continue
            if len(found) != 1:
                if self.root != ".":
                    library = f"the kernel library in {self.root}"
                elif found and self.libraries and found[0] in self.library_of:
                    library = f"kernel library {self.libraries[self.library_of[found[0]]]}"
                else:
                    library = (f"its kernel libraries ({', '.join(self.libraries)})" if self.libraries
                               else f"its kernel libraries ({len(self.needs)} sources)")
                where = (f"no source of {library} defines it" if not found
                         else f"more than one source of {library} defines it: {', '.join(found)}")
                problems.append(Problem(f"operator {operator}: kernel '{kernel_name}': {where}",
                                        location or Location(self.root)))
                continue
            picks.setdefault(found[0], []).append((operator, function))
        if problems:
            raise UserError.of(problems)
        picks = self._without_shadowed(picks, notes)
        chosen = set(picks)
        for source in picks:
            chosen.update(self.needs.get(source, ()))
        clashes = self._clashes(chosen, {source: served[0][0] for source, served in picks.items()})
        if clashes:
            raise UserError.of(clashes)
        return tuple(sorted(chosen))

    def _without_shadowed(self, picks: dict[str, list[tuple[str, str]]],
                          notes: list[str] | None) -> dict[str, list[tuple[str, str]]]:
        """``picks`` less each source of an earlier library whose every kernel a
        picked source of a later library defines too (that one then serves them)."""
        picks = {source: list(served) for source, served in picks.items()}
        defined_in: dict[str, set[str]] = {}  # picked source -> the kernel functions it defines
        for function, sources in self.definitions.items():
            for source in sources:
                if source in picks:
                    defined_in.setdefault(source, set()).add(function)
        for source in sorted(picks, key=lambda s: (-self.library_of.get(s, _NO_LIBRARY), s)):
            place = self.library_of.get(source, _NO_LIBRARY)
            later = [other for other in sorted(picks) if other != source
                     and self.library_of.get(other, _NO_LIBRARY) > place]
            takers = {}
            for operator, function in picks[source]:
                taker = next((other for other in later if function in defined_in.get(other, ())
                              and self.may_share_namespace((other, source))), None)
                if taker is None:
                    break
                takers[(operator, function)] = taker
            else:
                if takers:
                    for (operator, function), taker in takers.items():
                        picks[taker].append((operator, function))
                        if notes is not None:
                            notes.append(f"{function} (for {operator}) comes from {taker}, not {source}: {taker} is "
                                         "compiled for another kernel and defines it too, and the two cannot be "
                                         "linked together")
                    del picks[source]
        return picks

    def _clashes(self, chosen: set[str], chosen_for: Mapping[str, str]) -> list[Problem]:
        """Kernel functions that two chosen sources of different libraries both define."""
        by_function: dict[str, list[str]] = {}
        for function, sources in self.definitions.items():
            for source in sources:
                if source in chosen:
                    by_function.setdefault(function, []).append(source)
        problems = []
        for function, sources in sorted(by_function.items()):
            places = {self.library_of.get(source, _NO_LIBRARY) for source in sources}
            # Functions of one name in different namespaces are different functions.
            if len(sources) > 1 and len(places) > 1 and self.may_share_namespace(sources):
                taken = ", ".join(f"{source} (for {chosen_for.get(source, 'a kernel it calls')})"
                                  for source in sorted(sources))
                problems.append(Problem(
                    f"kernel function '{function}' is defined by two sources the selection needs, from different "
                    f"kernel libraries: {taken}; they cannot be linked together: take these operators from one "
                    "library, or give the vendor's kernel a name of its own", Location(sources[0])))
        return problems


# What a header is, here and in the build rules that number a library's sources (rules/etsb.cmake).
HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".inc")


def is_header(path: str) -> bool:
    """Whether ``path`` is a header (included, never compiled on its own)."""
    return path.endswith(HEADER_SUFFIXES)


def compiled_sources(libraries: Iterable[tuple[str, Sequence[str]]]) -> list[list[str]]:
    """Each library's files that are compiled (its headers left out), in order."""
    return [[path for path in files if not is_header(path)] for _, files in libraries]


def library_sources(root: str, folders: Iterable[str]) -> list[str]:
    """The ``.cpp`` and ``.h`` files below ``folders`` of the tree ``root``
    (relative to it), leaving out test folders: a kernel library's files."""
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
                         for name in sorted(files) if name.endswith((".cpp", ".h")))
    return sorted(found)


def index_kernel_sources(root: str, files: Iterable[str],
                         libraries: Sequence[tuple[str, Sequence[str]]] = ()) -> KernelSources:
    """Index a kernel library's ``files``: its ``.cpp`` sources and the headers
    they may include (paths relative to ``root``; ``""``: to the current
    directory). Only these files are read, and an include is followed only to
    one of them, so the index depends on nothing undeclared.

    ``libraries`` ((name, files) pairs, in order of precedence) indexes several
    libraries at once, ``files`` being any not in one: their sources may
    include each other's headers and call each other's kernels, and a kernel
    that several define is taken from the first (a vendor library over the
    fallback it is merged with, as its yaml is)."""
    library_of = {}
    for place, (_, library_files) in enumerate(libraries):
        for path in library_files:
            library_of.setdefault(path, place)
    files = sorted(set(files) | set(library_of))
    sources = [f for f in files if not is_header(f)]
    reader = _IncludeReader(root, files)
    definitions: dict[str, list[str]] = {}
    for source in sources:
        for function in defined_functions(reader.text(source)):
            definitions.setdefault(function, []).append(source)
    implementing = _implementing(sources, reader, {s for found in definitions.values() for s in found})
    needs: dict[str, tuple[str, ...]] = {}
    for source in sources:
        headers = reader.closure(source)
        needed = {s for h in headers for s in implementing.get(h, ())}
        # A kernel it declares and calls (an optimized kernel falling back to a
        # portable one) needs the source defining it.
        for function in declared_functions(reader.text(source)):
            needed.update(_first_library(definitions.get(function, ()), library_of)[:1])
        needs[source] = tuple(sorted(needed - {source}))
    # What a needed source needs is needed too (a utility source including another's header).
    for source in sources:
        pending, seen = list(needs[source]), set(needs[source])
        while pending:
            for more in needs[pending.pop()]:
                if more not in seen and more != source:
                    seen.add(more)
                    pending.append(more)
        needs[source] = tuple(sorted(seen))
    switch_names = {source: scanned_switch_names(reader.text(source)) for source in sources}
    namespaces = {source: opened_namespaces(reader.text(source)) for source in sources}
    return KernelSources(root or ".", {name: tuple(found) for name, found in sorted(definitions.items())}, needs,
                         {source: names for source, names in switch_names.items() if names},
                         tuple(name for name, _ in libraries),
                         {source: place for source, place in sorted(library_of.items()) if source in needs},
                         {source: names for source, names in sorted(namespaces.items())},
                         frozenset(source for source in sources if names_no_switch(reader.text(source))))


def included_files(root: str, files: Iterable[str], sources: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """For each of ``sources``, the files of ``files`` (paths relative to
    ``root``) it includes, transitively and sorted, resolved as
    index_kernel_sources resolves them (each file read once)."""
    reader = _IncludeReader(root, files)
    return {source: tuple(sorted(reader.closure(source))) for source in sources}


def _first_library(found: Sequence[str], library_of: Mapping[str, int]) -> tuple[str, ...]:
    """Of the sources ``found``, those of the first library among them (files
    in no library come after every library)."""
    if len(found) < 2 or not library_of:
        return tuple(found)
    first = min(library_of.get(source, _NO_LIBRARY) for source in found)
    return tuple(source for source in found if library_of.get(source, _NO_LIBRARY) == first)


def _implementing(sources: list[str], reader: "_IncludeReader", kernel_sources: set[str]) -> dict[str, list[str]]:
    """The sources that implement each header: its namesake (``util/x.h`` ->
    ``util/x.cpp``); for a header with none, the utility sources (defining no
    kernel) beside it that include it (ExecuTorch's ``pattern/pattern.h`` is
    implemented by the ``pattern/*.cpp`` files). Too many only costs compile
    time (the linker takes what is used); too few would not link."""
    namesake = {os.path.splitext(source)[0] + ".h": [source] for source in sources}
    beside: dict[str, list[str]] = {}
    for source in sources:
        if source not in kernel_sources:
            for header in reader.includes(source):
                if header not in namesake and os.path.dirname(header) == os.path.dirname(source):
                    beside.setdefault(header, []).append(source)
    return {**beside, **namesake}


class _IncludeReader:
    """Reads a library's files (comments removed), once each, and resolves
    their includes to other files of the library."""

    def __init__(self, root: str, files: Iterable[str]) -> None:
        self.root = root
        self.files = set(files)
        # "a/b/c.h" -> every file ending in it at a "/" boundary, for includes
        # written from an include root rather than relative to the includer.
        self._by_suffix: dict[str, list[str]] = {}
        for path in sorted(self.files):
            parts = path.split("/")
            for start in range(len(parts)):
                self._by_suffix.setdefault("/".join(parts[start:]), []).append(path)
        self._texts: dict[str, str] = {}
        self._includes: dict[str, tuple[str, ...]] = {}

    def text(self, relative: str) -> str:
        if relative not in self._texts:
            self._texts[relative] = _COMMENT.sub("", read_text(os.path.join(self.root, relative), "kernel source"))
        return self._texts[relative]

    def resolve(self, includer: str, name: str) -> str | None:
        """The library file ``#include name`` in ``includer`` reads, if any:
        relative to the includer first, then from an include root (for
        ``executorch/...``: a root whose ``executorch/`` is the tree)."""
        beside = os.path.normpath(os.path.join(os.path.dirname(includer), name))
        if beside in self.files:
            return beside
        # The whole name first: with several libraries, "executorch/kernels/x.h"
        # is the tree's file, not another library's "kernels/x.h".
        matches = self._by_suffix.get(name, ())
        if len(matches) == 1:
            return matches[0]
        if name.startswith(TREE_PREFIX) and name[len(TREE_PREFIX):] in self.files:
            return name[len(TREE_PREFIX):]
        return None

    def includes(self, relative: str) -> tuple[str, ...]:
        """The library files ``relative`` includes directly."""
        if relative not in self._includes:
            found = (self.resolve(relative, name) for name in _INCLUDE.findall(self.text(relative)))
            self._includes[relative] = tuple(header for header in found if header is not None)
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
