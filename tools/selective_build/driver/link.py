"""A binary's link line, from named parts: its objects, the libraries'
archives in link order (some whole), the prebuilt shared libraries, the
linker scripts, the link flags and the run path; and the order of a static
link (:func:`closure`). Pure: values in, a command out."""

from __future__ import annotations

import os
import shlex
from collections.abc import Collection, Iterable, Mapping

from selective_build.driver.analysis import Node, unique
from selective_build.driver.layout import DEVELOPMENT_RUNNER, TAG_BINARY, TAG_DEPLOY_RUNNER
from selective_build.model.records import record

# A prebuilt shared library in a cxx_library's srcs: linked by path, found at run time beside the binary.
SHARED_LIBRARY = ".so"
# Every link drops the sections nothing reaches (each function has its own, see cxx.BASE_CXXFLAGS).
_GC_SECTIONS = "-Wl,--gc-sections"


@record
class LinkLine:
    """What links one binary, part by part, in the order the linker reads them."""

    output: str                             # the binary
    objects: tuple[str, ...]                # its own objects
    archives: tuple[tuple[str, bool], ...]  # (archive, whole): whole ones keep every member
    shared_libraries: tuple[str, ...]       # prebuilt .so files, by path
    linker_scripts: tuple[str, ...]         # ld scripts naming libraries that register themselves
    linker_inputs: tuple[str, ...]          # files the scripts may name (inputs, not on the command line)
    flags: tuple[str, ...]                  # the libraries' and the binary's linkopts
    run_path: tuple[str, ...]               # the binary's run path, entry by entry
    # Archives linked only if needed: archive -> the file read in its place (the compiler driver's
    # @file), which names the archive or nothing (written when the selection is known).
    conditional: tuple[tuple[str, str], ...] = ()

    @property
    def map_file(self) -> str:
        """The link map the linker writes beside the binary."""
        return f"{self.output}.map"

    @property
    def inputs(self) -> tuple[str, ...]:
        """Every file the link reads."""
        instead = dict(self.conditional)
        return (*self.objects, *(instead.get(archive, archive) for archive, _ in self.archives),
                *self.shared_libraries,
                *self.linker_scripts, *self.linker_inputs)

    def command(self, cxx: str, toolchain_flags: Iterable[str] = ()) -> str:
        """The shell command linking the binary with the compiler driver ``cxx``
        and the platform's and configuration's link flags ``toolchain_flags``."""
        archives = []
        for archive, whole in self.archives:
            archives += ["-Wl,--whole-archive", archive, "-Wl,--no-whole-archive"] if whole else [archive]
        instead = dict(self.conditional)
        archives = [f"@{shlex.quote(instead[a])}" if a in instead else shlex.quote(a) for a in archives]
        run_path = ["-Wl,-rpath," + ":".join(self.run_path)] if self.run_path else []
        return " ".join([cxx, *_quoted(toolchain_flags), "-o", shlex.quote(self.output), *_quoted(self.objects),
                         *archives,
                         *_quoted(self.shared_libraries), *_without_as_needed(_quoted(self.linker_scripts)),
                         *_quoted(self.flags), *_quoted(run_path),
                         _GC_SECTIONS, f"-Wl,-Map={shlex.quote(self.output)}.map"])


def link_line(binary: str, objects: Iterable[str], libraries: list[Node], flags: Iterable[str],
              copies: tuple[str, ...] = (), conditional: Mapping[str, str] | None = None) -> LinkLine:
    """The link line of ``binary`` from its objects, the libraries it links
    (:func:`closure` order), its own link flags (after the libraries'), the
    folders that copies of it run from (see :func:`run_path`), and the
    archives linked only if needed, each with the file read in its place."""
    shared = unique(so for lib in libraries for so in lib.shared_libraries)
    linker_inputs = unique(path for lib in libraries for path in lib.linker_inputs)
    return LinkLine(
        output=binary,
        objects=tuple(objects),
        archives=tuple((lib.archive, lib.link_whole) for lib in libraries if lib.archive),
        shared_libraries=tuple(shared),
        linker_scripts=tuple(unique(script for lib in libraries for script in lib.linker_scripts)),
        linker_inputs=tuple(linker_inputs),
        flags=tuple(unique([lo for lib in libraries for lo in lib.linkopts] + list(flags))),
        run_path=run_path(binary, shared + [path for path in linker_inputs if path.endswith(SHARED_LIBRARY)],
                          copies),
        conditional=tuple(sorted((conditional or {}).items())))


def _quoted(words: Iterable[str]) -> list[str]:
    return [shlex.quote(word) for word in words]


def _without_as_needed(inputs: list[str]) -> list[str]:
    """Link inputs with ``--as-needed`` off (compilers such as Debian's turn it on):
    linker scripts name libraries that register themselves when loaded, which
    nothing refers to and which must be kept all the same."""
    return ["-Wl,--push-state,--no-as-needed", *inputs, "-Wl,--pop-state"] if inputs else []


def run_path(binary: str, shared_libraries: list[str], copies: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The entries of ``binary``'s run path: its own directory first (a copy
    of the binary finds the libraries copied beside it), then each shared
    library's directory relative to it, and relative to each folder of
    ``copies`` that a copy of it runs from (a dtype-selective pick). Relative
    to ``$ORIGIN`` only, so the binary is the same whatever the checkout's
    path, and runs after the output tree moves. None without shared libraries."""
    if not shared_libraries:
        return ()
    entries = ["$ORIGIN"]
    for here in (os.path.dirname(binary), *copies):
        entries += [f"$ORIGIN/{os.path.relpath(os.path.dirname(so), here)}"
                    for so in shared_libraries if os.path.dirname(so) != here]
    return tuple(unique(entries))


def closure(libraries: Iterable[Node]) -> list[Node]:
    """Every library reachable from ``libraries``, each before the ones it
    depends on (the order a static link needs), siblings in the order given."""
    order: list[Node] = []
    seen: set[int] = set()

    def visit(node: Node) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        for dep in reversed(node.libraries):
            visit(dep)
        order.append(node)

    for lib in reversed(list(libraries)):
        visit(lib)
    return order[::-1]


def runner_kind(nodes: Mapping[object, Node], label: object, main_names: Collection[str] = ()) -> str:
    """How the runner linked into the binary ``label`` (of ``nodes``, an
    analysed graph's) gets its program: the ``TAG_DEPLOY_RUNNER`` value of a
    library it links, else ``DEVELOPMENT_RUNNER``. A binary a genrule copies
    (``TAG_BINARY``: the smaller of two candidates) is its first source's."""
    from selective_build.driver.labels import parse_label

    node = nodes[label]
    if TAG_BINARY in node.target.tags:
        sources = [parse_label(text, node.target.package, main_names)
                   for text in node.target.attrs.get("srcs") or () if isinstance(text, str)]
        binaries = [source for source in sources if source in nodes and nodes[source].target.rule == "cxx_binary"]
        return runner_kind(nodes, binaries[0], main_names) if binaries else DEVELOPMENT_RUNNER
    for library in closure(node.libraries):
        for tag in library.target.tags:
            if tag.startswith(TAG_DEPLOY_RUNNER):
                return tag[len(TAG_DEPLOY_RUNNER):]
    return DEVELOPMENT_RUNNER
