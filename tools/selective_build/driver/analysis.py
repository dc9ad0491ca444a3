"""The core of analysis, whatever the rule: the values it makes (``Config``,
``Action``, ``Node``, ``Graph``), attributes read through the rule table with
``select()`` resolved against the configuration, labels resolved to targets or
files, and the analysis of a target on first use, through the rule table that
:mod:`~selective_build.driver.graph` gives. Each rule kind's analysis lives in
its own module (``genrule``, ``cxx``). Pure: the file system is seen only
through ``Config.exists``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from selective_build.driver.attr_values import genrule_outputs, strings
from selective_build.driver.evaluate import Package, Target
from selective_build.driver.labels import Label, LabelError, package_label, parse_label, split_external
from selective_build.driver.layout import bin_dir, checks_dir, configuration_dir, obj_dir
from selective_build.driver.platforms import CONFIGS, DEFAULT_CONFIG, HOST
from selective_build.driver.primitives import RULES, canonical_attrs, label_attrs
from selective_build.model.errors import Problem, did_you_mean
from selective_build.model.records import record


@record
class Config:
    """What the build depends on besides the BUILD files: make variables
    (``$(NAME)`` in commands and flags), ``--define`` values for ``select()``,
    the compiler and its flags, and a view of which source files exist."""

    make_variables: Mapping[str, str]
    defines: Mapping[str, str]
    cxx: str
    exists: Callable[[str], bool]
    tool: tuple[str, ...] = ()  # the command that runs etsb's own tool (the driver's checks)
    main_names: tuple[str, ...] = ()  # repository names meaning the main one ('@etsb//' inside etsb)
    repositories: tuple[str, ...] = ()  # the external repositories' names
    missing: Mapping[str, str] | None = None  # why a repository is absent, by name
    # The platform's and configuration's flags (driver/platforms.py) and archiver.
    compile_flags: tuple[str, ...] = CONFIGS[DEFAULT_CONFIG].compile_flags
    link_flags: tuple[str, ...] = ()
    ar: str = "ar"
    # What each compile runs under (``$ETSB_CXX_LAUNCHER``, e.g. ``ccache``); links run bare.
    launcher: tuple[str, ...] = ()
    # Whether libraries' tagged headers are precompiled (driver/pch.py; $ETSB_PCH).
    precompiled_headers: bool = False
    # The output folder of this platform and configuration (layout.configuration_dir).
    out: str = configuration_dir(HOST, DEFAULT_CONFIG)

    @property
    def bin(self) -> str:
        """Where generated files and binaries go, by package."""
        return bin_dir(self.out)

    @property
    def obj(self) -> str:
        """Where objects go, by package and target."""
        return obj_dir(self.out)

    @property
    def checks(self) -> str:
        """Where the build-time checks write."""
        return checks_dir(self.out)


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
    # Libraries of its `objects_of` libraries linked only when one of those libraries' sources is
    # selected (cmsis-nn below ExecuTorch's Cortex-M kernels), each with the file that names its
    # archive then, empty otherwise (a link's @file: driver/cxx.py).
    linked_if_selected: tuple[tuple["Node", str], ...] = ()


@record
class Graph:
    """Every action needed for the requested targets, and what each provides."""

    actions: tuple[Action, ...]
    nodes: Mapping[Label, Node]


def unique(items: Iterable[str]) -> list[str]:
    """``items`` in order, each once."""
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def source_files(actions: Iterable[Action]) -> list[str]:
    """Every file the actions read that no action writes (the workspace's sources), sorted."""
    actions = list(actions)
    written = {path for action in actions for path in action.outputs}
    return sorted({path for action in actions for path in (*action.inputs, *action.implicit, *action.order_only)
                   if path not in written and not path.startswith("/")})


class _Failed(Exception):
    """Analysis of one target failed; its problem is already recorded."""


# How a rule kind is analysed: the analysis, the target -> its node.
RuleAnalysis = Callable[["Analysis", Target], Node]


class Analysis:
    """The state of one analysis: resolved nodes, emitted actions, problems.
    ``rules`` maps each rule kind to the function that analyses its targets."""

    def __init__(self, packages: Mapping[str, Package], config: Config, rules: Mapping[str, RuleAnalysis]) -> None:
        self.packages = packages
        self.config = config
        self.rules = rules
        self.targets = {pkg: {t.name: t for t in p.targets} for pkg, p in packages.items()}
        self.outputs_of = genrule_outputs(packages)  # (package, output name) -> genrule target
        self.canonical_attrs: dict[Label, dict] = {}
        self.nodes: dict[Label, Node] = {}
        self.failed: set[Label] = set()
        self.in_progress: list[Label] = []
        self.actions: list[Action] = []
        # Compiles that may read a precompiled header shared with other libraries' (driver/pch_shared.py).
        self.sharers: list = []
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
        attrs = self.canonical_attrs.get(target.label)
        if attrs is None:
            attrs = self.canonical_attrs[target.label] = canonical_attrs(target.rule, target.attrs)
        value = attrs.get(name)
        if value is None:
            return default
        return self.resolve_select(target, name, value)

    def resolve_select(self, target: Target, name: str, value: object) -> object:
        """``value`` with every ``select()`` in it replaced by the branch the configuration chooses."""
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
        """The value of the one condition the ``--define`` values match, or the
        default. Of several that match, one that requires all the others
        require (and more) wins, as in Bazel: `cortex_m55_size` over `cortex_m55`."""
        matched = []
        for key, value in conditions.items():
            if key == "//conditions:default":
                continue
            setting = self.config_setting(target, key)
            if all(self.config.defines.get(k) == v for k, v in setting.items()):
                matched.append((key, value, setting.items()))
        if len(matched) > 1:
            matched = [m for m in matched if all(m[2] >= other[2] for other in matched)] or matched
        if len(matched) > 1:
            raise self.fail(target, f"attribute '{name}': select() matches more than one condition: "
                                    f"{', '.join(key for key, _, _ in matched)}")
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

    def canonical(self, target: Target, text: str) -> str:
        """The label ``text``, written in ``target``'s package, spelled in full."""
        try:
            return str(parse_label(text, target.package, self.config.main_names))
        except LabelError as error:
            raise self.fail(target, str(error)) from None

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
            return None, (f"{self.config.bin}/{label.relative}",)
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
            # Which requested target needs it, and through what: the user's target, not only etsb's own.
            path = f"; {self.in_progress[0]} needs it through " + " -> ".join(map(str, self.in_progress)) \
                if len(self.in_progress) > 1 else ""
            return f"label '{text}' names the repository '@{external[0]}', which this build does not have " \
                   f"(it has: {known}{path})" + (f": {hint}" if hint else "")
        return f"no such package '{package_label(label.package)}' for label '{text}' (etsb gives the repository " \
               f"'@{external[0]}' no BUILD file there)"

    def files(self, target: Target, attr: str) -> tuple[str, ...]:
        """The files an attribute's labels stand for, in order, without repeats."""
        result: list[str] = []
        for text in strings(self.attr(target, attr, [])):
            for path in self.resolve_label(target, text)[1]:
                if path not in result:
                    result.append(path)
        return tuple(result)

    # -- nodes ---------------------------------------------------------------

    def node(self, target: Target, requested_by: Target | None = None) -> Node:
        """The analysed ``target``, analysing it on first use with its rule's analysis."""
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
            node = self.rules[target.rule](self, target)
        except _Failed:
            self.failed.add(label)
            raise
        finally:
            self.in_progress.pop()
        self.nodes[label] = node
        return node

    def configured_label_texts(self, target: Target) -> list[str]:
        """Every string of ``target``'s label attributes with ``select()`` resolved
        for this configuration (every branch of one it cannot resolve: the
        analysis reports why)."""
        texts: list[str] = []
        for attr in label_attrs(target.rule):
            value = target.attrs.get(attr)
            try:
                texts += strings(self.resolve_select(target, attr, value))
            except _Failed:
                texts += strings(value)
        return texts

    def request(self, target: Target) -> None:
        """Analyse a requested ``target``; a failure is already among the problems."""
        try:
            self.node(target)
        except _Failed:
            pass


# -- the rules that need nothing but the core -----------------------------------

def export_file(analysis: Analysis, target: Target) -> Node:
    """An export_file: the one source file it names (``src``, else its name), which must exist."""
    src = analysis.attr(target, "src") or target.name
    path = Label(target.package, src).path
    if not analysis.config.exists(path):
        raise analysis.fail(target, f"the exported file {path} does not exist")
    return Node(target, (path,))


def filegroup(analysis: Analysis, target: Target) -> Node:
    """A filegroup: the files its ``srcs`` stand for."""
    return Node(target, analysis.files(target, "srcs"))


def config_setting(analysis: Analysis, target: Target) -> Node:
    """A config_setting provides no file; ``select()`` reads its values (:meth:`Analysis.config_setting`)."""
    return Node(target, ())
