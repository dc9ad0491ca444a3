"""The ``etsb`` command line: argument parsing only.

Each subcommand parses its flags, reads its inputs, calls the pipeline and
writes its outputs atomically. Pipeline modules are imported inside the
subcommands, so that a command pays only for what it uses. User errors are
printed as ``file:line:col: error: message``, with exit status 2 and no
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from selective_build import __version__
from selective_build.errors import UserError


def _add_aten_yaml(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--aten-yaml", "--aten_yaml", metavar="PATH",
        help="ATen schemas to resolve 'op:' entries against: a full native_functions.yaml "
             "(default: etsb's yaml/aten_ops.yaml)")


def _aten_schemas(path: str | None):
    from selective_build.aten_schemas import load_default_aten_schemas, parse_aten_schemas

    if path is None:
        return load_default_aten_schemas()
    from selective_build.files import read_text

    return parse_aten_schemas(read_text(path, "ATen yaml file"), path)


def _read_kernel_yaml(path: str, aten):
    from selective_build.files import read_text
    from selective_build.kernel_yaml import parse_kernel_yaml

    return parse_kernel_yaml(read_text(path, "kernel yaml file"), path, aten)


def _read_kernel_yamls(paths: Sequence[str], aten) -> list:
    """Read every file, reporting the problems of all of them together."""
    return _collect([lambda path=path: _read_kernel_yaml(path, aten) for path in paths])


def _read_selection(path: str):
    from selective_build.files import read_text
    from selective_build.selected_yaml import parse_selected_operators

    return parse_selected_operators(read_text(path, "selected_operators.yaml"), path)


def _collect(tasks) -> list:
    """Run every task; raise one UserError with the problems of all that failed."""
    results, problems = [], []
    for task in tasks:
        try:
            results.append(task())
        except UserError as error:
            problems.extend(error.problems)
    if problems:
        raise UserError.of(problems)
    return results


# -- merge-yaml ---------------------------------------------------------------


def _merge_yaml_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--functions-yaml-path", "--functions_yaml_path", required=True, metavar="PATH",
                        help="the vendor kernel yaml; its entries win per operator")
    parser.add_argument("--fallback-yaml-path", "--fallback_yaml_path", metavar="PATH",
                        help="the fallback kernel yaml; its operators that the vendor yaml lacks are added")
    parser.add_argument("--output-dir", "--output_dir", required=True, metavar="DIR",
                        help="where merged.yaml is written (created if missing)")
    _add_aten_yaml(parser)


def _merge_yaml(args: argparse.Namespace) -> int:
    import os

    from selective_build.emit.kernel_yaml import render_kernel_yaml
    from selective_build.files import write_text_atomic
    from selective_build.merge import merge_kernel_yaml

    aten = _aten_schemas(args.aten_yaml)
    paths = [args.functions_yaml_path] + ([args.fallback_yaml_path] if args.fallback_yaml_path else [])
    functions, *fallback = _read_kernel_yamls(paths, aten)
    merged = merge_kernel_yaml(functions, fallback[0] if fallback else None)
    write_text_atomic(os.path.join(args.output_dir, "merged.yaml"), render_kernel_yaml(merged))
    return 0


# -- validate-yaml ------------------------------------------------------------


def _validate_yaml_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="YAML", help="kernel yaml files to check")
    _add_aten_yaml(parser)


def _validate_yaml(args: argparse.Namespace) -> int:
    for parsed in _read_kernel_yamls(args.paths, _aten_schemas(args.aten_yaml)):
        operators = len(parsed.entries)
        kernels = sum(len(entry.kernels) for entry in parsed.entries)
        print(f"{parsed.path}: valid, {operators} operator{'s' * (operators != 1)}, "
              f"{kernels} kernel{'s' * (kernels != 1)}")
    return 0


# -- gen-oplist ----------------------------------------------------------------


def _gen_oplist_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output-path", "--output_path", required=True, metavar="PATH",
                        help="the selected_operators.yaml to write (in it, if PATH is a directory)")
    parser.add_argument("--model-file-path", "--model_file_path", action="append", default=[], metavar="PTE",
                        help="a .pte program whose operators and kernel keys to select (repeatable)")
    parser.add_argument("--root-ops", "--root_ops", action="append", default=[], metavar="OPS",
                        help="operators separated by commas or spaces, e.g. aten::add.out,aten::mm.out "
                             "('aten::' is implied; repeatable)")
    parser.add_argument("--include-all-overloads", "--include_all_overloads", action="store_true",
                        help="a --root_ops name without overload (aten::add) selects all its overloads")
    parser.add_argument("--ops-dict", "--ops_dict", action="append", default=[], metavar="JSON",
                        help="a JSON object of operator -> dtype names or kernel keys ([] for any), "
                             "or @FILE holding one (repeatable)")
    parser.add_argument("--ops-schema-yaml-path", "--ops_schema_yaml_path", action="append", default=[],
                        metavar="YAML", help="a kernel yaml whose every operator is selected (repeatable)")
    parser.add_argument("--include-all-operators", "--include_all_operators", action="store_true",
                        help="select every operator: the build is not selective")
    parser.add_argument("--selection-yaml-path", "--selection_yaml_path", action="append", default=[],
                        metavar="YAML", help="a selected_operators.yaml to include in the union, e.g. "
                                             "another operator library's (repeatable)")
    _add_aten_yaml(parser)


def _read_model(path: str, positions):
    from selective_build.files import mapped
    from selective_build.pte import read_program
    from selective_build.sources import from_program

    with mapped(path, ".pte file") as data:
        return from_program(read_program(data, path, positions))


def _gen_oplist(args: argparse.Namespace) -> int:
    import os

    from selective_build import sources
    from selective_build.emit.selected_operators import render_selected_operators
    from selective_build.errors import Location
    from selective_build.files import read_text, write_text_atomic
    from selective_build.selection import union

    def root_ops(text: str):
        return lambda: sources.from_root_ops(sources.parse_root_ops(text), args.include_all_overloads)

    def ops_dict(text: str):
        def read():
            if text.startswith("@"):
                path = text[1:]
                return sources.from_ops_dict(sources.parse_ops_dict(read_text(path, "ops dict file"),
                                                                    Location(path)), path)
            return sources.from_ops_dict(sources.parse_ops_dict(text))
        return read

    aten = _aten_schemas(args.aten_yaml)
    kernel_yamls = _read_kernel_yamls(args.ops_schema_yaml_path, aten) if args.ops_schema_yaml_path else []
    custom = {str(entry.name): entry.schema for parsed in kernel_yamls for entry in parsed.entries}
    positions = sources.scalar_type_positions(aten, custom)
    tasks = [root_ops(text) for text in args.root_ops] + [ops_dict(text) for text in args.ops_dict]
    tasks += [lambda path=path: _read_model(path, positions) for path in args.model_file_path]
    tasks += [lambda path=path: _read_selection(path) for path in args.selection_yaml_path]
    selections = _collect(tasks) + [sources.from_kernel_yaml(parsed) for parsed in kernel_yamls]
    if args.include_all_operators:
        selections.append(sources.everything())
    output = args.output_path
    if os.path.isdir(output):
        output = os.path.join(output, "selected_operators.yaml")
    write_text_atomic(output, render_selected_operators(union(selections)))
    return 0


# -- gen-all-oplist -------------------------------------------------------------


def _gen_all_oplist_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model-file-list-path", "--model_file_list_path", action="append", required=True,
                        metavar="@LIST|PATH",
                        help="@FILE listing selected_operators.yaml files (or directories holding one), "
                             "separated by white space; or one such path (repeatable)")
    parser.add_argument("--output-dir", "--output_dir", required=True, metavar="DIR",
                        help="where selected_operators.yaml is written (created if missing)")
    parser.add_argument("--check-ops-not-overlapping", "--check_ops_not_overlapping", action="store_true",
                        help="fail if two inputs select the same operator")
    parser.add_argument("--allow-include-all-overloads", "--allow_include_all_overloads", action="store_true",
                        help="accept operators selected with include_all_overloads (rejected otherwise, "
                             "as ExecuTorch's gen_all_oplist.py does)")


def _selection_paths(values: Sequence[str]) -> list[str]:
    import os

    from selective_build.errors import Location
    from selective_build.files import read_text

    paths = []
    for value in values:
        if value.startswith("@"):
            listed = read_text(value[1:], "list file").split()
            if not listed:
                raise UserError("the list file names no selected_operators.yaml", Location(value[1:]))
            paths.extend(listed)
        else:
            paths.append(value)
    return [os.path.join(p, "selected_operators.yaml") if os.path.isdir(p) else p for p in paths]


def _gen_all_oplist(args: argparse.Namespace) -> int:
    import os

    from selective_build.emit.selected_operators import render_selected_operators
    from selective_build.errors import Problem
    from selective_build.files import write_text_atomic
    from selective_build.selection import operators_including_all_overloads, overlaps, union

    paths = sorted(set(_selection_paths(args.model_file_list_path)))
    named = list(zip(paths, _collect([lambda path=path: _read_selection(path) for path in paths])))
    if args.check_ops_not_overlapping:
        found = overlaps(named)
        if found:
            raise UserError.of(Problem(f"operator {o.operator} is selected by {len(o.origins)} libraries: "
                                       f"{', '.join(o.origins)}") for o in found)
    merged = union(selection for _, selection in named)
    if not args.allow_include_all_overloads:
        wide = operators_including_all_overloads(merged)
        if wide:
            raise UserError.of(Problem(f"operator {name} includes all overloads (selected by "
                                       f"{', '.join(merged.sources_of(name)) or 'an unnamed source'}); "
                                       f"pass --allow_include_all_overloads to accept it") for name in wide)
    write_text_atomic(os.path.join(args.output_dir, "selected_operators.yaml"), render_selected_operators(merged))
    return 0


# -- gen-bindings ---------------------------------------------------------------


def _gen_bindings_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--functions-yaml-path", "--functions_yaml_path", metavar="YAML",
                        help="the (merged) kernel yaml of ATen operators")
    parser.add_argument("--custom-ops-yaml-path", "--custom_ops_yaml_path", metavar="YAML",
                        help="a kernel yaml of custom operators ('func:' entries)")
    parser.add_argument("--op-selection-yaml-path", "--op_selection_yaml_path", metavar="YAML",
                        help="selected_operators.yaml (default: every operator of the yamls)")
    parser.add_argument("--output-dir", "--output_dir", required=True, metavar="DIR",
                        help="where register_kernels.cpp, NativeFunctions.h, CustomOpsNativeFunctions.h "
                             "and Functions.h are written")
    parser.add_argument("--lib-name", "--lib_name", default="all", metavar="NAME",
                        help="names register_NAME_kernels() and NAME_kernels() (a C identifier)")
    parser.add_argument("--manual-registration", "--manual_registration", action="store_true",
                        help="no static initialiser: call etsb::register_NAME_kernels() or pass "
                             "etsb::NAME_kernels() to Program::load_method")
    parser.add_argument("--model-entry", "--model_entry", action="store_true",
                        help="also define etsb::register_model_kernels(), which the model runner library "
                             "(tools/runner, compiled once with -DETSB_MODEL_ENTRY) calls")
    _add_aten_yaml(parser)


def _gen_bindings(args: argparse.Namespace) -> int:
    import os

    from selective_build.emit import bindings
    from selective_build.errors import Location
    from selective_build.files import write_text_atomic
    from selective_build.resolve import resolve
    from selective_build.selection import make_selection

    if not args.lib_name.isidentifier() or not args.lib_name.isascii():
        raise UserError(f"--lib-name '{args.lib_name}' is not a C identifier", Location("--lib-name"))
    aten = _aten_schemas(args.aten_yaml)
    paths = [path for path in (args.functions_yaml_path, args.custom_ops_yaml_path) if path]
    if not paths:
        raise UserError("give --functions-yaml-path, --custom-ops-yaml-path or both", Location("gen-bindings"))
    kernel_yamls = _read_kernel_yamls(paths, aten)
    if args.op_selection_yaml_path:
        selection = _read_selection(args.op_selection_yaml_path)
    else:
        selection = make_selection(include_all_operators=True)
    resolution = resolve(kernel_yamls, selection)
    for name, text in bindings.render_bindings(resolution, args.lib_name, args.manual_registration,
                                                     args.model_entry).items():
        write_text_atomic(os.path.join(args.output_dir, name), text)
    return 0


# -- gen-op-variants -------------------------------------------------------------


def _gen_op_variants_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yaml-file-path", "--yaml_file_path", required=True, metavar="YAML",
                        help="selected_operators.yaml (ours or ExecuTorch's)")
    parser.add_argument("--output-dir", "--output_dir", required=True, metavar="DIR",
                        help="where selected_op_variants.h is written")


def _gen_op_variants(args: argparse.Namespace) -> int:
    import os

    from selective_build.emit.op_variants import render_op_variants
    from selective_build.files import write_text_atomic
    from selective_build.selection import dtypes_by_operator, mixed_dtype_spans

    selection = _read_selection(args.yaml_file_path)
    selected = None if selection.include_all_operators else tuple(selection.operators)
    write_text_atomic(os.path.join(args.output_dir, "selected_op_variants.h"),
                      render_op_variants(dtypes_by_operator(selection), selected, mixed_dtype_spans(selection)))
    return 0


# -- build, query, clean, size (the embedded build driver) -----------------------


def _add_defines(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--define", action="append", default=[], metavar="NAME=VALUE",
                        help="a value for select() conditions and a make variable for commands (repeatable)")


def _build_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("targets", nargs="*", default=["//..."], metavar="TARGET",
                        help="labels or patterns: //examples/mlp:bin, //examples/..., :bin (default //...)")
    parser.add_argument("-j", "--jobs", type=int, metavar="N", help="parallel jobs (ninja's default otherwise)")
    _add_defines(parser)


def _build(args: argparse.Namespace) -> int:
    from selective_build.build.driver import Workspace

    workspace = Workspace.here(args.define)
    from selective_build.build.fast import report

    return report(*workspace.build(args.targets, args.jobs))


def _query_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("targets", nargs="*", default=["//..."], metavar="TARGET",
                        help="labels or patterns (default //...)")
    parser.add_argument("--output", choices=("label", "rule", "deps", "outputs", "json"), default="label",
                        help="what to print per target: its label, its rule and where it was made, every "
                             "target it depends on, its output files, or everything as JSON")
    _add_defines(parser)


def _query(args: argparse.Namespace) -> int:
    import json

    from selective_build.build.driver import Workspace

    workspace = Workspace.here(args.define)
    patterns = workspace.patterns(args.targets)
    packages = workspace.evaluate(workspace.packages_for(patterns))
    labels = workspace.matching(packages, patterns)
    if args.output in ("label", "rule", "json"):
        targets = {t.label: t for p in packages.values() for t in p.targets}
        missing = [label for label in labels if label not in targets]
        if missing:
            raise UserError(f"no target '{missing[0]}'")
        if args.output == "json":
            print(json.dumps([{"label": str(l), "rule": targets[l].rule, "attrs": targets[l].attrs,
                               "location": str(targets[l].location)} for l in labels], indent=1, sort_keys=True))
        else:
            for label in labels:
                print(label if args.output == "label"
                      else f"{targets[label].rule:14} {label}  ({targets[label].location})")
        return 0
    from selective_build.build.graph import analyse

    graph = analyse(packages, labels, workspace.config())
    if args.output == "deps":
        for label in sorted(graph.nodes):
            print(label)
    else:
        for label in labels:
            for path in graph.nodes[label].outputs:
                print(f"{label}: {path}")
    return 0


def _clean_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def _clean(args: argparse.Namespace) -> int:
    from selective_build.build.driver import Workspace

    Workspace.here().clean()
    return 0


def _size_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="TARGET", help="an et_model_binary (or any cxx_binary) label")
    parser.add_argument("--top", type=int, default=0, metavar="N",
                        help="list only the N largest operators (default: all)")
    _add_defines(parser)


def _size(args: argparse.Namespace) -> int:
    from selective_build.build.driver import Workspace
    from selective_build.build.size import measure, render_size_table

    workspace = Workspace.here(args.define)
    status, plan = workspace.build([args.target], quiet=True)
    if status != 0:
        return 1
    if len(plan["outputs"]) != 1:
        raise UserError(f"'{args.target}' names {len(plan['outputs'])} targets; name one binary")
    label = next(iter(plan["outputs"]))
    if label not in plan["binaries"]:
        raise UserError(f"{label} is a {plan['rules'][label]}, not a binary")
    measured = [measure(workspace.root, plan["outputs"][label][0], label)]
    companion = plan["companions"].get(label)
    if companion:
        status, more = workspace.build([companion], quiet=True)
        if status != 0:
            return 1
        measured.append(measure(workspace.root, more["outputs"][companion][0], companion))
    print(render_size_table(label, measured, args.top))
    return 0


# -- pick-smaller (dtype-selective builds that would not pay) ---------------------


def _pick_smaller_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", required=True, metavar="PATH", help="the binary to write (and PATH.map)")
    parser.add_argument("--no-link-map", "--no_link_map", action="store_true",
                        help="the candidates have no link maps (Bazel, Buck2): write the binary alone")
    parser.add_argument("candidates", nargs="+", metavar="BINARY",
                        help="linked binaries with their link maps beside them (BINARY.map); the first wins ties")


def _pick_smaller(args: argparse.Namespace) -> int:
    import os
    import subprocess
    import tempfile

    from selective_build.errors import Location
    from selective_build.files import read_bytes, write_bytes_atomic

    sizes = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, candidate in enumerate(args.candidates):
            if not os.path.isfile(candidate):
                raise UserError("no such binary", Location(candidate))
            stripped = os.path.join(tmp, str(index))
            run = subprocess.run(["strip", "-o", stripped, candidate], capture_output=True, text=True)
            if run.returncode != 0:
                raise UserError(f"not a binary strip can read: {run.stderr.strip().rpartition(': ')[2]}",
                                Location(candidate))
            sizes.append(os.path.getsize(stripped))
    chosen = min(range(len(sizes)), key=lambda i: (sizes[i], i))
    if not args.no_link_map:
        write_bytes_atomic(args.output + ".map", read_bytes(args.candidates[chosen] + ".map", "link map"))
    write_bytes_atomic(args.output, read_bytes(args.candidates[chosen], "binary"))
    os.chmod(args.output, 0o755)
    print(f"{args.output}: {os.path.basename(args.candidates[chosen])} ({sizes[chosen]:,} bytes stripped; "
          + ", ".join(f"{os.path.basename(c)} {s:,}" for c, s in zip(args.candidates, sizes)) + ")")
    return 0


SUBCOMMANDS = (
    ("merge-yaml", "Merge a vendor kernel yaml over a fallback yaml into OUTPUT_DIR/merged.yaml.",
     _merge_yaml_arguments, _merge_yaml),
    ("gen-oplist", "Select operators and kernel keys from models, op lists, ops dicts and kernel yamls; "
     "write selected_operators.yaml.", _gen_oplist_arguments, _gen_oplist),
    ("gen-all-oplist", "Union several selected_operators.yaml files into OUTPUT_DIR/selected_operators.yaml.",
     _gen_all_oplist_arguments, _gen_all_oplist),
    ("gen-bindings", "Resolve the selection to kernels, check coverage, and generate the registration "
     "source and headers.", _gen_bindings_arguments, _gen_bindings),
    ("gen-op-variants", "Write selected_op_variants.h: the dtypes each selected operator's kernels may "
     "switch on.", _gen_op_variants_arguments, _gen_op_variants),
    ("validate-yaml", "Parse and validate kernel yaml files; report every problem with its place.",
     _validate_yaml_arguments, _validate_yaml),
    ("build", "Evaluate BUILD files and build the targets with ninja (outputs under etsb-out/).",
     _build_arguments, _build),
    ("query", "List targets, their dependencies or their outputs.", _query_arguments, _query),
    ("pick-smaller", "Copy the smallest (stripped) of several linked binaries, with its link map.",
     _pick_smaller_arguments, _pick_smaller),
    ("clean", "Remove every build output under etsb-out/.", _clean_arguments, _clean),
    ("size", "Stripped size of a binary by part (runtime, kernels per operator, registration), beside the "
     "same binary with every kernel.", _size_arguments, _size),
)


_COMMAND_NAMES = frozenset(entry[0] for entry in SUBCOMMANDS)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every subcommand, or with ``command`` alone.

    A run of one subcommand declares only its own flags: declaring all of them
    costs more than some commands' whole work (build actions run them often)."""
    parser = argparse.ArgumentParser(
        prog="etsb",
        description="Selective builds of ExecuTorch kernel libraries: select the "
        "operators a model needs, resolve them to kernels, generate registration "
        "code and build a size-trimmed binary.",
    )
    parser.add_argument("--version", action="version", version=f"etsb {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text, add_arguments, run in SUBCOMMANDS:
        if command is None or name == command:
            sub = commands.add_parser(name, help=help_text, description=help_text)
            add_arguments(sub)
            sub.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``etsb`` with ``argv`` (default: the process arguments); return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv and argv[0] in _COMMAND_NAMES else None
    parser = build_parser(command)
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 0
    try:
        return args.run(args)
    except UserError as error:
        for problem in error.problems:
            prefix = "" if problem.location else "etsb: "
            print(f"{prefix}{problem}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
