"""The ``etsb`` command line: every command's flags, declared once, and the
parser that reads ``argv`` against them.

Each :class:`Command` lists its :class:`Flag` values; :func:`parse` returns
the command's name and its values by flag destination. Every flag has a
dashed and an underscored spelling (``--output-dir``, ``--output_dir``, as
ExecuTorch's tools spell theirs), takes ``--flag value`` or ``--flag=value``,
and is checked here: unknown flags, missing values and required flags, and
integers. Help text is made from the same declarations.

Not argparse: importing it costs more than many of these commands' whole
work, and build actions run them many times per build.
"""

from __future__ import annotations

from types import SimpleNamespace

from selective_build import __version__
from selective_build.driver.layout import OUT
from selective_build.model.records import record

# How a flag takes its value.
VALUE = "value"      # --flag X; the last one given wins
LIST = "list"        # --flag X, repeatable; every value kept in order
SWITCH = "switch"    # --flag, no value
INT = "int"          # --flag N, a non-negative integer
PAIRS = "pairs"      # --flag NAME=VALUE, repeatable; a dict, the last value of a name winning
GROUP = "group"      # --flag NAME, repeatable: the positional arguments after it, to the next one, form group NAME


@record
class Flag:
    """One option: its spellings (the first is the canonical one), where its
    value goes, how it takes it, and its help."""

    names: tuple[str, ...]
    dest: str
    kind: str
    help: str
    metavar: str = ""
    required: bool = False
    default: object = None
    choices: tuple[str, ...] = ()


@record
class Positional:
    """Arguments that are not flags: ``at_least`` to ``at_most`` (None: any number) of them."""

    dest: str
    metavar: str
    help: str
    at_least: int = 0
    at_most: int | None = None
    default: tuple[str, ...] = ()


@record
class Command:
    """A subcommand, its help line, and its arguments."""

    name: str
    help: str
    flags: tuple[Flag, ...] = ()
    positional: Positional | None = None


class UsageError(Exception):
    """A command line that does not fit its command; printed with the usage, exit status 2."""

    def __init__(self, message: str, command: str | None = None) -> None:
        super().__init__(message)
        self.command = command


def _flag(name: str, kind: str, help: str, metavar: str = "", required: bool = False, default: object = None,
          choices: tuple[str, ...] = (), short: str = "") -> Flag:
    """A flag spelled ``--name-with-dashes`` and ``--name_with_underscores`` (and ``short``, if given)."""
    dashed = "--" + name.replace("_", "-")
    underscored = "--" + name.replace("-", "_")
    names = (dashed,) + ((underscored,) if underscored != dashed else ()) + ((short,) if short else ())
    if default is None and kind == LIST:
        default = ()
    return Flag(names, name.replace("-", "_"), kind, help, metavar, required, default, choices)


_ATEN_YAML = _flag("aten-yaml", VALUE, "ATen schemas to resolve 'op:' entries against: a full "
                   "native_functions.yaml (default: etsb's aten_ops.yaml)", "PATH")
_DEFINE = _flag("define", PAIRS, "a value for select() conditions and a make variable for commands (repeatable)",
                "NAME=VALUE")
_EXECUTORCH_ROOT = _flag("executorch-root", VALUE, "an ExecuTorch source tree, the repository '@executorch' of "
                         "BUILD files (default: $EXECUTORCH_ROOT)", "DIR")
_OUTPUT_DIR = "DIR"

COMMANDS: tuple[Command, ...] = (
    Command("merge-yaml", "Merge a vendor kernel yaml over a fallback yaml into OUTPUT_DIR/merged.yaml.", (
        _flag("functions-yaml-path", VALUE, "the vendor kernel yaml; its entries win per operator", "PATH",
              required=True),
        _flag("fallback-yaml-path", VALUE, "the fallback kernel yaml; its operators that the vendor yaml lacks "
              "are added", "PATH"),
        _flag("output-dir", VALUE, "where merged.yaml is written (created if missing)", _OUTPUT_DIR, required=True),
        _ATEN_YAML,
    )),
    Command("gen-oplist", "Select operators and kernel keys from models, op lists, ops dicts and kernel yamls; "
            "write selected_operators.yaml.", (
        _flag("output-path", VALUE, "the selected_operators.yaml to write (in it, if PATH is a directory)", "PATH",
              required=True),
        _flag("model-file-path", LIST, "a .pte program whose operators and kernel keys to select (repeatable)",
              "PTE"),
        _flag("root-ops", LIST, "operators separated by commas or spaces, e.g. aten::add.out,aten::mm.out "
              "('aten::' is implied; repeatable)", "OPS"),
        _flag("include-all-overloads", SWITCH, "a --root_ops name without overload (aten::add) selects all its "
              "overloads"),
        _flag("ops-dict", LIST, "a JSON object of operator -> dtype names or kernel keys ([] for any), or @FILE "
              "holding one (repeatable)", "JSON"),
        _flag("ops-schema-yaml-path", LIST, "a kernel yaml whose every operator is selected (repeatable)", "YAML"),
        _flag("include-all-operators", SWITCH, "select every operator: the build is not selective"),
        _flag("selection-yaml-path", LIST, "a selected_operators.yaml to include in the union, e.g. another "
              "operator library's (repeatable)", "YAML"),
        _flag("backends", LIST, "backend ids to select beside the models' own, separated by commas or spaces, "
              "e.g. XnnpackBackend (repeatable)", "IDS"),
        _ATEN_YAML,
    )),
    Command("gen-all-oplist", "Union several selected_operators.yaml files into OUTPUT_DIR/selected_operators.yaml.", (
        _flag("model-file-list-path", LIST, "@FILE listing selected_operators.yaml files (or directories holding "
              "one), separated by white space; or one such path (repeatable)", "@LIST|PATH", required=True),
        _flag("output-dir", VALUE, "where selected_operators.yaml is written (created if missing)", _OUTPUT_DIR,
              required=True),
        _flag("check-ops-not-overlapping", SWITCH, "fail if two inputs select the same operator"),
        _flag("allow-include-all-overloads", SWITCH, "accept operators selected with include_all_overloads "
              "(rejected otherwise, as ExecuTorch's gen_all_oplist.py does)"),
    )),
    Command("gen-bindings", "Resolve the selection to kernels, check coverage, and generate the registration "
            "source and headers.", (
        _flag("functions-yaml-path", VALUE, "the (merged) kernel yaml of ATen operators", "YAML"),
        _flag("custom-ops-yaml-path", VALUE, "a kernel yaml of custom operators ('func:' entries)", "YAML"),
        _flag("op-selection-yaml-path", VALUE, "selected_operators.yaml (default: every operator of the yamls)",
              "YAML"),
        _flag("output-dir", VALUE, "where register_kernels.cpp, NativeFunctions.h, CustomOpsNativeFunctions.h "
              "and Functions.h are written", _OUTPUT_DIR, required=True),
        _flag("lib-name", VALUE, "names register_NAME_kernels() and NAME_kernels() (a C identifier)", "NAME",
              default="all"),
        _flag("manual-registration", SWITCH, "no static initialiser: call etsb::register_NAME_kernels() or pass "
              "etsb::NAME_kernels() to Program::load_method"),
        _flag("model-entry", SWITCH, "also define etsb::register_model_kernels(), which the model runner library "
              "(tools/runner, compiled once with -DETSB_MODEL_ENTRY) calls"),
        _flag("backend-library-path", LIST, "a backend library declaration (backend-library writes one): the "
              "selection's backends must each be provided by one (repeatable)", "YAML"),
        _flag("backends-output", VALUE, "also write the GNU ld script that links the backend libraries the "
              "selection needs (a link input)", "PATH"),
        _ATEN_YAML,
    )),
    Command("backend-library", "Write a backend library declaration: the backends a shared library registers, "
            "for gen-bindings --backend-library-path.", (
        _flag("backends", LIST, "the backend ids the library registers when loaded, e.g. XnnpackBackend "
              "(commas or spaces; repeatable)", "IDS", required=True),
        _flag("library", VALUE, "the shared library to link", "PATH", required=True),
        _flag("needs", LIST, "a library it needs beside it at run time (repeatable)", "PATH"),
        _flag("output", VALUE, "the declaration to write", "PATH", required=True),
    )),
    Command("check-attrs", "Check the operator names, ops dict and backend ids of a CMake rule call, as the "
            "commands that take them will read them; each problem names the call's file, rule, target and "
            "attribute.", (
        _flag("file", VALUE, "the CMakeLists.txt of the call", "PATH", required=True),
        _flag("rule", VALUE, "the rule called, e.g. et_operator_library", "RULE", required=True),
        _flag("name", VALUE, "the target the call makes", "NAME", required=True),
        _flag("ops", LIST, "an operator name given in OPS (repeatable)", "OP"),
        _flag("ops-dict", VALUE, "the JSON object given in OPS_DICT", "JSON"),
        _flag("backends", LIST, "a backend id given in BACKENDS (repeatable)", "ID"),
    )),
    Command("kernel-sources", "List the sources of a kernel library's tree that the selected kernels need: the "
            "file defining each, and the utility sources those include (selected operators without a kernel are "
            "left to gen-bindings to report).", (
        _flag("root", VALUE, "the source tree, holding kernels/ (an ExecuTorch checkout)", "TREE"),
        _flag("sources-under", LIST, "with --root: a folder of the tree whose .cpp and .h files (test folders "
              "aside) make up the library (default: kernels/portable/cpu)", "DIR"),
        _flag("functions-yaml-path", VALUE, "the (merged) kernel yaml of ATen operators", "YAML"),
        _flag("custom-ops-yaml-path", VALUE, "a kernel yaml of custom operators ('func:' entries)", "YAML"),
        _flag("op-selection-yaml-path", VALUE, "selected_operators.yaml (default: every operator of the yamls)",
              "YAML"),
        _flag("output", VALUE, "the list to write, one path a line (absolute with --root, as given with "
              "FILE arguments; default: standard output)", "PATH"),
        _flag("switch-names-output", VALUE, "also write the names the listed sources' dtype switches may take, "
              "each with the operators that may run it, for gen-op-variants --switch-names", "PATH"),
        _flag("wrappers-dir", VALUE, "also write, for the i-th source (not header) FILE of the k-th --library, DIR/k/i_NAME: "
              "an #include of it if it is listed, else a comment (for build systems that must know every "
              "source when configuring, as CMake does; a file keeps its time when its text stays)", "DIR"),
        _flag("wrappers-include", VALUE, "with --wrappers-dir: a header each wrapper that includes a source includes "
              "first (a dtype-selective build's selected_op_variants.h; the others stay empty)", "HEADER"),
        _flag("other-libraries", SWITCH, "other kernel libraries, not listed, are linked too: a kernel no listed "
              "file defines is theirs, not an error"),
        _flag("library", GROUP, "names a kernel library whose files are the FILE arguments after it, up to the next "
              "--library; a kernel that several libraries define is taken from the first given (a vendor library "
              "before the fallback it is merged over)", "NAME"),
        _ATEN_YAML,
    ), Positional("library_files", "FILE", "instead of --root: the library's .cpp and .h files (the build rules "
                                           "pass every file the library declares)")),
    Command("gen-op-variants", "Write selected_op_variants.h: the dtypes each selected operator's kernels may "
            "switch on.", (
        _flag("yaml-file-path", VALUE, "selected_operators.yaml (ours or ExecuTorch's)", "YAML", required=True),
        _flag("output-dir", VALUE, "where selected_op_variants.h is written", _OUTPUT_DIR, required=True),
        _flag("switch-names", VALUE, "switch names other than the operators' own, each with its operators (from "
              "kernel-sources --switch-names-output)", "PATH"),
    )),
    Command("validate-yaml", "Parse and validate kernel yaml files; report every problem with its place.",
            (_ATEN_YAML,), Positional("paths", "YAML", "kernel yaml files to check", at_least=1)),
    Command("build", f"Evaluate BUILD files and build the targets with ninja (outputs under {OUT}/).", (
        _flag("jobs", INT, "parallel jobs (ninja's default otherwise)", "N", short="-j"),
        _DEFINE,
        _EXECUTORCH_ROOT,
    ), Positional("targets", "TARGET", "labels or patterns: //examples/mlp:bin, //examples/..., :bin "
                                       "(default //...)", default=("//...",))),
    Command("query", "List targets, their dependencies or their outputs.", (
        _flag("output", VALUE, "what to print per target: its label, its rule and where it was made, every target "
              "it depends on, its output files, everything as JSON, or the operators it registers (building "
              "their selection)", "FORMAT", default="label",
              choices=("label", "rule", "deps", "outputs", "json", "ops")),
        _DEFINE,
        _EXECUTORCH_ROOT,
    ), Positional("targets", "TARGET", "labels or patterns (default //...)", default=("//...",))),
    Command("pick-smaller", "Copy the smallest (stripped) of several linked binaries, with its link map.", (
        _flag("output", VALUE, "the binary to write (and PATH.map)", "PATH", required=True),
        _flag("no-link-map", SWITCH, "the candidates have no link maps (Bazel, Buck2): write the binary alone"),
        _flag("beside", LIST, "a file to copy beside the output too (a shared library the binary finds at $ORIGIN)",
              "FILE"),
    ), Positional("candidates", "BINARY", "linked binaries with their link maps beside them (BINARY.map); the "
                                          "first wins ties", at_least=1)),
    Command("clean", f"Remove every build output under {OUT}/."),
    Command("doctor", "Check what etsb needs on this machine (compiler, ninja, cmake, the BUILD file evaluator "
            "or Go to build it, the ExecuTorch runtime wheel) and say how to get what is missing."),
    Command("size", "Stripped size of a binary by part (runtime, kernels per operator, registration), beside the "
            "same binary with every kernel.", (
        _flag("top", INT, "list only the N largest operators (default: all)", "N", default=0),
        _flag("format", VALUE, "print a table, or JSON (every part and operator, in bytes)", "FORMAT",
              default="text", choices=("text", "json")),
        _flag("html", VALUE, "also write a self-contained HTML page of the parts as bars to FILE", "FILE"),
        _DEFINE,
        _EXECUTORCH_ROOT,
    ), Positional("target", "TARGET", "an et_model_binary (or any cxx_binary) label", at_least=1, at_most=1)),
)

_BY_NAME = {command.name: command for command in COMMANDS}
_HELP = ("-h", "--help")


def parse(argv: list[str]) -> tuple[Command, SimpleNamespace] | str:
    """The command ``argv`` runs and its values by destination; or the text to
    print and exit with 0 (``--help``, ``--version``, no command). Raise
    UsageError for anything that does not fit."""
    if not argv or argv[0] in _HELP:
        return main_help()
    if argv[0] == "--version":
        return f"etsb {__version__}"
    if argv[0] == "--cmakedir":
        import os

        from selective_build.driver.state import REPO

        # The folder of etsbConfig.cmake, for find_package(etsb) (-Detsb_DIR=...).
        return os.path.join(REPO, "rules", "cmake")
    if argv[0] == "--root":
        from selective_build.driver.state import REPO

        # etsb's tree (rules, kernels, runtime, Bazel module): a Bazel project's local_repository path.
        return REPO
    command = _BY_NAME.get(argv[0])
    if command is None:
        from selective_build.model.errors import did_you_mean

        what = "option" if argv[0].startswith("-") else "command"
        raise UsageError(f"unknown {what} '{argv[0]}'{did_you_mean(argv[0], _BY_NAME)}; commands: "
                         f"{', '.join(_BY_NAME)}")
    if any(arg in _HELP for arg in argv[1:argv.index("--") if "--" in argv else len(argv)]):
        return command_help(command)
    return command, _values(command, argv[1:])


def _values(command: Command, argv: list[str]) -> SimpleNamespace:
    """Each flag's value by destination, and the positional arguments."""
    flags = {name: flag for flag in command.flags for name in flag.names}
    values: dict[str, object] = {}
    for flag in command.flags:
        values[flag.dest] = {LIST: lambda: list(flag.default), PAIRS: dict, SWITCH: lambda: False,
                             GROUP: list}.get(flag.kind, lambda: flag.default)()
    given: set[str] = set()
    positional: list[str] = []
    # Where positional arguments go: the list itself, or the last GROUP flag's group.
    collecting = positional
    arguments = iter(argv)
    for argument in arguments:
        if argument == "--":
            collecting.extend(arguments)
            break
        if not argument.startswith("-") or argument == "-":
            collecting.append(argument)
            continue
        name, equals, inline = argument.partition("=")
        if not equals and name not in flags and name[:2] in flags and flags[name[:2]].kind == INT:
            name, equals, inline = name[:2], "=", name[2:]  # -j4
        flag = flags.get(name)
        if flag is None:
            from selective_build.model.errors import did_you_mean

            raise UsageError(f"unknown option '{name}'{did_you_mean(name, flags)}", command.name)
        given.add(flag.dest)
        if flag.kind == SWITCH:
            if equals:
                raise UsageError(f"{name} takes no value", command.name)
            values[flag.dest] = True
            continue
        value = inline if equals else next(arguments, None)
        if value is None:
            raise UsageError(f"{name} needs a value ({flag.metavar or 'VALUE'})", command.name)
        if flag.kind == LIST:
            values[flag.dest].append(value)
        elif flag.kind == GROUP:
            collecting = []
            values[flag.dest].append((value, collecting))
        elif flag.kind == PAIRS:
            key, equals, pair_value = value.partition("=")
            if not equals or not key:
                raise UsageError(f"{name} takes NAME=VALUE, not '{value}'", command.name)
            values[flag.dest][key] = pair_value
        else:
            values[flag.dest] = _checked(command, flag, name, value)
    missing = [flag.names[0] for flag in command.flags if flag.required and flag.dest not in given]
    if missing:
        raise UsageError(f"missing {', '.join(missing)}", command.name)
    if command.positional is not None:
        values[command.positional.dest] = _positional(command, command.positional, positional)
    elif positional:
        raise UsageError(f"unexpected argument '{positional[0]}'", command.name)
    return SimpleNamespace(**values)


def _checked(command: Command, flag: Flag, name: str, value: str) -> object:
    """A flag's value, converted and checked against its kind and choices."""
    if flag.kind == INT:
        if not (value.isdigit() and value.isascii()):
            raise UsageError(f"{name} takes a non-negative integer, not '{value}'", command.name)
        return int(value)
    if flag.choices and value not in flag.choices:
        raise UsageError(f"{name} must be one of {', '.join(flag.choices)}, not '{value}'", command.name)
    return value


def _positional(command: Command, spec: Positional, given: list[str]) -> object:
    """The positional arguments: a list, or the one value when at most one is taken."""
    if len(given) < spec.at_least:
        raise UsageError(f"missing {spec.metavar} ({spec.help})", command.name)
    if spec.at_most is not None and len(given) > spec.at_most:
        raise UsageError(f"unexpected argument '{given[spec.at_most]}'", command.name)
    values = given or list(spec.default)
    return values[0] if spec.at_most == 1 else values


# -- help ---------------------------------------------------------------------------


def usage_line(command: Command) -> str:
    """``usage: etsb NAME [flags] ...`` for one command."""
    parts = [f"usage: etsb {command.name}"]
    for flag in command.flags:
        spelled = flag.names[0] if flag.kind == SWITCH else f"{flag.names[0]} {flag.metavar or 'VALUE'}"
        parts.append(spelled if flag.required else f"[{spelled}]")
    if command.positional is not None:
        spec = command.positional
        text = spec.metavar + (" ..." if spec.at_most != 1 else "")
        parts.append(text if spec.at_least else f"[{text}]")
    return " ".join(parts)


def command_help(command: Command) -> str:
    """The ``etsb NAME --help`` text."""
    lines = [usage_line(command), "", command.help]
    if command.positional is not None:
        lines += ["", "arguments:", f"  {command.positional.metavar:28} {command.positional.help}"]
    if command.flags:
        lines += ["", "options:"]
        for flag in command.flags:
            spelled = ", ".join(flag.names) + ("" if flag.kind == SWITCH else f" {flag.metavar or 'VALUE'}")
            lines.append(f"  {spelled}")
            lines.append(f"      {flag.help}" + (" (required)" if flag.required else ""))
    return "\n".join(lines)


def main_help() -> str:
    """The ``etsb --help`` text: every command and its help line."""
    width = max(len(c.name) for c in COMMANDS)
    return "\n".join(["usage: etsb COMMAND [options]  (etsb COMMAND --help for a command's options)", "",
                      "Selective builds of ExecuTorch kernel libraries: select the operators a model needs, "
                      "resolve them to kernels, generate registration code and build a size-trimmed binary.",
                      "", "commands:"]
                     + [f"  {c.name:{width}}  {c.help}" for c in COMMANDS]
                     + ["", "  --version   print etsb's version",
                        "  --cmakedir  print the folder of etsbConfig.cmake (-Detsb_DIR=$(etsb --cmakedir))",
                        "  --root      print etsb's tree, a Bazel repository and module (local_repository(path = ...))"])
