"""From evaluated packages to build actions: labels resolved to targets or
files, ``select()`` resolved against the configuration, genrule commands
expanded, C++ targets turned into compile, archive and link steps. Pure: the
file system is seen only through ``Config.exists``."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping

from selective_build.driver.evaluate import Package, Target
from selective_build.driver.labels import Label, LabelError, package_label, parse_label, split_external
from selective_build.driver.layout import BIN, CHECKS, OBJ, TAG_COPIED_TO, TAG_REGISTERS
from selective_build.driver.primitives import RULES, canonical_attrs, label_attrs
from selective_build.model.errors import Location, Problem, UserError, did_you_mean
from selective_build.model.records import record

CXX_SOURCE = (".cc", ".cpp", ".cxx", ".c++", ".C", ".c")
# A prebuilt shared library in a cxx_library's srcs: linked by path, found at run time beside the binary.
SHARED_LIBRARY = ".so"
# Flags every C++ compile gets: optimised, each function in its own section so
# that the linker drops what registration does not reach.
BASE_CXXFLAGS = ("-O2", "-ffunction-sections", "-fdata-sections")


@record
class Config:
    """What the build depends on besides the BUILD files: make variables
    (``$(NAME)`` in commands and flags), ``--define`` values for ``select()``,
    the compiler, and a view of which source files exist."""

    make_variables: Mapping[str, str]
    defines: Mapping[str, str]
    cxx: str
    exists: Callable[[str], bool]
    tool: tuple[str, ...] = ()  # the command that runs etsb's own tool (the driver's checks)
    main_names: tuple[str, ...] = ()  # repository names meaning the main one ('@etsb//' inside etsb)
    repositories: tuple[str, ...] = ()  # the external repositories' names
    missing: Mapping[str, str] | None = None  # why a repository is absent, by name


@record
class Action:
    """One build step: a shell command from inputs to outputs."""

    outputs: tuple[str, ...]
    inputs: tuple[str, ...]
    command: str
    description: str
    implicit: tuple[str, ...] = ()
    order_only: tuple[str, ...] = ()
    depfile: bool = False  # a gcc-style depfile at <first output>.d
    restat: bool = False   # the command may leave an unchanged output untouched
    dyndep: str = ""       # a file (among the inputs) adding inputs found at build time, in ninja's dyndep format
    rspfile: str = ""      # a file ninja writes with rspfile_content before running the command
    rspfile_content: str = ""


@record
class Node:
    """An analysed target: the files it provides, and for C++ libraries what
    propagates to dependents."""

    target: Target
    outputs: tuple[str, ...]
    archive: str | None = None
    link_whole: bool = False
    includes: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    linkopts: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    libraries: tuple["Node", ...] = ()  # C++ dependencies, direct
    shared_libraries: tuple[str, ...] = ()  # prebuilt .so files in srcs, linked by path
    linker_scripts: tuple[str, ...] = ()    # ld scripts, link inputs after the libraries
    linker_inputs: tuple[str, ...] = ()     # files the scripts may name (link inputs, not on the command line)
    objects: tuple[tuple[str, str], ...] = ()  # (source, object) of each source it compiles
    compile_flags: tuple[str, ...] = ()        # the flags it compiles them with
    compile_order_only: tuple[str, ...] = ()   # the headers that must exist before they compile


@record
class Graph:
    """Every action needed for the requested targets, and what each provides."""

    actions: tuple[Action, ...]
    nodes: Mapping[Label, Node]


def referenced_packages(package: Package, main_names: tuple[str, ...] = ()) -> set[str]:
    """Packages named by absolute labels in ``package``'s label attributes and
    ``select()`` conditions (the driver evaluates them too)."""
    found = set()
    for target in package.targets:
        for attr in label_attrs(target.rule):
            value = target.attrs.get(attr)
            for text in (*_strings(value), *_select_keys(value)):
                if text.startswith(("//", "@")) and not text.startswith("//conditions:"):
                    try:
                        found.add(parse_label(text, package.name, main_names).package)
                    except LabelError:
                        pass  # reported with its target during analysis
    return found


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        if "$select" in value:
            for part in value["$select"]:
                if isinstance(part, dict) and "$conditions" in part:
                    for chosen in part["$conditions"].values():
                        yield from _strings(chosen)
                else:
                    yield from _strings(part)


def _select_keys(value: object) -> Iterable[str]:
    if isinstance(value, dict) and "$select" in value:
        for part in value["$select"]:
            if isinstance(part, dict) and "$conditions" in part:
                yield from part["$conditions"]


class _Failed(Exception):
    """Analysis of one target failed; its problem is already recorded."""


class _Analysis:
    """The state of one analysis: resolved nodes, emitted actions, problems."""

    def __init__(self, packages: Mapping[str, Package], config: Config) -> None:
        self.packages = packages
        self.config = config
        self.targets = {pkg: {t.name: t for t in p.targets} for pkg, p in packages.items()}
        self.outputs_of = {}  # (package, output name) -> genrule target
        for pkg, p in packages.items():
            for t in p.targets:
                if t.rule == "genrule":
                    for out in _strings(t.attrs.get("outs")):
                        self.outputs_of[(pkg, out)] = t
        self.canonical_attrs: dict[Label, dict] = {}
        self.attrs_read: set[tuple[str, str]] = set()  # (rule, attribute): what analysis honoured
        self.nodes: dict[Label, Node] = {}
        self.failed: set[Label] = set()
        self.in_progress: list[Label] = []
        self.actions: list[Action] = []
        self.problems: list[Problem] = []

    # -- problems ------------------------------------------------------------

    def fail(self, target: Target, message: str) -> _Failed:
        """Record a problem located at ``target``'s BUILD line, with its call stack."""
        text = f"{target.rule} '{target.label}': {message}"
        trace = target.backtrace()
        self.problems.append(Problem(text + ("\n" + trace if trace else ""), target.location))
        return _Failed()

    # -- attributes ----------------------------------------------------------

    def attr(self, target: Target, name: str, default: object = None) -> object:
        """An attribute's value under its canonical name (every spelling of it
        joined, see :mod:`~selective_build.driver.primitives`), with ``select()`` resolved."""
        spec = RULES[target.rule].get(name)
        assert spec is not None and not spec.same_as, f"{target.rule} has no canonical attribute '{name}'"
        self.attrs_read.add((target.rule, name))
        attrs = self.canonical_attrs.get(target.label)
        if attrs is None:
            attrs = self.canonical_attrs[target.label] = canonical_attrs(target.rule, target.attrs)
        value = attrs.get(name)
        if value is None:
            return default
        return self.resolve_select(target, name, value)

    def resolve_select(self, target: Target, name: str, value: object) -> object:
        if not (isinstance(value, dict) and "$select" in value):
            return value
        result = None
        for part in value["$select"]:
            if isinstance(part, dict) and "$conditions" in part:
                part = self.choose(target, name, part["$conditions"])
            if result is None:
                result = part
            elif isinstance(result, list):
                result = result + list(part)
            elif isinstance(result, dict):
                result = {**result, **part}
            else:
                result = result + part
        return result

    def choose(self, target: Target, name: str, conditions: Mapping[str, object]) -> object:
        matched = []
        for key, value in conditions.items():
            if key == "//conditions:default":
                continue
            setting = self.config_setting(target, key)
            if all(self.config.defines.get(k) == v for k, v in setting.items()):
                matched.append((key, value))
        if len(matched) > 1:
            raise self.fail(target, f"attribute '{name}': select() matches more than one condition: "
                                    f"{', '.join(key for key, _ in matched)}")
        if matched:
            return matched[0][1]
        if "//conditions:default" in conditions:
            return conditions["//conditions:default"]
        raise self.fail(target, f"attribute '{name}': select() matches no condition and has no "
                                f"//conditions:default (conditions: {', '.join(sorted(conditions))})")

    def config_setting(self, target: Target, key: str) -> dict[str, str]:
        """The ``--define`` values that config_setting ``key`` requires."""
        try:
            label = parse_label(key, target.package, self.config.main_names)
        except LabelError as error:
            raise self.fail(target, str(error)) from None
        setting = self.targets.get(label.package, {}).get(label.name)
        if setting is None or setting.rule != "config_setting":
            raise self.fail(target, f"select() condition '{key}' is not a config_setting target")
        required = dict(self.attr(setting, "define_values") or {})
        for k, v in (self.attr(setting, "values") or {}).items():
            if k != "define" or "=" not in v:
                raise self.fail(setting, f"values: only 'define': 'NAME=VALUE' is supported, not '{k}'")
            name, _, wanted = v.partition("=")
            required[name] = wanted
        return required

    # -- labels --------------------------------------------------------------

    def resolve_label(self, target: Target, text: str) -> tuple[Node | None, tuple[str, ...]]:
        """The node (for a target) and the files that ``text``, written in
        ``target``'s package, stands for."""
        try:
            label = parse_label(text, target.package, self.config.main_names)
        except LabelError as error:
            raise self.fail(target, str(error)) from None
        package = self.targets.get(label.package)
        if package is None:
            raise self.fail(target, self.missing_package(label, text))
        if label.name in package:
            node = self.node(package[label.name], requested_by=target)
            return node, node.outputs
        producer = self.outputs_of.get((label.package, label.name))
        if producer is not None:
            self.node(producer, requested_by=target)
            return None, (f"{BIN}/{label.relative}",)
        if self.config.exists(label.path):
            return None, (label.path,)
        hint = did_you_mean(label.name, list(package))
        raise self.fail(target, f"'{text}' is neither a target of package '//{label.package}' "
                                f"nor a file ({label.path} does not exist){hint}")

    def missing_package(self, label: Label, text: str) -> str:
        """Why the package of ``label`` (written ``text``) is not there."""
        external = split_external(label.package)
        if external is None:
            return f"no such package '{label.package}' (no BUILD file in '{label.package or '.'}') for label '{text}'"
        if external[0] not in self.config.repositories:
            known = ", ".join(f"@{name}" for name in self.config.repositories) or "none"
            hint = (self.config.missing or {}).get(external[0])
            return f"label '{text}' names the repository '@{external[0]}', which this build does not have " \
                   f"(it has: {known})" + (f": {hint}" if hint else "")
        return f"no such package '{package_label(label.package)}' for label '{text}' (etsb gives the repository " \
               f"'@{external[0]}' no BUILD file there)"

    def files(self, target: Target, attr: str) -> tuple[str, ...]:
        """The files an attribute's labels stand for, in order, without repeats."""
        result: list[str] = []
        for text in _strings(self.attr(target, attr, [])):
            for path in self.resolve_label(target, text)[1]:
                if path not in result:
                    result.append(path)
        return tuple(result)

    # -- nodes ---------------------------------------------------------------

    def node(self, target: Target, requested_by: Target | None = None) -> Node:
        """The analysed ``target``, analysing it on first use."""
        label = target.label
        if label in self.nodes:
            return self.nodes[label]
        if label in self.failed:
            raise _Failed()
        if label in self.in_progress:
            cycle = self.in_progress[self.in_progress.index(label):] + [label]
            raise self.fail(requested_by or target, "dependency cycle: " + " -> ".join(map(str, cycle)))
        self.in_progress.append(label)
        try:
            node = getattr(self, "_" + target.rule)(target)
        except _Failed:
            self.failed.add(label)
            raise
        finally:
            self.in_progress.pop()
        self.nodes[label] = node
        return node

    def _export_file(self, target: Target) -> Node:
        src = self.attr(target, "src") or target.name
        path = Label(target.package, src).path
        if not self.config.exists(path):
            raise self.fail(target, f"the exported file {path} does not exist")
        return Node(target, (path,))

    def _filegroup(self, target: Target) -> Node:
        return Node(target, self.files(target, "srcs"))

    def _config_setting(self, target: Target) -> Node:
        return Node(target, ())

    # -- genrule -------------------------------------------------------------

    def _genrule(self, target: Target) -> Node:
        outs = tuple(f"{BIN}/{Label(target.package, out).relative}" for out in _strings(self.attr(target, "outs")))
        named: dict[str, tuple[str, ...]] = {}
        inputs: list[str] = []
        for attr in ("srcs", "tools"):
            for text in _strings(self.attr(target, attr, [])):
                files = self.resolve_label(target, text)[1]
                named[self.canonical(target, text)] = files
                inputs.extend(f for f in files if f not in inputs)
        for out, path in zip(_strings(self.attr(target, "outs")), outs):
            named[self.canonical(target, out)] = (path,)
        srcs = [f for text in _strings(self.attr(target, "srcs", []))
                for f in named[self.canonical(target, text)]]
        command = self.expand(target, self.attr(target, "cmd"), named, srcs, outs)
        directories = sorted({path.rsplit("/", 1)[0] for path in outs})
        mkdir = "mkdir -p " + " ".join(shlex.quote(d) for d in directories)
        # An action that does not write a declared output fails, naming it.
        check = (f"for f in {' '.join(shlex.quote(o) for o in outs)}; do test -e \"$f\" || "
                 f"{{ echo \"etsb: {target.label} did not write $f\" >&2; exit 1; }}; done")
        message = self.attr(target, "message")
        self.actions.append(Action(outs, tuple(inputs), f"{mkdir} && {_grouped(command)} && {check}",
                                   f"{message} ({target.label})" if message else f"GEN {target.label}",
                                   restat=True))
        return Node(target, outs)

    def canonical(self, target: Target, text: str) -> str:
        try:
            return str(parse_label(text, target.package, self.config.main_names))
        except LabelError as error:
            raise self.fail(target, str(error)) from None

    _MAKE = re.compile(r"\$\((\w+)(?:\s+([^)]*))?\)|\$\$|\$@|\$<|\$\(@D\)")

    def expand(self, target: Target, command: str, named: Mapping[str, tuple[str, ...]],
               srcs: list[str], outs: tuple[str, ...], quote: Callable[[str], str] = shlex.quote) -> str:
        """A genrule command with Bazel's make variables and location functions
        expanded, every value they stand for made one shell word by ``quote``."""
        def location(argument: str, many: bool) -> str:
            files = named.get(self.canonical(target, argument.strip()))
            if files is None:
                raise self.fail(target, f"cmd: $(location {argument.strip()}): the label is not in "
                                        f"srcs, tools or outs")
            if not many and len(files) != 1:
                raise self.fail(target, f"cmd: $(location {argument.strip()}) stands for {len(files)} "
                                        f"files; use $(locations ...)")
            return " ".join(quote(f) for f in files)

        def replace(match: re.Match) -> str:
            whole = match.group(0)
            if whole == "$$":
                return "$"
            if whole == "$@":
                if len(outs) != 1:
                    raise self.fail(target, "cmd: $@ needs exactly one output")
                return quote(outs[0])
            if whole == "$<":
                if len(srcs) != 1:
                    raise self.fail(target, "cmd: $< needs exactly one source")
                return quote(srcs[0])
            if whole == "$(@D)":
                return quote(outs[0].rsplit("/", 1)[0] if len(outs) == 1 else self.ruledir(target))
            function, argument = match.group(1), match.group(2)
            if argument is not None:
                if function in ("location", "execpath", "rootpath"):
                    return location(argument, False)
                if function in ("locations", "execpaths", "rootpaths"):
                    return location(argument, True)
                raise self.fail(target, f"cmd: unknown function $({function} ...)")
            if function == "SRCS":
                return " ".join(quote(s) for s in srcs)
            if function == "OUTS":
                return " ".join(quote(o) for o in outs)
            if function == "RULEDIR":
                return quote(self.ruledir(target))
            if function in self.config.make_variables:
                return quote(self.config.make_variables[function])
            raise self.fail(target, f"cmd: unknown make variable $({function})")

        return self._MAKE.sub(replace, command)

    @staticmethod
    def ruledir(target: Target) -> str:
        return f"{BIN}/{target.package}" if target.package else BIN

    def expand_flag(self, target: Target, flag: str, named: Mapping[str, tuple[str, ...]]) -> str:
        """Make variables and ``$(location)`` in a compiler or linker flag (the
        flag is quoted as one word when the command is made)."""
        return self.expand(target, flag, named, [], (), quote=str)

    # -- C++ -----------------------------------------------------------------

    def cxx_inputs(self, target: Target) -> tuple[list[str], list[str], dict[str, tuple[str, ...]]]:
        """Sources to compile, headers (and other files: prebuilt shared libraries too) they may
        read, and the label -> files map."""
        sources, others, named = [], [], {}
        for attr in ("srcs", "hdrs") if "hdrs" in RULES[target.rule] else ("srcs",):
            for text in _strings(self.attr(target, attr, [])):
                files = self.resolve_label(target, text)[1]
                named[self.canonical(target, text)] = files
                for path in files:
                    (sources if attr == "srcs" and path.endswith(CXX_SOURCE) else others).append(path)
        return sources, others, named

    def libraries(self, target: Target) -> tuple[Node, ...]:
        result = []
        for text in _strings(self.attr(target, "deps", [])):
            node = self.resolve_label(target, text)[0]
            if node is None or node.target.rule != "cxx_library":
                raise self.fail(target, f"deps: '{text}' is not a cxx_library")
            result.append(node)
        return tuple(result)

    def compile_recipe(self, target: Target, headers: list[str], libraries: tuple[Node, ...],
                       named: Mapping[str, tuple[str, ...]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The flags ``target``'s sources compile with, and the headers that must exist first."""
        closure = _closure(libraries)
        includes = _unique([*self.includes(target), *(i for lib in closure for i in lib.includes)])
        defines = _unique(list(_strings(self.attr(target, "defines", [])))
                          + [d for lib in closure for d in lib.defines])
        copts = [self.expand_flag(target, flag, named) for flag in _strings(self.attr(target, "copts", []))]
        flags = (*BASE_CXXFLAGS, *copts, "-I.", f"-I{BIN}", *(f"-I{i}" for i in includes),
                 *(f"-D{d}" for d in defines))
        # Headers (generated ones included) must exist before a compile; once it
        # ran, its depfile says which it read.
        return flags, tuple(_unique(headers + [h for lib in closure for h in lib.headers]))

    def compile(self, target: Target, sources: Iterable[str], flags: tuple[str, ...],
                order_only: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
        """One compile action per source; returns (source, object) pairs."""
        objects = []
        for source in sources:
            obj = f"{OBJ}/{target.package or '_root'}/{target.name}/{source.replace('/', '__')}.o"
            command = " ".join([self.config.cxx, *(shlex.quote(f) for f in flags), "-MMD -MF", f"{obj}.d",
                                "-c", shlex.quote(source), "-o", shlex.quote(obj)])
            self.actions.append(Action((obj,), (source,), command, f"CXX {source} ({target.label})",
                                       order_only=order_only, depfile=True))
            objects.append((source, obj))
        return tuple(objects)

    def _cxx_library(self, target: Target) -> Node:
        sources, headers, named = self.cxx_inputs(target)
        libraries = self.libraries(target)
        flags, order_only = self.compile_recipe(target, headers, libraries, named)
        objects = self.compile(target, sources, flags, order_only)
        archive = _archive_path(target)
        if self.attr(target, "objects_of"):
            libraries = self.selected_objects(target, libraries, archive, objects, flags, order_only)
        elif objects:
            self.actions.append(Action((archive,), tuple(obj for _, obj in objects),
                                       f"rm -f {shlex.quote(archive)} && ar rcsD {shlex.quote(archive)} "
                                       + " ".join(shlex.quote(obj) for _, obj in objects),
                                       f"AR {target.label}"))
        else:
            archive = None
        linkopts = tuple(self.expand_flag(target, f, named) for f in _strings(self.attr(target, "linkopts", [])))
        shared = tuple(path for path in headers if path.endswith(SHARED_LIBRARY))
        scripts = tuple(path for text in _strings(self.attr(target, "linker_scripts", []))
                        for path in self.resolve_label(target, text)[1])
        linker_inputs = tuple(path for text in _strings(self.attr(target, "linker_inputs", []))
                              for path in self.resolve_label(target, text)[1])
        return Node(target, (archive,) if archive else shared, archive=archive,
                    linker_scripts=scripts, linker_inputs=linker_inputs,
                    link_whole=bool(self.attr(target, "link_whole", False)),
                    includes=self.includes(target), defines=tuple(_strings(self.attr(target, "defines", []))),
                    linkopts=linkopts, headers=tuple(h for h in headers if h not in shared), libraries=libraries,
                    shared_libraries=shared, objects=objects, compile_flags=flags, compile_order_only=order_only)

    def selected_objects(self, target: Target, libraries: tuple[Node, ...], archive: str,
                         own: tuple[tuple[str, str], ...], flags: tuple[str, ...],
                         order_only: tuple[str, ...]) -> tuple[Node, ...]:
        """The archive of ``target``'s own objects and those of the sources of its
        ``objects_of`` libraries that its ``object_list`` names, found when the
        list is written (a ninja dyndep file adds them as inputs, so only they
        are compiled). The libraries' objects are theirs, shared by every target
        taking them, unless ``target`` has flags of its own (copts, includes,
        defines): then it compiles them again with those added. Returns the libraries to link instead."""
        taken, linked = [], list(libraries)
        for text in _strings(self.attr(target, "objects_of")):
            node = self.resolve_label(target, text)[0]
            if node is None or node.target.rule != "cxx_library":
                raise self.fail(target, f"objects_of: '{text}' is not a cxx_library")
            extra = tuple(f for f in flags if f not in node.compile_flags)
            if extra:
                taken += self.compile(target, (source for source, _ in node.objects), node.compile_flags + extra,
                                      _unique([*node.compile_order_only, *order_only]))
            else:
                taken += node.objects
            linked += [lib for lib in node.libraries if lib not in linked]
        lists = self.files(target, "object_list")
        if len(lists) != 1:
            raise self.fail(target, f"object_list stands for {len(lists)} files; it must name one")
        dyndep, members = f"{archive}.dd", f"{archive}.objects"
        mapping = " ".join(f"{source}={obj}" for source, obj in (*own, *taken))
        self.actions.append(Action(
            (dyndep, members), (lists[0],), _DYNDEP_COMMAND.format(archive=shlex.quote(archive), rsp=shlex.quote(
                f"{archive}.rsp"), list=shlex.quote(lists[0]), dyndep=shlex.quote(dyndep), members=shlex.quote(members),
                label=target.label), f"SELECT objects of {target.label}", restat=True,
            rspfile=f"{archive}.rsp", rspfile_content=mapping))
        self.actions.append(Action((archive,), (members,), f"rm -f {shlex.quote(archive)} && xargs ar rcsD "
                                   f"{shlex.quote(archive)} < {shlex.quote(members)}", f"AR {target.label}",
                                   order_only=(dyndep,), dyndep=dyndep))
        return tuple(linked)

    def includes(self, target: Target) -> tuple[str, ...]:
        """A target's include directories, relative to the workspace root (or absolute)."""
        result = []
        for include in _strings(self.attr(target, "includes", [])):
            expanded = self.expand(target, include, {}, [], (), quote=str)
            result.append(expanded if expanded.startswith("/") or not target.package
                          else f"{target.package}/{expanded}")
        return tuple(result)

    def _cxx_binary(self, target: Target) -> Node:
        sources, headers, named = self.cxx_inputs(target)
        libraries = self.libraries(target)
        objects = [obj for _, obj in self.compile(target, sources, *self.compile_recipe(target, headers, libraries,
                                                                                         named))]
        binary = f"{BIN}/{target.package}/{target.name}" if target.package else f"{BIN}/{target.name}"
        closure = _closure(libraries)
        archives = []
        for lib in closure:
            if lib.archive:
                archives += (["-Wl,--whole-archive", lib.archive, "-Wl,--no-whole-archive"]
                             if lib.link_whole else [lib.archive])
        shared = _unique([so for lib in closure for so in lib.shared_libraries])
        scripts = _unique([script for lib in closure for script in lib.linker_scripts])
        linker_inputs = _unique([path for lib in closure for path in lib.linker_inputs])
        linkopts = _unique([lo for lib in closure for lo in lib.linkopts]
                           + [self.expand_flag(target, f, named) for f in _strings(self.attr(target, "linkopts", []))])
        checks = self.overlap_check(target, closure)
        command = " ".join([self.config.cxx, "-o", shlex.quote(binary), *(shlex.quote(o) for o in objects),
                            *(shlex.quote(a) for a in archives), *(shlex.quote(so) for so in shared),
                            *_without_as_needed(shlex.quote(script) for script in scripts),
                            *(shlex.quote(f) for f in linkopts),
                            *(shlex.quote(f) for f in run_path(binary, shared + [
                                path for path in linker_inputs if path.endswith(SHARED_LIBRARY)], copies=tuple(
                                    f"{os.path.dirname(binary)}/{tag[len(TAG_COPIED_TO):]}"
                                    for tag in target.tags if tag.startswith(TAG_COPIED_TO)))),
                            "-Wl,--gc-sections", f"-Wl,-Map={shlex.quote(binary)}.map"])
        self.actions.append(Action((binary, f"{binary}.map"),
                                   tuple(objects) + tuple(lib.archive for lib in closure if lib.archive) + tuple(shared)
                                   + tuple(scripts) + tuple(linker_inputs),
                                   command, f"LINK {target.label}", implicit=checks))
        return Node(target, (binary,), libraries=libraries)

    def overlap_check(self, target: Target, closure: list[Node]) -> tuple[str, ...]:
        """When two registration libraries are linked into one binary, an action
        that fails if they register the same operator (the link waits for it)."""
        selections = []
        for lib in closure:
            for tag in lib.target.tags:
                if tag.startswith(TAG_REGISTERS):
                    selections.extend(self.resolve_label(lib.target, tag[len(TAG_REGISTERS):])[1])
        if len(selections) < 2:
            return ()
        out = f"{CHECKS}/{target.package or '_root'}/{target.name}"
        tool = " ".join(shlex.quote(word) for word in self.config.tool)
        command = (f"{tool} gen-all-oplist --check_ops_not_overlapping --allow_include_all_overloads "
                   + " ".join(f"--model_file_list_path {shlex.quote(s)}" for s in selections)
                   + f" --output_dir {shlex.quote(out)}")
        stamp = f"{out}/selected_operators.yaml"
        self.actions.append(Action((stamp,), tuple(selections), command,
                                   f"CHECK no operator registered twice in {target.label}"))
        return (stamp,)


# Turns a list of selected sources into the ninja dyndep file that makes their
# objects inputs of the archive (and into the archive's member list). The
# response file maps each source to its object, "source=object ...".
_DYNDEP_COMMAND = (
    "awk -v archive={archive} -v dyndep={dyndep} -v members={members} "
    "'NR == FNR {{ for (i = 1; i <= NF; i++) {{ at = index($i, \"=\"); object[substr($i, 1, at - 1)] = "
    "substr($i, at + 1) }} next }} "
    "$0 == \"\" {{ next }} "
    "!($0 in object) {{ print \"etsb: {label}: \" $0 \" is not a source of its objects_of libraries\" "
    "> \"/dev/stderr\"; failed = 1; exit 1 }} "
    "{{ taken = taken \" \" object[$0]; print object[$0] > members }} "
    "END {{ if (failed) exit 1; printf \"\" > members; print \"ninja_dyndep_version = 1\" > dyndep; "
    "print \"build \" archive \": dyndep\" (taken == \"\" ? \"\" : \" |\" taken) > dyndep }}' "
    "{rsp} {list}"
)


def _without_as_needed(inputs: Iterable[str]) -> list[str]:
    """Link inputs with ``--as-needed`` off (compilers such as Debian's turn it on):
    linker scripts name libraries that register themselves when loaded, which
    nothing refers to and which must be kept all the same."""
    inputs = list(inputs)
    return ["-Wl,--push-state,--no-as-needed", *inputs, "-Wl,--pop-state"] if inputs else []


def _archive_path(target: Target) -> str:
    """Where a library's static archive goes."""
    return f"{BIN}/{target.package}/lib{target.name}.a" if target.package else f"{BIN}/lib{target.name}.a"


def run_path(binary: str, shared_libraries: list[str], copies: tuple[str, ...] = ()) -> list[str]:
    """The link flag giving ``binary`` its run path: its own directory first (a
    copy of the binary finds the libraries copied beside it), then each shared
    library's directory relative to it, and relative to each folder of
    ``copies`` that a copy of it runs from (a dtype-selective pick). Relative
    to ``$ORIGIN`` only, so the binary is the same whatever the checkout's
    path, and runs after the output tree moves."""
    if not shared_libraries:
        return []
    entries = ["$ORIGIN"]
    for here in (os.path.dirname(binary), *copies):
        entries += [f"$ORIGIN/{os.path.relpath(os.path.dirname(so), here)}"
                    for so in shared_libraries if os.path.dirname(so) != here]
    entries = _unique(entries)
    return ["-Wl,-rpath," + ":".join(entries)]


def _closure(libraries: Iterable[Node]) -> list[Node]:
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


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def _grouped(command: str) -> str:
    """``command`` as one shell group, ``{ ...; }``; ended by a newline instead of ``;`` when a
    comment, a trailing ``&`` or a here-document could swallow or misread the ``;``."""
    if "#" in command or "\n" in command or command.rstrip().endswith("&"):
        return "{ " + command + "\n}"
    return "{ " + command + "; }"


def source_files(actions: Iterable[Action]) -> list[str]:
    """Every file the actions read that no action writes (the workspace's sources), sorted."""
    actions = list(actions)
    written = {path for action in actions for path in action.outputs}
    return sorted({path for action in actions for path in (*action.inputs, *action.implicit, *action.order_only)
                   if path not in written and not path.startswith("/")})


def analyse(packages: Mapping[str, Package], requested: Iterable[Label], config: Config) -> Graph:
    """The actions that build ``requested`` (and everything they need). Every
    problem found (missing file, unknown target, bad select, bad command) is
    raised together as one UserError located at the BUILD lines."""
    analysis = _Analysis(packages, config)
    for label in requested:
        target = analysis.targets.get(label.package, {}).get(label.name)
        if target is None:
            analysis.problems.append(Problem(f"no target '{label.name}' in package '//{label.package}'"
                                             + did_you_mean(label.name, list(analysis.targets.get(label.package, {}))),
                                             Location(packages[label.package].build_file
                                                      if label.package in packages else label.package)))
            continue
        try:
            analysis.node(target)
        except _Failed:
            pass
    if analysis.problems:
        raise UserError.of(analysis.problems)
    unique: dict[tuple[str, ...], Action] = {}
    for action in analysis.actions:
        unique.setdefault(action.outputs, action)
    return Graph(tuple(sorted(unique.values(), key=lambda a: a.outputs)), dict(analysis.nodes))
