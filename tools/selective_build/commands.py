"""What each ``etsb`` command does: one function per command, taking the values
:mod:`selective_build.arguments` parsed and returning the exit status.

Each reads its inputs through the readers, runs the stages, and writes its
outputs atomically. Modules are imported inside the functions, so that a
command pays only for what it uses (build actions run these many times).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from types import SimpleNamespace

from selective_build.model.errors import Location, Problem, UserError


# -- reading inputs, every problem of every file together ----------------------------


def _collect(tasks: Sequence[Callable[[], object]]) -> list:
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


def _aten_schemas(path: str | None):
    from selective_build.readers.aten_schemas import load_default_aten_schemas, parse_aten_schemas
    from selective_build.readers.files import read_text

    if path is None:
        return load_default_aten_schemas()
    return parse_aten_schemas(read_text(path, "ATen yaml file"), path)


def _kernel_yamls(paths: Sequence[str], aten) -> list:
    """Every kernel yaml of ``paths``, read and checked."""
    from selective_build.readers.files import read_text
    from selective_build.readers.kernel_yaml import parse_kernel_yaml

    return _collect([lambda path=path: parse_kernel_yaml(read_text(path, "kernel yaml file"), path, aten)
                     for path in paths])


def _selection(path: str):
    from selective_build.readers.files import read_text
    from selective_build.readers.selected_yaml import parse_selected_operators

    return parse_selected_operators(read_text(path, "selected_operators.yaml"), path)


def _model(path: str, positions):
    from selective_build.readers.files import mapped
    from selective_build.readers.pte import read_program
    from selective_build.stages.sources import from_program

    with mapped(path, ".pte file") as data:
        return from_program(read_program(data, path, positions))


def _write(directory: str, name: str, text: str) -> None:
    from selective_build.readers.files import write_text_atomic

    write_text_atomic(os.path.join(directory, name), text)


# -- the kernel yaml and selection tools -------------------------------------------------


def merge_yaml(args: SimpleNamespace) -> int:
    """Merge a vendor kernel yaml over a fallback one into OUTPUT_DIR/merged.yaml."""
    from selective_build.emit.kernel_yaml import render_kernel_yaml
    from selective_build.stages.merge import merge_kernel_yaml

    aten = _aten_schemas(args.aten_yaml)
    paths = [args.functions_yaml_path] + ([args.fallback_yaml_path] if args.fallback_yaml_path else [])
    functions, *fallback = _kernel_yamls(paths, aten)
    merged = merge_kernel_yaml(functions, fallback[0] if fallback else None)
    _write(args.output_dir, "merged.yaml", render_kernel_yaml(merged))
    return 0


def validate_yaml(args: SimpleNamespace) -> int:
    """Check kernel yaml files and say what each holds."""
    for parsed in _kernel_yamls(args.paths, _aten_schemas(args.aten_yaml)):
        operators = len(parsed.entries)
        kernels = sum(len(entry.kernels) for entry in parsed.entries)
        print(f"{parsed.path}: valid, {operators} operator{'s' * (operators != 1)}, "
              f"{kernels} kernel{'s' * (kernels != 1)}")
    return 0


def gen_oplist(args: SimpleNamespace) -> int:
    """Select operators from every source given and write their union."""
    from selective_build.emit.selected_operators import render_selected_operators
    from selective_build.model.selection import union
    from selective_build.readers import operator_lists
    from selective_build.readers.files import read_text
    from selective_build.stages import sources

    def ops_dict(text: str):
        if text.startswith("@"):
            path = text[1:]
            return sources.from_ops_dict(operator_lists.parse_ops_dict(read_text(path, "ops dict file"),
                                                                      Location(path)), path)
        return sources.from_ops_dict(operator_lists.parse_ops_dict(text))

    if not (args.root_ops or args.ops_dict or args.model_file_path or args.selection_yaml_path
            or args.ops_schema_yaml_path or args.include_all_operators or args.backends):
        raise UserError("no source of operators: give --model_file_path, --root_ops, --ops_dict, "
                        "--ops_schema_yaml_path, --selection_yaml_path, --backends or --include_all_operators",
                        Location("gen-oplist"))
    aten = _aten_schemas(args.aten_yaml)
    kernel_yamls = _kernel_yamls(args.ops_schema_yaml_path, aten) if args.ops_schema_yaml_path else []
    custom = {entry.name: entry.schema for parsed in kernel_yamls for entry in parsed.entries}
    positions = sources.scalar_type_positions(aten, custom)
    tasks = [lambda text=text: sources.from_root_ops(operator_lists.parse_root_ops(text), args.include_all_overloads)
             for text in args.root_ops]
    tasks += [lambda text=text: ops_dict(text) for text in args.ops_dict]
    tasks += [lambda path=path: _model(path, positions) for path in args.model_file_path]
    tasks += [lambda path=path: _selection(path) for path in args.selection_yaml_path]
    selections = _collect(tasks) + [sources.from_kernel_yaml(parsed) for parsed in kernel_yamls]
    if args.backends:
        selections.append(sources.from_backends(_backend_ids(args.backends, "--backends")))
    if args.include_all_operators:
        selections.append(sources.everything())
    output = args.output_path
    if os.path.isdir(output):
        output = os.path.join(output, "selected_operators.yaml")
    _write(os.path.dirname(output), os.path.basename(output), render_selected_operators(union(selections)))
    return 0


def _backend_ids(values: Sequence[str], flag: str) -> tuple[str, ...]:
    """The backend ids of a repeatable flag whose values separate them by commas or spaces."""
    from selective_build.model.backends import check_backend_id

    ids = sorted({word for value in values for word in value.replace(",", " ").split()})
    if not ids:
        raise UserError(f"{flag} names no backend id", Location(flag))
    for backend_id in ids:
        problem = check_backend_id(backend_id)
        if problem:
            raise UserError(problem, Location(flag))
    return tuple(ids)


def _selection_paths(values: Sequence[str]) -> list[str]:
    """The selected_operators.yaml paths of --model_file_list_path values (@LIST files expanded)."""
    from selective_build.readers.files import read_text

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


def gen_all_oplist(args: SimpleNamespace) -> int:
    """Union several selections, optionally refusing operators selected twice."""
    from selective_build.emit.selected_operators import render_selected_operators
    from selective_build.model.selection import operators_including_all_overloads, overlaps, union

    paths = sorted(set(_selection_paths(args.model_file_list_path)))
    named = list(zip(paths, _collect([lambda path=path: _selection(path) for path in paths])))
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
    _write(args.output_dir, "selected_operators.yaml", render_selected_operators(merged))
    return 0


def gen_bindings(args: SimpleNamespace) -> int:
    """Resolve the selection to kernels, prove coverage, and write the registration source and headers."""
    from selective_build.emit.bindings import render_bindings
    from selective_build.model.selection import make_selection
    from selective_build.stages.resolve import resolve

    if not args.lib_name.isidentifier() or not args.lib_name.isascii():
        raise UserError(f"--lib-name '{args.lib_name}' is not a C identifier", Location("--lib-name"))
    paths = [path for path in (args.functions_yaml_path, args.custom_ops_yaml_path) if path]
    if not paths:
        raise UserError("give --functions-yaml-path, --custom-ops-yaml-path or both", Location("gen-bindings"))
    kernel_yamls = _kernel_yamls(paths, _aten_schemas(args.aten_yaml))
    if args.op_selection_yaml_path:
        selection = _selection(args.op_selection_yaml_path)
    else:
        selection = make_selection(include_all_operators=True)
    resolution = resolve(kernel_yamls, selection)
    backend_libraries = _backend_libraries(selection, args.backend_library_path)
    for name, text in render_bindings(resolution, args.lib_name, args.manual_registration, args.model_entry).items():
        _write(args.output_dir, name, text)
    if args.backends_output:
        from selective_build.emit.backend_link import render_backend_link_script

        _write(os.path.dirname(args.backends_output) or ".", os.path.basename(args.backends_output),
               render_backend_link_script(backend_libraries))
    return 0


def check_attrs(args: SimpleNamespace) -> int:
    """Check a CMake rule call's operator names, ops dict and backend ids (nothing written)."""
    from selective_build.readers.rule_values import rule_value_problems

    values = [("OPS", op) for op in args.ops] + [("BACKENDS", backend_id) for backend_id in args.backends]
    if args.ops_dict is not None:
        values.append(("OPS_DICT", args.ops_dict))
    problems = rule_value_problems(Location(args.file), args.rule, args.name, values)
    if problems:
        raise UserError(problems[0].message, problems[0].location, problems)  # in the call's order
    return 0


def _backend_libraries(selection, declaration_paths: Sequence[str]):
    """The declared backend libraries the selection's backends need (every
    backend must be provided by one), with their files checked to exist."""
    if not selection.backends and not declaration_paths:
        return ()
    from selective_build.readers.backend_yaml import parse_backend_library
    from selective_build.readers.files import read_text
    from selective_build.stages.backends import libraries_for

    declared = [parse_backend_library(read_text(path, "backend library declaration"), path)
                for path in declaration_paths]
    chosen = libraries_for(selection, declared)
    for library in chosen:
        for path in (library.library, *library.needs):
            if not os.path.isfile(path):
                raise UserError(f"the backend library '{path}' it declares does not exist", Location(library.path))
    return chosen


def backend_library(args: SimpleNamespace) -> int:
    """Write a backend library declaration."""
    from selective_build.emit.backend_link import render_backend_declaration

    text = render_backend_declaration(_backend_ids(args.backends, "--backends"), args.library, args.needs)
    _write(os.path.dirname(args.output) or ".", os.path.basename(args.output), text)
    return 0


def kernel_sources(args: SimpleNamespace) -> int:
    """List the tree's sources that the kernels resolved for the selection need."""
    from selective_build.model.selection import make_selection
    from selective_build.readers.kernel_sources import index_kernel_sources, library_sources
    from selective_build.stages.resolve import resolve

    paths = [path for path in (args.functions_yaml_path, args.custom_ops_yaml_path) if path]
    if not paths:
        raise UserError("give --functions-yaml-path, --custom-ops-yaml-path or both", Location("kernel-sources"))
    if args.wrappers_dir and not args.library:
        raise UserError("--wrappers-dir needs the libraries' files after --library NAME", Location("kernel-sources"))
    if args.wrappers_include and not args.wrappers_dir:
        raise UserError("--wrappers-include goes with --wrappers-dir", Location("kernel-sources"))
    kernel_yamls = _kernel_yamls(paths, _aten_schemas(args.aten_yaml))
    selection = (_selection(args.op_selection_yaml_path) if args.op_selection_yaml_path
                 else make_selection(include_all_operators=True))
    # gen-bindings, run on the same selection, reports coverage gaps: once is enough.
    resolution = resolve(kernel_yamls, selection, strict=False)
    listed = args.library_files or any(files for _, files in args.library)
    if bool(args.root) == bool(listed):
        raise UserError("give either --root (a tree) or the library's files",
                        Location("kernel-sources"))
    empty = [name for name, files in args.library if not files]
    if empty:
        raise UserError(f"--library {empty[0]}: no files follow it", Location("kernel-sources"))
    if args.root:
        index = index_kernel_sources(args.root, library_sources(args.root, args.sources_under or ("kernels/portable/cpu",)))
        prefix = os.path.abspath(args.root)
    else:
        index, prefix = index_kernel_sources("", args.library_files, args.library), ""
    kernels = [(str(row.operator), row.kernel.kernel_name, row.kernel.location) for row in resolution.registrations]
    notes: list[str] = []
    needed = index.sources_for(kernels, undefined_ok=args.other_libraries, notes=notes)
    for note in notes:
        print(f"etsb: note: {note}", file=sys.stderr)
    if args.switch_names_output:
        names = index.switch_names_for((operator, kernel_name) for operator, kernel_name, _ in kernels)
        _write(os.path.dirname(args.switch_names_output) or ".", os.path.basename(args.switch_names_output),
               "".join(f"{name} {' '.join(operators)}\n" for name, operators in names.items()))
    if args.wrappers_dir:
        _write_wrappers(args.wrappers_dir, args.library, set(needed), args.wrappers_include)
    text = "".join(os.path.join(prefix, source) + "\n" for source in needed)
    if args.output:
        _write(os.path.dirname(args.output) or ".", os.path.basename(args.output), text)
    else:
        sys.stdout.write(text)
    return 0


def _write_wrappers(directory: str, libraries: list, needed: set[str], first: str | None) -> None:
    from selective_build.readers.kernel_sources import is_header

    """One source per library source, numbered as given: including it (after
    the header ``first``, if any) when ``needed`` lists it, so that a build
    system fixing its sources at configure time compiles only what is needed.
    The others hold a comment: they compile in milliseconds."""
    prelude = f'#include "{os.path.abspath(first)}"\n' if first else ""
    for place, (_, files) in enumerate(libraries):
        sources = [path for path in files if not is_header(path)]
        for number, path in enumerate(sources):
            text = (f'{prelude}#include "{os.path.abspath(path)}"\n' if path in needed
                    else f"// {os.path.basename(path)}: not needed by this selection\n")
            _write(os.path.join(directory, str(place)), f"{number}_{os.path.basename(path)}", text)


def gen_op_variants(args: SimpleNamespace) -> int:
    """Write selected_op_variants.h for a selection."""
    from selective_build.emit.op_variants import render_op_variants
    from selective_build.model.selection import dtypes_by_operator, mixed_dtype_spans

    selection = _selection(args.yaml_file_path)
    selected = None if selection.include_all_operators else tuple(selection.operators)
    aliases = _switch_names(args.switch_names) if args.switch_names else {}
    _write(args.output_dir, "selected_op_variants.h",
           render_op_variants(dtypes_by_operator(selection), selected, mixed_dtype_spans(selection), aliases))
    return 0


def _switch_names(path: str) -> dict:
    """kernel-sources' switch names: ``name operator...`` a line."""
    from selective_build.model.names import parse_operator_name
    from selective_build.readers.files import read_text

    aliases = {}
    for number, line in enumerate(read_text(path, "switch names").splitlines(), 1):
        words = line.split()
        if len(words) < 2:
            raise UserError("expected a switch name and the operators that may run it", Location(path, number))
        try:
            aliases[words[0]] = tuple(parse_operator_name(word) for word in words[1:])
        except ValueError as error:
            raise UserError(str(error), Location(path, number)) from None
    return aliases


def pick_smaller(args: SimpleNamespace) -> int:
    """Copy the smallest (stripped) of the candidate binaries, with its link map and the
    files it needs beside it (``--beside``)."""
    import subprocess
    import tempfile

    from selective_build.readers.files import read_bytes, write_bytes_atomic

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
    # Everything is read before anything is written: a missing file leaves no partial output.
    files = {args.output: read_bytes(args.candidates[chosen], "binary")}
    if not args.no_link_map:
        files[args.output + ".map"] = read_bytes(args.candidates[chosen] + ".map", "link map")
    for path in args.beside:
        files[os.path.join(os.path.dirname(args.output), os.path.basename(path))] = read_bytes(path, "file")
    for path in sorted(files, key=lambda p: p == args.output):  # the binary last
        write_bytes_atomic(path, files[path])
    os.chmod(args.output, 0o755)
    print(f"{args.output}: {os.path.basename(args.candidates[chosen])} ({sizes[chosen]:,} bytes stripped; "
          + ", ".join(f"{os.path.basename(c)} {s:,}" for c, s in zip(args.candidates, sizes)) + ")")
    return 0


# -- the build driver ---------------------------------------------------------------------


def build(args: SimpleNamespace) -> int:
    """Build the targets; a no-op build is answered from the last plan, before anything is evaluated."""
    from selective_build.driver.fast import noop_build

    status = noop_build(args.targets, args.jobs, args.define, args.executorch_root)
    if status is not None:
        return status
    from selective_build.driver.running import report
    from selective_build.driver.workspace import Workspace

    return report(*Workspace.here(args.define, args.executorch_root).build(args.targets, args.jobs))


def query(args: SimpleNamespace) -> int:
    """Print the targets the patterns match, or their dependencies or outputs."""
    import json

    from selective_build.driver.workspace import Workspace

    workspace = Workspace.here(args.define, args.executorch_root)
    patterns = workspace.patterns(args.targets)
    packages = workspace.evaluate(workspace.packages_for(patterns))
    labels = workspace.matching(packages, patterns)
    if args.output in ("label", "rule", "json"):
        targets = {t.label: t for p in packages.values() for t in p.targets}
        missing = [label for label in labels if label not in targets]
        if missing:
            raise UserError(f"no target '{missing[0]}'")
        if args.output == "json":
            print(json.dumps([{"label": str(label), "rule": targets[label].rule, "attrs": targets[label].attrs,
                               "location": str(targets[label].location)} for label in labels],
                             indent=1, sort_keys=True))
        else:
            for label in labels:
                print(label if args.output == "label"
                      else f"{targets[label].rule:14} {label}  ({targets[label].location})")
        return 0
    from selective_build.driver.graph import analyse

    if args.output == "ops":
        return _query_operators(workspace, packages, labels)
    graph = analyse(packages, labels, workspace.config())
    if args.output == "deps":
        for label in sorted(graph.nodes):
            print(label)
    else:
        for label in labels:
            for path in graph.nodes[label].outputs:
                print(f"{label}: {path}")
    return 0


def _query_operators(workspace, packages, labels) -> int:
    """``query --output ops``: each target's operators, a ``label: operator``
    line each. A target's operators are those its registration libraries
    register (their selections built first); an et_operator_library's, those
    it selects."""
    from selective_build.driver.graph import analyse
    from selective_build.driver.labels import parse_label
    from selective_build.driver.layout import TAG_REGISTERS

    config = workspace.config()
    selections: dict[str, list[tuple[str, str]]] = {}  # label -> (selection label, its yaml)
    for label in labels:
        graph = analyse(packages, [label], config)
        found = {}
        for node in graph.nodes.values():
            for tag in node.target.tags:
                if tag.startswith(TAG_REGISTERS):
                    chosen = parse_label(tag[len(TAG_REGISTERS):], node.target.package, config.main_names)
                    found[str(chosen)] = graph.nodes[chosen].outputs[0]
        if not found:
            own = [path for path in graph.nodes[label].outputs if path.endswith("/selected_operators.yaml")]
            if own:
                found[str(label)] = own[0]
        if found:
            selections[str(label)] = sorted(found.items())
    if not selections:
        raise UserError(f"{', '.join(map(str, labels))}: no target registers or selects operators (an "
                        "et_operator_library, an executorch_generated_lib or a binary linking one does)")
    wanted = sorted({selection for pairs in selections.values() for selection, _ in pairs})
    status, _ = workspace.build(wanted, quiet=True)
    if status != 0:
        return 1
    for label, pairs in selections.items():
        operators = set()
        for _, path in pairs:
            selection = _selection(os.path.join(workspace.root, path))
            operators.update(str(name) for name in selection.operators)
            if selection.include_all_operators:
                operators.add("(every operator of its kernel yaml)")
        for operator in sorted(operators):
            print(f"{label}: {operator}")
    return 0


def clean(args: SimpleNamespace) -> int:
    """Remove every build output."""
    from selective_build.driver.workspace import Workspace

    Workspace.here().clean()
    return 0


def size(args: SimpleNamespace) -> int:
    """Print a binary's stripped size by part, beside its all-kernels companion."""
    from selective_build.driver.size import measure, render_size_table, size_report
    from selective_build.driver.workspace import Workspace

    workspace = Workspace.here(args.define, args.executorch_root)
    status, plan = workspace.build([args.target], quiet=True)
    if status != 0:
        return 1
    if len(plan.targets) != 1:
        raise UserError(f"'{args.target}' names {len(plan.targets)} targets; name one binary")
    target = plan.targets[0]
    if not target.binary:
        raise UserError(f"{target.label} is a {target.rule}, not a binary")
    measured = [measure(workspace.root, target.outputs[0], target.label)]
    if target.companion:
        status, companion_plan = workspace.build([target.companion], quiet=True)
        if status != 0:
            return 1
        measured.append(measure(workspace.root, companion_plan.targets[0].outputs[0], target.companion))
    if args.html:
        from selective_build.emit.size_report import render_size_html

        _write(os.path.dirname(args.html) or ".", os.path.basename(args.html),
               render_size_html(size_report(target.label, measured)))
    if args.format == "json":
        from selective_build.emit.size_report import render_size_json

        sys.stdout.write(render_size_json(size_report(target.label, measured)))
    else:
        print(render_size_table(target.label, measured, args.top))
    return 0


def doctor(args: SimpleNamespace) -> int:
    """Report what etsb needs here, and how to get what is missing; 1 if anything required is."""
    from selective_build.driver.doctor import checks

    missing = 0
    for check in checks():
        mark = "ok" if check.found else ("MISSING" if check.required else "absent")
        print(f"{mark:8} {check.name}: {check.detail}")
        missing += check.required and not check.found
    if missing:
        print(f"\n{missing} required part(s) missing: see above.")
    return 1 if missing else 0


def function_of(command_name: str) -> Callable[[SimpleNamespace], int]:
    """The function that runs the command ``command_name`` (``merge-yaml`` -> :func:`merge_yaml`)."""
    return globals()[command_name.replace("-", "_")]
