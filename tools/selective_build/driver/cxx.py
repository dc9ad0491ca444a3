"""Analysis of C++ targets: cxx_library (compile, through a precompiled
header where its tags name one (driver/pch.py), archive, or take only the
objects a generated list selects) and cxx_binary (compile and link, with a
check that no operator is registered twice). The link line itself is
:mod:`~selective_build.driver.link`'s; the program choosing the selected
objects at build time is ``dyndep.awk`` beside this module."""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Mapping

from selective_build.driver.analysis import Action, Analysis, Config, Node, unique
from selective_build.driver.attr_values import strings
from selective_build.driver.evaluate import Target
from selective_build.driver.genrule import expand, expand_flag
from selective_build.driver.labels import Label
from selective_build.driver.layout import TAG_BUILT_FOR, TAG_COPIED_TO, TAG_REGISTERS
from selective_build.driver.link import SHARED_LIBRARY, closure, link_line
from selective_build.driver.pch import FOLDER as PCH_FOLDER
from selective_build.driver.pch import Precompiled, bad_spellings, not_precompiled, precompile, tagged_headers
from selective_build.driver.pch_shared import Sharer, share
from selective_build.driver.platforms import CXX_ONLY_FLAGS, HOST, PLATFORM_DEFINE
from selective_build.driver.primitives import RULES

CXX_SOURCE = (".cc", ".cpp", ".cxx", ".c++", ".C", ".c")
# A C source (a C library such as CMSIS-NN, in a cxx_library as Bazel's cc_library
# takes them): compiled by the C compiler of the C++ one's toolchain, without the
# flags that only C++ has.
C_SOURCE = ".c"
# The C++ driver's name ending -> the C driver's (arm-none-eabi-g++ -> arm-none-eabi-gcc).
_C_DRIVERS = (("clang++", "clang"), ("g++", "gcc"), ("c++", "cc"))
# The program turning a list of selected sources into a ninja dyndep file (shipped with the package).
DYNDEP_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dyndep.awk")


def cxx_library(analysis: Analysis, target: Target) -> Node:
    """A cxx_library: its sources compiled and archived (or its selected
    objects archived, with ``objects_of``), and what dependents inherit."""
    sources, headers, named = _inputs(analysis, target)
    libraries = _libraries(analysis, target)
    flags, order_only = _compile_recipe(analysis, target, headers, libraries, named)
    objects = _compile(analysis, target, sources, flags, order_only, target)
    archive = _archive_path(analysis, target)
    guarded: tuple[tuple[Node, str], ...] = ()
    if analysis.attr(target, "objects_of"):
        libraries, guarded = _selected_objects(analysis, target, libraries, archive, objects, flags, order_only)
    elif objects:
        analysis.actions.append(Action((archive,), tuple(obj for _, obj in objects),
                                       f"rm -f {shlex.quote(archive)} && {analysis.config.ar} rcsD {shlex.quote(archive)} "
                                       + " ".join(shlex.quote(obj) for _, obj in objects),
                                       f"AR {target.label}"))
    else:
        archive = None
    linkopts = tuple(expand_flag(analysis, target, f, named) for f in strings(analysis.attr(target, "linkopts", [])))
    shared = tuple(path for path in headers if path.endswith(SHARED_LIBRARY))
    scripts = tuple(path for text in strings(analysis.attr(target, "linker_scripts", []))
                    for path in analysis.resolve_label(target, text)[1])
    linker_inputs = tuple(path for text in strings(analysis.attr(target, "linker_inputs", []))
                          for path in analysis.resolve_label(target, text)[1])
    return Node(target, (archive,) if archive else shared, archive=archive,
                linker_scripts=scripts, linker_inputs=linker_inputs,
                link_whole=bool(analysis.attr(target, "link_whole", False)),
                includes=_includes(analysis, target), defines=tuple(strings(analysis.attr(target, "defines", []))),
                linkopts=linkopts, headers=tuple(h for h in headers if h not in shared), libraries=libraries,
                shared_libraries=shared, objects=objects, compile_flags=flags, compile_order_only=order_only,
                linked_if_selected=guarded)


def cxx_binary(analysis: Analysis, target: Target) -> Node:
    """A cxx_binary: its sources compiled and linked with every library it
    reaches, and a link map beside it."""
    sources, headers, named = _inputs(analysis, target)
    libraries = _libraries(analysis, target)
    flags, order_only = _compile_recipe(analysis, target, headers, libraries, named)
    objects = [obj for _, obj in _compile(analysis, target, sources, flags, order_only)]
    out = analysis.config.bin
    binary = f"{out}/{target.package}/{target.name}" if target.package else f"{out}/{target.name}"
    linked = closure(libraries)
    _check_built_for(analysis, target, linked)
    own_flags = [expand_flag(analysis, target, f, named) for f in strings(analysis.attr(target, "linkopts", []))]
    copies = tuple(f"{os.path.dirname(binary)}/{tag[len(TAG_COPIED_TO):]}"
                   for tag in target.tags if tag.startswith(TAG_COPIED_TO))
    line = link_line(binary, objects, linked, own_flags, copies, _linked_if_selected(libraries, linked))
    checks = _overlap_check(analysis, target, linked)
    command = line.command(analysis.config.cxx, analysis.config.link_flags)
    analysis.actions.append(Action((binary, line.map_file), line.inputs, command, f"LINK {target.label}",
                                   implicit=checks))
    return Node(target, (binary,), libraries=libraries)


def _check_built_for(analysis: Analysis, target: Target, linked: Iterable[Node]) -> None:
    """A binary links no prebuilt library of another platform (the runtime
    wheel's libexecutorch.so is an x86-64 Linux one): a failure at the binary."""
    platform = analysis.config.defines.get(PLATFORM_DEFINE, HOST)
    for node in linked:
        built_for = [tag[len(TAG_BUILT_FOR):] for tag in node.target.tags if tag.startswith(TAG_BUILT_FOR)]
        if built_for and platform not in built_for:
            raise analysis.fail(target, f"it is built for --platform={platform} but links {node.target.label}, "
                                        f"prebuilt for --platform={built_for[0]} only (the executorch wheel's "
                                        "libexecutorch.so serves this machine's development builds): give the "
                                        "binary "
                                        "runtime = \"static\", ExecuTorch's runtime compiled from the tree "
                                        "(--executorch-root)")


# -- compiling -----------------------------------------------------------------

def _inputs(analysis: Analysis, target: Target) -> tuple[list[str], list[str], dict[str, tuple[str, ...]]]:
    """Sources to compile, headers (and other files: prebuilt shared libraries too) they may
    read, and the label -> files map."""
    sources, others, named = [], [], {}
    for attr in ("srcs", "hdrs") if "hdrs" in RULES[target.rule] else ("srcs",):
        for text in strings(analysis.attr(target, attr, [])):
            files = analysis.resolve_label(target, text)[1]
            named[analysis.canonical(target, text)] = files
            for path in files:
                (sources if attr == "srcs" and path.endswith(CXX_SOURCE) else others).append(path)
    return sources, others, named


def _libraries(analysis: Analysis, target: Target) -> tuple[Node, ...]:
    """The cxx_library nodes ``target``'s ``deps`` name."""
    result = []
    for text in strings(analysis.attr(target, "deps", [])):
        node = analysis.resolve_label(target, text)[0]
        if node is None or node.target.rule != "cxx_library":
            raise analysis.fail(target, f"deps: '{text}' is not a cxx_library")
        result.append(node)
    return tuple(result)


def _compile_recipe(analysis: Analysis, target: Target, headers: list[str], libraries: tuple[Node, ...],
                    named: Mapping[str, tuple[str, ...]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The flags ``target``'s sources compile with, and the headers that must exist first."""
    reached = closure(libraries)
    includes = unique([*_includes(analysis, target), *(i for lib in reached for i in lib.includes)])
    defines = unique(list(strings(analysis.attr(target, "defines", [])))
                     + [d for lib in reached for d in lib.defines])
    copts = [expand_flag(analysis, target, flag, named) for flag in strings(analysis.attr(target, "copts", []))]
    flags = (*analysis.config.compile_flags, *copts, "-I.", f"-I{analysis.config.bin}",
             *(f"-I{i}" for i in includes), *(f"-D{d}" for d in defines))
    # Headers (generated ones included) must exist before a compile; once it
    # ran, its depfile says which it read.
    return flags, tuple(unique(headers + [h for lib in reached for h in lib.headers]))


def _includes(analysis: Analysis, target: Target) -> tuple[str, ...]:
    """A target's include directories, relative to the workspace root (or absolute)."""
    result = []
    for include in strings(analysis.attr(target, "includes", [])):
        expanded = expand(analysis, target, include, {}, [], (), quote=str)
        result.append(expanded if expanded.startswith("/") or not target.package
                      else Label(target.package, expanded).path)
    return tuple(result)


def _compile(analysis: Analysis, target: Target, sources: Iterable[str], flags: tuple[str, ...],
             order_only: tuple[str, ...], library: Target | None = None) -> tuple[tuple[str, str], ...]:
    """One compile action per source; returns (source, object) pairs. The
    sources of a ``library`` whose tags name headers to precompile read them
    from a precompiled header made for ``flags``, where one pays (driver/pch.py),
    but for those its tags leave out."""
    sources = tuple(sources)
    directory = f"{analysis.config.obj}/{target.package or '_root'}/{target.name}"
    skipped = not_precompiled(library.tags, library.package) if library else frozenset()
    taking = [source for source in sources if source not in skipped]
    made = _precompile(analysis, target, library, directory, flags, order_only, len(taking)) if library else None
    headers = tagged_headers(library.tags) if library and not made and analysis.config.precompiled_headers else ()
    objects = []
    for source in sources:
        obj = f"{directory}/{source.replace('/', '__')}.o"
        use = made if made and source not in skipped and not source.endswith(C_SOURCE) else None
        analysis.actions.append(_compile_action(analysis.config, str(target.label), source, obj, flags, order_only,
                                                use))
        if headers and source not in skipped and not source.endswith(C_SOURCE):
            analysis.sharers.append(Sharer(source, obj, str(target.label), headers, flags, order_only))
        objects.append((source, obj))
    return tuple(objects)


def _compile_action(config: Config, label: str, source: str, obj: str, flags: tuple[str, ...],
                    order_only: tuple[str, ...], use: Precompiled | None) -> Action:
    """The action compiling ``source`` into ``obj`` with ``flags``, through
    the precompiled header ``use`` if any."""
    launcher, compile_flags = (use.launcher, use.flags) if use else (config.launcher, flags)
    compiler = config.cxx
    if source.endswith(C_SOURCE):
        compiler, compile_flags = c_compiler(compiler), c_flags(compile_flags)
    command = " ".join([*launcher, compiler, *(shlex.quote(f) for f in compile_flags),
                        "-MMD -MF", f"{obj}.d",
                        "-c", shlex.quote(source), "-o", shlex.quote(obj)])
    return Action((obj,), (source,), command, f"CXX {source} ({label})",
                  implicit=(use.gch,) if use else (), order_only=order_only, depfile=True)


def share_precompiled_headers(analysis: Analysis) -> None:
    """Once every requested target is analysed: the compiles of libraries too
    small for a precompiled header of their own read one shared with the
    other libraries' compiles of the same headers and flags, where enough of
    them do for it to pay (driver/pch_shared.py)."""
    through: dict[str, Action] = {}
    for shared in share(analysis.config, analysis.sharers):
        analysis.actions.extend(shared.precompiled.actions)
        for user in shared.users:
            through[user.obj] = _compile_action(analysis.config, user.label, user.source, user.obj, user.flags,
                                                user.order_only, shared.precompiled)
    if through:
        analysis.actions[:] = [through.get(action.outputs[0], action) for action in analysis.actions]


def c_compiler(cxx: str) -> str:
    """The C compiler of the toolchain whose C++ compiler is ``cxx`` (its
    name's ``g++``, ``clang++`` or ``c++`` ending changed; any other compiles
    C too, as ``-x c``)."""
    for cxx_end, c_end in _C_DRIVERS:
        if cxx.endswith(cxx_end):
            return cxx[:-len(cxx_end)] + c_end
    return f"{cxx} -x c"


def c_flags(flags: tuple[str, ...]) -> tuple[str, ...]:
    """``flags`` without those that only a C++ compile takes (which a C compiler warns about)."""
    return tuple(f for f in flags if not f.startswith(CXX_ONLY_FLAGS))


def _precompile(analysis: Analysis, target: Target, library: Target, directory: str, flags: tuple[str, ...],
                order_only: tuple[str, ...], sources: int) -> Precompiled | None:
    """The precompiled header through which ``target`` compiles ``sources``
    sources of ``library`` (its actions added), or None; a header in
    ``library``'s tags not spelled as ``#include`` spells one fails there."""
    headers = tagged_headers(library.tags)
    bad = bad_spellings(headers)
    if bad:
        raise analysis.fail(library, f"tags: precompiled header '{bad[0]}' is not spelled as #include spells one "
                                     "(<dir/file.h> or \"dir/file.h\")")
    folder = f"{directory}/{PCH_FOLDER}/{(library.package or '_root').replace('/', '__')}__{library.name}"
    made = precompile(analysis.config, folder, headers, flags, order_only, sources, str(target.label))
    if made:
        analysis.actions.extend(made.actions)
    return made


# -- archiving -----------------------------------------------------------------

def _archive_path(analysis: Analysis, target: Target) -> str:
    """Where a library's static archive goes."""
    out = analysis.config.bin
    return f"{out}/{target.package}/lib{target.name}.a" if target.package else f"{out}/lib{target.name}.a"


def _selected_objects(analysis: Analysis, target: Target, libraries: tuple[Node, ...], archive: str,
                      own: tuple[tuple[str, str], ...], flags: tuple[str, ...],
                      order_only: tuple[str, ...]) -> tuple[tuple[Node, ...], tuple[tuple[Node, str], ...]]:
    """The archive of ``target``'s own objects and those of the sources of its
    ``objects_of`` libraries that its ``object_list`` names, found when the
    list is written (a ninja dyndep file adds them as inputs, so only they
    are compiled). The libraries' objects are theirs, shared by every target
    taking them, unless ``target`` has flags of its own (copts, includes,
    defines): then it compiles them again with those added. Returns the
    libraries to link instead, and those of them linked only when a source of
    the ``objects_of`` library depending on them is selected, each with the
    file naming its archive then (:func:`_guarded`: CMSIS-NN, below
    ExecuTorch's Cortex-M kernels, is not compiled for a float model). A
    source the list marks plain (``=path``: kernel-sources --mark-plain) is
    taken as its library compiles it even then."""
    taken, plain, linked = [], [], list(libraries)
    always = closure(libraries)
    guards: dict[str, tuple[Node, list[str]]] = {}
    for text in strings(analysis.attr(target, "objects_of")):
        node = analysis.resolve_label(target, text)[0]
        if node is None or node.target.rule != "cxx_library":
            raise analysis.fail(target, f"objects_of: '{text}' is not a cxx_library")
        extra = tuple(f for f in flags if f not in node.compile_flags)
        if extra:
            taken += _compile(analysis, target, (source for source, _ in node.objects), node.compile_flags + extra,
                              tuple(unique([*node.compile_order_only, *order_only])), node.target)
            plain += node.objects
        else:
            taken += node.objects
        linked += [lib for lib in node.libraries if lib not in linked]
        for lib in node.libraries:
            if _guarded(lib) and all(lib is not other for other in always):
                guards.setdefault(lib.archive, (lib, []))[1].extend(source for source, _ in node.objects)
    guarded = tuple((lib, f"{archive}.link{index}") for index, (lib, _) in enumerate(guards.values()))
    conditions = [f"?{file}={lib.archive}={source}"
                  for (lib, file), (_, sources) in zip(guarded, guards.values()) for source in sources]
    lists = analysis.files(target, "object_list")
    if len(lists) != 1:
        raise analysis.fail(target, f"object_list stands for {len(lists)} files; it must name one")
    dyndep, members, rsp = f"{archive}.dd", f"{archive}.objects", f"{archive}.rsp"
    analysis.actions.append(Action(
        (dyndep, members, *(file for _, file in guarded)), (lists[0],),
        _dyndep_command(archive, dyndep, members, rsp, lists[0], str(target.label)),
        f"SELECT objects of {target.label}", implicit=(DYNDEP_PROGRAM,), restat=True, rspfile=rsp,
        rspfile_content=" ".join([*(f"{source}={obj}" for source, obj in (*own, *taken)),
                                  *(f"={source}={obj}" for source, obj in plain), *conditions])))
    analysis.actions.append(Action((archive,), (members,), f"rm -f {shlex.quote(archive)} && xargs {analysis.config.ar} rcsD "
                                   f"{shlex.quote(archive)} < {shlex.quote(members)}", f"AR {target.label}",
                                   order_only=(dyndep,), dyndep=dyndep))
    return tuple(linked), guarded


def _guarded(library: Node) -> bool:
    """Whether ``library`` (a dependency of an ``objects_of`` library) can be
    left out of a link when none of that library's sources is selected: an
    archive alone, which brings nothing else to the link."""
    return bool(library.archive) and not (library.link_whole or library.libraries or library.shared_libraries
                                          or library.linker_scripts or library.linker_inputs or library.linkopts)


def _linked_if_selected(libraries: tuple[Node, ...], linked: list[Node]) -> dict[str, str]:
    """The archives among ``linked`` (the closure of ``libraries``) that a
    binary links only if the selection needs them, each with the file read in
    its place: those one ``objects_of`` library guards, which no other path
    from ``libraries`` reaches."""
    guards: dict[str, list[str]] = {}
    for node in linked:
        for lib, file in node.linked_if_selected:
            guards.setdefault(lib.archive, []).append(file)
    if not guards:
        return {}
    reached, stack, seen = set(), list(libraries), set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        reached.add(node.archive)
        held = {id(lib) for lib, _ in node.linked_if_selected}
        stack += [lib for lib in node.libraries if id(lib) not in held]
    return {archive: files[0] for archive, files in guards.items() if len(files) == 1 and archive not in reached}


def _dyndep_command(archive: str, dyndep: str, members: str, rsp: str, selected: str, label: str) -> str:
    """The command running ``dyndep.awk`` over the response file ``rsp``
    ("source=object ...") and the list of ``selected`` sources."""
    variables = (("archive", archive), ("dyndep", dyndep), ("members", members), ("label", label))
    return " ".join(["awk", *(f"-v {name}={shlex.quote(value)}" for name, value in variables),
                     "-f", shlex.quote(DYNDEP_PROGRAM), shlex.quote(rsp), shlex.quote(selected)])


# -- checking ------------------------------------------------------------------

def _overlap_check(analysis: Analysis, target: Target, libraries: list[Node]) -> tuple[str, ...]:
    """When two registration libraries are linked into one binary, an action
    that fails if they register the same operator (the link waits for it)."""
    selections = []
    for lib in libraries:
        for tag in lib.target.tags:
            if tag.startswith(TAG_REGISTERS):
                selections.extend(analysis.resolve_label(lib.target, tag[len(TAG_REGISTERS):])[1])
    if len(selections) < 2:
        return ()
    out = f"{analysis.config.checks}/{target.package or '_root'}/{target.name}"
    tool = " ".join(shlex.quote(word) for word in analysis.config.tool)
    command = (f"{tool} gen-all-oplist --check_ops_not_overlapping --allow_include_all_overloads "
               + " ".join(f"--model_file_list_path {shlex.quote(s)}" for s in selections)
               + f" --output_dir {shlex.quote(out)}")
    stamp = f"{out}/selected_operators.yaml"
    analysis.actions.append(Action((stamp,), tuple(selections), command,
                                   f"CHECK no operator registered twice in {target.label}"))
    return (stamp,)
