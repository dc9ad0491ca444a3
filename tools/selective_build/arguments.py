"""The ``etsb`` command line, declared: every command, its flags, the checks
across its flags, once. :mod:`selective_build.argv` reads ``argv`` against
these declarations, makes the help text from them and then applies the
rules a command declares between its flags (:func:`selective_build.argv.check`); and
:data:`selective_build.commands.RUNS` pairs each declaration with the
function that runs it.

Each :class:`Command` lists its :class:`Flag` values and its :class:`Rule`
values. A rule's problem is the user's (a :class:`UserError` at the command,
exit status 2), as is a flag's own ``check``.
"""

from __future__ import annotations


from selective_build.driver.layout import OUT
from selective_build.driver.platforms import (CONFIG_DEFINE, CONFIGS, DEFAULT_CONFIG, HOST, PLATFORM_DEFINE,
                                              PLATFORMS, SIZE_CONFIG)
from selective_build.model.records import record
from selective_build.model.front_ends import FRONT_ENDS

TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Callable

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
    # The value's own check: the problem with it, or None (a UserError at the flag).
    check: Callable[[str], str | None] | None = None


@record
class Positional:
    """Arguments that are not flags: ``at_least`` to ``at_most`` (None: any number) of them."""

    dest: str
    metavar: str
    help: str
    at_least: int = 0
    at_most: int | None = None
    default: tuple[str, ...] = ()


# How a rule relates its arguments (flag or positional destinations).
ANY = "any"        # at least one of them is given
EITHER = "either"  # the first or any of the others is given, not both, not neither
NEEDS = "needs"    # the first is given only with the second
# Given: a value other than the default; a GROUP flag, when one of its groups has files.


@record
class Rule:
    """A check across a command's arguments, and its message when it fails."""

    kind: str
    dests: tuple[str, ...]
    message: str


@record
class Command:
    """A subcommand, its help line, its arguments, and the rules between them."""

    name: str
    help: str
    flags: tuple[Flag, ...] = ()
    positional: Positional | None = None
    rules: tuple[Rule, ...] = ()
    # Where the arguments after ``--`` go, untouched ('': they are positional arguments).
    passthrough: str = ""


def _flag(name: str, kind: str, help: str, metavar: str = "", required: bool = False, default: object = None,
          choices: tuple[str, ...] = (), short: str = "", check: Callable[[str], str | None] | None = None) -> Flag:
    """A flag spelled ``--name-with-dashes`` and ``--name_with_underscores`` (and ``short``, if given)."""
    dashed = "--" + name.replace("_", "-")
    underscored = "--" + name.replace("-", "_")
    names = (dashed,) + ((underscored,) if underscored != dashed else ()) + ((short,) if short else ())
    if default is None and kind == LIST:
        default = ()
    return Flag(names, name.replace("-", "_"), kind, help, metavar, required, default, choices, check)


def _c_identifier(value: str) -> str | None:
    """The problem with ``value`` as a C identifier, or None."""
    return None if value.isidentifier() and value.isascii() else f"'{value}' is not a C identifier"


_ATEN_YAML = _flag("aten-yaml", VALUE, "ATen schemas to resolve 'op:' entries against: a full "
                   "native_functions.yaml (default: etsb's aten_ops.yaml)", "PATH")
_DEFINE = _flag("define", PAIRS, "a value for select() conditions and a make variable for commands (repeatable)",
                "NAME=VALUE")
_EXECUTORCH_ROOT = _flag("executorch-root", VALUE, "an ExecuTorch source tree, the repository '@executorch' of "
                         "BUILD files (default: $EXECUTORCH_ROOT, else ../shared/third_party/executorch beside the "
                         "workspace)", "DIR")
# What a build compiles for and with which flags: the names are driver/platforms.py's.
_PLATFORM = _flag("platform", VALUE, f"the platform to build for (default {HOST}; the same as --define "
                  f"{PLATFORM_DEFINE}=NAME, which may not name another), one of:"
                  + "".join(f"\n        {name}: {platform.doc}" for name, platform in PLATFORMS.items()),
                  "NAME", choices=tuple(PLATFORMS))
_CONFIG = _flag("config", VALUE, f"the build configuration: {', '.join(CONFIGS)} (default {DEFAULT_CONFIG}; "
                f"'{SIZE_CONFIG}' for the smallest binary, with the deploy runner; the same as --define "
                f"{CONFIG_DEFINE}=NAME, which may not name another)", "NAME", choices=tuple(CONFIGS))
_OUTPUT_DIR = "DIR"
# gen-bindings and kernel-sources read either kernel yaml or both.
_SOME_KERNEL_YAML = Rule(ANY, ("functions_yaml_path", "custom_ops_yaml_path"),
                         "give --functions-yaml-path, --custom-ops-yaml-path or both")

MERGE_YAML = Command("merge-yaml",
    "Merge a vendor kernel yaml over a fallback yaml into OUTPUT_DIR/merged.yaml.", (
    _flag("functions-yaml-path", VALUE, "the vendor kernel yaml; its entries win per operator", "PATH",
          required=True),
    _flag("fallback-yaml-path", VALUE, "the fallback kernel yaml; its operators that the vendor yaml lacks "
          "are added", "PATH"),
    _flag("output-dir", VALUE, "where merged.yaml is written (created if missing)", _OUTPUT_DIR, required=True),
    _ATEN_YAML,
))

GEN_OPLIST = Command("gen-oplist",
    "Select operators and kernel keys from models, op lists, ops dicts and kernel yamls; "
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
), rules=(
    Rule(ANY, ("model_file_path", "root_ops", "ops_dict", "ops_schema_yaml_path", "selection_yaml_path", "backends",
               "include_all_operators"),
         "no source of operators: give --model_file_path, --root_ops, --ops_dict, --ops_schema_yaml_path, "
         "--selection_yaml_path, --backends or --include_all_operators"),
))

GEN_ALL_OPLIST = Command("gen-all-oplist",
    "Union several selected_operators.yaml files into OUTPUT_DIR/selected_operators.yaml.", (
    _flag("model-file-list-path", LIST, "@FILE listing selected_operators.yaml files (or directories holding "
          "one), separated by white space; or one such path (repeatable)", "@LIST|PATH", required=True),
    _flag("output-dir", VALUE, "where selected_operators.yaml is written (created if missing)", _OUTPUT_DIR,
          required=True),
    _flag("check-ops-not-overlapping", SWITCH, "fail if two inputs select the same operator"),
    _flag("allow-include-all-overloads", SWITCH, "accept operators selected with include_all_overloads "
          "(rejected otherwise, as ExecuTorch's gen_all_oplist.py does)"),
))

GEN_BINDINGS = Command("gen-bindings",
    "Resolve the selection to kernels, check coverage, and generate the registration "
    "source and headers.", (
    _flag("functions-yaml-path", VALUE, "the (merged) kernel yaml of ATen operators", "YAML"),
    _flag("custom-ops-yaml-path", VALUE, "a kernel yaml of custom operators ('func:' entries)", "YAML"),
    _flag("op-selection-yaml-path", VALUE, "selected_operators.yaml (default: every operator of the yamls)",
          "YAML"),
    _flag("output-dir", VALUE, "where register_kernels.cpp, NativeFunctions.h, CustomOpsNativeFunctions.h "
          "and Functions.h are written", _OUTPUT_DIR, required=True),
    _flag("lib-name", VALUE, "names register_NAME_kernels() and NAME_kernels() (a C identifier)", "NAME",
          default="all", check=_c_identifier),
    _flag("manual-registration", SWITCH, "no static initialiser: call etsb::register_NAME_kernels() or pass "
          "etsb::NAME_kernels() to Program::load_method"),
    _flag("model-entry", SWITCH, "also define etsb::register_model_kernels(), which the model runner library "
          "(tools/runner, compiled once with -DETSB_MODEL_ENTRY) calls"),
    _flag("backend-library-path", LIST, "a backend library declaration (backend-library writes one): the "
          "selection's backends must each be provided by one (repeatable)", "YAML"),
    _flag("backends-output", VALUE, "also write the GNU ld script that links the backend libraries the "
          "selection needs (a link input)", "PATH"),
    _flag("max-kernel-num-output", VALUE, "also write ExecuTorch's selected_max_kernel_num.h: a kernel registry "
          "of as many slots as the library registers, and the runtime's prim ops", "PATH"),
    _flag("prim-ops-header-output", VALUE, "also write ExecuTorch's selected_prim_ops.h: the prim ops the "
          "selection names (none: every prim op), for ExecuTorch's prim ops compiled with "
          "-DET_PRIM_OPS_SELECTIVE_BUILD", "PATH"),
    _flag("front-end", VALUE, f"whose spelling the remedy for an operator no yaml has is given in: "
          f"{' or '.join(FRONT_ENDS)} (default: {FRONT_ENDS[0]}, BUILD files' labels)", "NAME",
          default=FRONT_ENDS[0], choices=FRONT_ENDS),
    _flag("say-library", PAIRS, "a library the catalogue chose and its kernel yaml, in the catalogue's order "
          "(repeatable): print a line for each serving operators of the selection, an operator served by the first "
          "whose yaml has it (Buck2's build, which has no kernel-sources step)", "NAME=YAML"),
    _ATEN_YAML,
), rules=(_SOME_KERNEL_YAML,))

BACKEND_LIBRARY = Command("backend-library",
    "Write a backend library declaration: the backends a shared library registers, "
    "for gen-bindings --backend-library-path.", (
    _flag("backends", LIST, "the backend ids the library registers when loaded, e.g. XnnpackBackend "
          "(commas or spaces; repeatable)", "IDS", required=True),
    _flag("library", VALUE, "the shared library to link", "PATH", required=True),
    _flag("needs", LIST, "a library it needs beside it at run time (repeatable)", "PATH"),
    _flag("output", VALUE, "the declaration to write", "PATH", required=True),
))

CHECK_ATTRS = Command("check-attrs",
    "Check the operator names, ops dict and backend ids of a CMake rule call, as the "
    "commands that take them will read them; each problem names the call's file, rule, target and "
    "attribute.", (
    _flag("file", VALUE, "the CMakeLists.txt of the call", "PATH", required=True),
    _flag("rule", VALUE, "the rule called, e.g. et_operator_library", "RULE", required=True),
    _flag("name", VALUE, "the target the call makes", "NAME", required=True),
    _flag("ops", LIST, "an operator name given in OPS (repeatable)", "OP"),
    _flag("ops-dict", VALUE, "the JSON object given in OPS_DICT", "JSON"),
    _flag("backends", LIST, "a backend id given in BACKENDS (repeatable)", "ID"),
))

KERNEL_SOURCES = Command("kernel-sources",
    "List the sources of a kernel library's tree that the selected kernels need: the "
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
    _flag("mark-plain", SWITCH, "with --switch-names-output: '=' before each listed source naming no switch "
          "(no string that could be a name, no __func__): no dtype selection reaches its switches, "
          "so etsb's driver takes the object its library compiles instead of compiling it again"),
    _flag("wrappers-dir", VALUE, "also write, for the i-th source (not header) FILE of the k-th --library, "
          "DIR/k/i_NAME: an #include of it if it is listed, else a comment (for build systems that must know every "
          "source when configuring, as CMake does; a file keeps its time when its text stays)", "DIR"),
    _flag("wrappers-include", VALUE, "with --wrappers-dir: a header each wrapper that includes a source includes "
          "first (a dtype-selective build's selected_op_variants.h; the others stay empty)", "HEADER"),
    _flag("say-libraries", SWITCH, "print a line for each --library but the first that serves operators of the "
          "selection, naming them (a model binary whose libraries the catalogue chose)"),
    _flag("other-libraries", SWITCH, "other kernel libraries, not listed, are linked too: a kernel no listed "
          "file defines is theirs, not an error"),
    _flag("library", GROUP, "names a kernel library whose files are the FILE arguments after it, up to the next "
          "--library; a kernel that several libraries define is taken from the first given (a vendor library "
          "before the fallback it is merged over)", "NAME"),
    _ATEN_YAML,
), Positional("library_files", "FILE", "instead of --root: the library's .cpp and .h files (the build rules "
                                       "pass every file the library declares)"), rules=(
    _SOME_KERNEL_YAML,
    Rule(NEEDS, ("wrappers_dir", "library"), "--wrappers-dir needs the libraries' files after --library NAME"),
    Rule(NEEDS, ("wrappers_include", "wrappers_dir"), "--wrappers-include goes with --wrappers-dir"),
    Rule(NEEDS, ("mark_plain", "switch_names_output"), "--mark-plain goes with --switch-names-output"),
    Rule(EITHER, ("root", "library_files", "library"), "give either --root (a tree) or the library's files"),
))

GEN_OP_VARIANTS = Command("gen-op-variants",
    "Write selected_op_variants.h: the dtypes each selected operator's kernels may "
    "switch on.", (
    _flag("yaml-file-path", VALUE, "selected_operators.yaml (ours or ExecuTorch's)", "YAML", required=True),
    _flag("output-dir", VALUE, "where selected_op_variants.h is written", _OUTPUT_DIR, required=True),
    _flag("switch-names", VALUE, "switch names other than the operators' own, each with its operators (from "
          "kernel-sources --switch-names-output)", "PATH"),
))

VALIDATE_YAML = Command("validate-yaml",
    "Parse and validate kernel yaml files; report every problem with its place.",
    (_ATEN_YAML,), Positional("paths", "YAML", "kernel yaml files to check", at_least=1))

BUILD = Command("build", f"Evaluate BUILD files and build the targets with ninja (outputs under {OUT}/).", (
    _flag("jobs", INT, "parallel jobs (ninja's default otherwise)", "N", short="-j"),
    _DEFINE,
    _EXECUTORCH_ROOT,
    _PLATFORM,
    _CONFIG,
), Positional("targets", "TARGET", "labels or patterns: //examples/mlp:bin, //examples/..., :bin "
                                   "(default //...)", default=("//...",)))

QUERY = Command("query",
    "List targets, their dependencies or their outputs.", (
    _flag("output", VALUE, "what to print per target: its label, its rule and where it was made, every target "
          "it depends on, its output files, everything as JSON, or the operators it registers (building "
          "their selection)", "FORMAT", default="label",
          choices=("label", "rule", "deps", "outputs", "json", "ops")),
    _flag("emulate", VALUE, "evaluate the BUILD files as this build system sees etsb's rules: etsb (its own "
          "driver) or buck2 (Buck2's prelude rules and attributes, through rules/private/shim_buck2.bzl; "
          "nothing is built, so only --output label, rule or json)", "SYSTEM", default="etsb",
          choices=("etsb", "buck2")),
    _DEFINE,
    _EXECUTORCH_ROOT,
    _PLATFORM,
    _CONFIG,
), Positional("targets", "TARGET", "labels or patterns (default //...)", default=("//...",)))

PICK_SMALLER = Command("pick-smaller",
    "Copy the smallest (stripped) of several linked binaries, with its link map.", (
    _flag("output", VALUE, "the binary to write (and PATH.map)", "PATH", required=True),
    _flag("no-link-map", SWITCH, "the candidates have no link maps (Bazel, Buck2): write the binary alone"),
    _flag("beside", LIST, "a file to copy beside the output too (a shared library the binary finds at $ORIGIN)",
          "FILE"),
), Positional("candidates", "BINARY", "linked binaries with their link maps beside them (BINARY.map); the "
                                      "first wins ties", at_least=1))

DEPLOY_SOURCE = Command("deploy-source",
    "Write the deploy runner's source for a program: its static memory sized from the program, and the "
    "program and its inputs embedded, if asked.", (
    _flag("model", VALUE, "the .pte program the binary runs", "PTE", required=True),
    _flag("output", VALUE, "the C++ source to write", "PATH", required=True),
    _flag("embed", SWITCH, "embed the program (else the binary reads it from a file at run time)"),
    _flag("inputs", LIST, "an .npy input of the first method to embed, in order (repeatable; needs --embed)",
          "NPY"),
    _flag("method-pool-bytes", INT, "the method allocator's pool (default: a bound from the program)", "N",
          default=0),
    _flag("temp-pool-bytes", INT, "scratch for kernels (the runtime's temp allocator; default none)", "N",
          default=0),
    _flag("prim-ops-header", VALUE, "also write ExecuTorch's selected_prim_ops.h: the prim ops the program calls",
          "PATH"),
    _flag("runtime-library", VALUE, "the executorch wheel's libexecutorch.so (or a link to it) whose runtime "
          "verifies an embedded program at build time (default: the wheel this Python imports)", "PATH"),
), rules=(Rule(NEEDS, ("inputs", "embed"), "--inputs needs --embed: a program read from a file takes its "
                                               "inputs from files too"),
          Rule(NEEDS, ("runtime_library", "embed"), "--runtime-library needs --embed: only an embedded program is "
                                                    "verified at build time")))

CMAKE_PLATFORM = Command("cmake-platform",
    "Write, as CMake set() commands, the flags of a platform and configuration and, with an ExecuTorch "
    "tree, the runtime etsb compiles from it (sources, flags, schema command): what etsb's CMake rules read.", (
    _flag("output", VALUE, "the CMake script to write", "PATH", required=True),
    _flag("workspace", VALUE, "a scratch folder where the tree is linked and its runtime analysed (needed "
          "with --executorch-root)", "DIR"),
    _flag("executorch-root", VALUE, "an ExecuTorch source tree whose runtime to describe (default: none, "
          "only the flags)", "DIR"),
    _PLATFORM,
    _CONFIG,
), rules=(Rule(NEEDS, ("executorch_root", "workspace"), "--executorch-root needs --workspace: the tree's "
                                                          "runtime is analysed there"),))

DEPLOY_OUTPUTS = Command("deploy-outputs",
    "Print the outputs a deploy binary printed (hexadecimal bytes) as values.", (),
    Positional("file", "FILE", "what the binary printed (default: standard input)", at_most=1))

CLEAN = Command("clean", f"Remove every build output under {OUT}/.")

DOCTOR = Command("doctor",
    "Check what etsb needs on this machine (compiler, ninja, cmake, the BUILD file evaluator "
    "or Go to build it, the ExecuTorch runtime wheel) and say how to get what is missing.")

SIZE = Command("size",
    "Stripped size of a binary by part (runtime, kernels per operator, registration), beside the "
    "same binary with every kernel.", (
    _flag("top", INT, "list only the N largest operators (default: all)", "N", default=0),
    _flag("format", VALUE, "print a table, or JSON (every part and operator, in bytes)", "FORMAT",
          default="text", choices=("text", "json")),
    _flag("html", VALUE, "also write a self-contained HTML page of the parts as bars to FILE", "FILE"),
    _DEFINE,
    _EXECUTORCH_ROOT,
    _PLATFORM,
    _CONFIG,
), Positional("target", "TARGET", "an et_model_binary (or any cxx_binary) label", at_least=1, at_most=1))

RUN = Command("run",
    "Build one binary and run it: here, or under its platform's emulator (qemu-aarch64, qemu-system-arm). "
    "The arguments after '--' are the development runner's; a deploy binary takes --model, --inputs "
    "(.npy files) and --output-dir the same way, its .npy handling done here, on the host.", (
    _flag("jobs", INT, "parallel jobs of the build (ninja's default otherwise)", "N", short="-j"),
    _DEFINE,
    _EXECUTORCH_ROOT,
    _PLATFORM,
    _CONFIG,
), Positional("target", "TARGET", "the binary: an et_model_binary (or any cxx_binary) label", at_least=1,
              at_most=1), passthrough="runner_args")

# What `etsb run` takes after '--' for a deploy binary: the development runner's
# spelling of the same things, read on the host.
DEPLOY_RUN = Command("run",
    "The arguments of a deploy binary, after '--'.", (
    _flag("model", VALUE, "the .pte program (binaries that read it from a file)", "PTE"),
    _flag("inputs", VALUE, "the first method's inputs, .npy files separated by commas", "A.npy,B.npy"),
    _flag("output-dir", VALUE, "write output_<i>.npy here (default: print the values)", "DIR"),
))

COMMANDS: tuple[Command, ...] = (MERGE_YAML, GEN_OPLIST, GEN_ALL_OPLIST, GEN_BINDINGS, BACKEND_LIBRARY,
                                  CHECK_ATTRS, KERNEL_SOURCES, GEN_OP_VARIANTS, VALIDATE_YAML, BUILD, QUERY,
                                  RUN, PICK_SMALLER, DEPLOY_SOURCE, DEPLOY_OUTPUTS, CMAKE_PLATFORM, CLEAN, DOCTOR,
                                  SIZE)
