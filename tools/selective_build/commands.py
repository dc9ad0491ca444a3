"""What each ``etsb`` command does: one function per command, taking the values
:mod:`selective_build.argv` parsed (and :func:`selective_build.argv.check`
checked) and returning the exit status; :data:`RUNS` pairs each command's
declaration with its function.

Each reads its inputs (:mod:`~selective_build.readers.inputs`), calls the
stage, emitter or driver that does the work, and writes or prints the result.
Modules are imported inside the functions, so that a command pays only for
what it uses (build actions run these many times).
"""

from __future__ import annotations

import os
import sys

from selective_build import arguments
from selective_build.arguments import Command
from selective_build.model.errors import CommandLine, UserError

TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from types import SimpleNamespace

def _write(directory: str, name: str, text: str) -> None:
    """Write ``text`` to ``directory/name`` atomically."""
    from selective_build.readers.files import write_text_atomic
    write_text_atomic(os.path.join(directory, name), text)


def _write_to(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (a name alone: in the current directory)."""
    _write(os.path.dirname(path) or ".", os.path.basename(path), text)


def _kernel_yamls(args: SimpleNamespace) -> list:
    """The kernel yamls of --functions-yaml-path and --custom-ops-yaml-path, with --aten-yaml."""
    from selective_build.readers import inputs

    return inputs.kernel_yamls([path for path in (args.functions_yaml_path, args.custom_ops_yaml_path) if path],
                               inputs.aten_schemas(args.aten_yaml))


# -- the kernel yaml and selection tools -------------------------------------------------


def merge_yaml(args: SimpleNamespace) -> int:
    """Merge a vendor kernel yaml over a fallback one into OUTPUT_DIR/merged.yaml."""
    from selective_build.emit.kernel_yaml import render_kernel_yaml
    from selective_build.readers import inputs
    from selective_build.stages.merge import merge_kernel_yaml
    paths = [args.functions_yaml_path] + ([args.fallback_yaml_path] if args.fallback_yaml_path else [])
    functions, *fallback = inputs.kernel_yamls(paths, inputs.aten_schemas(args.aten_yaml))
    _write(args.output_dir, "merged.yaml", render_kernel_yaml(merge_kernel_yaml(functions, next(iter(fallback), None))))
    return 0


def validate_yaml(args: SimpleNamespace) -> int:
    """Check kernel yaml files and say what each holds."""
    from selective_build.emit.kernel_yaml import render_summary
    from selective_build.readers import inputs

    for parsed in inputs.kernel_yamls(args.paths, inputs.aten_schemas(args.aten_yaml)):
        print(render_summary(parsed))
    return 0


def gen_oplist(args: SimpleNamespace) -> int:
    """Select operators from every source given and write their union."""
    from selective_build.emit.selected_operators import render_selected_operators
    from selective_build.readers import inputs
    from selective_build.readers.files import write_text_atomic
    from selective_build.stages import sources

    aten = inputs.aten_schemas(args.aten_yaml)
    kernel_yamls = inputs.kernel_yamls(args.ops_schema_yaml_path, aten)
    read = inputs.operator_sources(args.root_ops, args.ops_dict, args.model_file_path, args.selection_yaml_path,
                                   sources.scalar_type_positions(aten, sources.schemas_of(kernel_yamls)))
    backend_ids = inputs.backend_ids(args.backends, "--backends") if args.backends else ()
    selection = sources.select(read, kernel_yamls, backend_ids, args.include_all_overloads,
                               args.include_all_operators)
    write_text_atomic(inputs.in_directory(args.output_path), render_selected_operators(selection))
    return 0


def gen_all_oplist(args: SimpleNamespace) -> int:
    """Union several selections, optionally refusing operators selected twice."""
    from selective_build.emit.selected_operators import render_selected_operators
    from selective_build.readers import inputs
    from selective_build.stages.sources import union_of_libraries

    named = inputs.named_selections(inputs.selection_paths(args.model_file_list_path))
    merged = union_of_libraries(named, args.check_ops_not_overlapping, args.allow_include_all_overloads)
    _write(args.output_dir, "selected_operators.yaml", render_selected_operators(merged))
    return 0


def gen_bindings(args: SimpleNamespace) -> int:
    """Resolve the selection to kernels, prove coverage, and write the registration source and headers."""
    from selective_build.emit.bindings import render_bindings
    from selective_build.readers import inputs
    from selective_build.readers.kernel_catalog import load_catalog
    from selective_build.stages.coverage import missing_kernel_hint, served
    from selective_build.stages.resolve import resolve

    selection = inputs.selection_or_everything(args.op_selection_yaml_path)
    resolution = resolve(_kernel_yamls(args), selection, hint=lambda name: missing_kernel_hint(
        name, load_catalog(), args.front_end, custom_ops_given=bool(args.custom_ops_yaml_path)))
    backend_libraries = ()
    if selection.backends or args.backend_library_path:
        from selective_build.stages.backends import libraries_for
        backend_libraries = inputs.existing(libraries_for(selection, inputs.backend_libraries(
            args.backend_library_path)))
    if args.say_library:  # the catalogue's libraries serving the model (Buck2's build has no kernel-sources step)
        from selective_build.emit.kernel_sources import render_chosen
        operators = {str(row.operator) for row in resolution.registrations}
        sys.stderr.write(render_chosen(served(operators, inputs.library_operators(args.say_library))))
    for name, text in render_bindings(resolution, args.lib_name, args.manual_registration, args.model_entry,
                                      selection.build_features).items():
        _write(args.output_dir, name, text)
    if args.backends_output:
        from selective_build.emit.backend_link import render_backend_link_script
        _write_to(args.backends_output, render_backend_link_script(backend_libraries))
    if args.max_kernel_num_output:
        from selective_build.emit.registry_size import render_max_kernel_num
        _write_to(args.max_kernel_num_output, render_max_kernel_num(resolution))
    if args.prim_ops_header_output:
        from selective_build.emit.deploy_source import library_prim_ops_header
        _write_to(args.prim_ops_header_output, library_prim_ops_header(
            selection.operators, args.op_selection_yaml_path or "the kernel yamls"))
    return 0


def check_attrs(args: SimpleNamespace) -> int:
    """Check a CMake rule call's operator names, ops dict and backend ids (nothing written)."""
    from selective_build.model.errors import Location, UserError
    from selective_build.readers.rule_values import rule_value_problems
    values = [("OPS", op) for op in args.ops] + [("BACKENDS", backend_id) for backend_id in args.backends]
    if args.ops_dict is not None:
        values.append(("OPS_DICT", args.ops_dict))
    problems = rule_value_problems(Location(args.file), args.rule, args.name, values)
    if problems:
        raise UserError(problems[0].message, problems[0].location, problems)  # in the call's order
    return 0


def backend_library(args: SimpleNamespace) -> int:
    """Write a backend library declaration."""
    from selective_build.emit.backend_link import render_backend_declaration
    from selective_build.readers.inputs import backend_ids
    _write_to(args.output, render_backend_declaration(backend_ids(args.backends, "--backends"), args.library,
                                                      args.needs))
    return 0


def kernel_sources(args: SimpleNamespace) -> int:
    """List the tree's sources that the kernels resolved for the selection need."""
    from selective_build.emit import kernel_sources as emit
    from selective_build.readers import inputs
    from selective_build.readers.kernel_sources import compiled_sources
    from selective_build.stages.resolve import resolve

    # gen-bindings, run on the same selection, reports coverage gaps: once is enough.
    kernels = resolve(_kernel_yamls(args), inputs.selection_or_everything(args.op_selection_yaml_path),
                      strict=False).named_kernels
    index, prefix = inputs.kernel_library(args.root, args.sources_under, args.library_files, args.library)
    notes: list[str] = []
    needed = index.sources_for(kernels, undefined_ok=args.other_libraries, notes=notes)
    for note in notes:
        print(f"etsb: note: {note}", file=sys.stderr)
    if args.say_libraries:
        from selective_build.emit.kernel_sources import render_chosen
        serving = index.serving(kernels)
        sys.stderr.write(render_chosen({n: ops for n, ops in serving.items() if n != args.library[0][0]}))
    if args.switch_names_output:
        names = index.switch_names_for((operator, kernel_name) for operator, kernel_name, _ in kernels)
        _write_to(args.switch_names_output, emit.render_switch_names(names))
    if args.wrappers_dir:
        wrappers = emit.render_wrappers(compiled_sources(args.library), set(needed), args.wrappers_include)
        for path, text in wrappers.items():
            _write(args.wrappers_dir, path, text)
    # Sources naming no switch are compiled as their library compiles them (no dtype selection reaches them).
    plain = index.unnamed.intersection(needed) if args.mark_plain else set()
    text = emit.render_source_list(prefix, needed, plain)
    if args.output:
        _write_to(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def gen_op_variants(args: SimpleNamespace) -> int:
    """Write selected_op_variants.h for a selection."""
    from selective_build.emit.op_variants import render_selection_op_variants
    from selective_build.readers import inputs
    selection = inputs.selection(args.yaml_file_path)
    aliases = inputs.switch_names(args.switch_names) if args.switch_names else {}
    _write(args.output_dir, "selected_op_variants.h", render_selection_op_variants(selection, aliases))
    return 0


def pick_smaller(args: SimpleNamespace) -> int:
    """Copy the smallest (stripped) of the candidate binaries, with its link map and the
    files it needs beside it (``--beside``)."""
    from selective_build.driver.pick import pick_smaller as pick
    print(pick(args.candidates, args.output, not args.no_link_map, args.beside))
    return 0


def deploy_source(args: SimpleNamespace) -> int:
    """Write the deploy runner's source for a program (its pools; the program and inputs if embedded)."""
    from selective_build.driver.program_verifier import verify_for_embedding
    from selective_build.emit.deploy_source import deploy_source as render, selected_prim_ops_header
    from selective_build.model.layouts import method_inputs_bytes
    from selective_build.readers import files, inputs, npy, pte, pte_memory
    from selective_build.stages.deploy_memory import check_embedded_inputs, check_inputs, check_static_size, deploy_pools

    program = files.read_bytes(args.model, ".pte file")
    method = pte_memory.read_method_memory(program, args.model)[0]
    arrays = inputs.collect([lambda path=path: npy.read_npy(path) for path in args.inputs])
    if args.inputs:
        check_inputs(method, [(path, array.dtype, array.shape) for path, array in zip(args.inputs, arrays)])
    placed = method_inputs_bytes(method, [array.data for array in arrays], args.model)  # as the binary takes them
    if args.embed:  # the embedded runner skips the checks it makes of a program read from a file: made here
        check_embedded_inputs(method, args.model, len(args.inputs))
        verify_for_embedding(args.runtime_library, args.model, [len(data) for data in placed], method.planned_buffers)
    if args.prim_ops_header:
        prim_ops = [str(op) for each in pte.read_program(program, args.model).methods for op in each.runtime_operators]
        _write_to(args.prim_ops_header, selected_prim_ops_header(prim_ops, args.model))
    pools = deploy_pools(method, not args.embed, args.method_pool_bytes, args.temp_pool_bytes)
    check_static_size(pools, len(program) + sum(map(len, placed)) if args.embed else 0, args.model)
    _write_to(args.output, render(pools, program if args.embed else None, placed, args.model, len(program)))
    return 0


def deploy_outputs(args: SimpleNamespace) -> int:
    """Print a deploy binary's printed outputs as values, one output a block."""
    from selective_build.emit.deploy_outputs import render_outputs
    from selective_build.readers.deploy_output import read_deploy_output
    from selective_build.readers.files import read_text

    path = args.file or "<stdin>"
    text = read_text(path, "deploy binary's output") if args.file else sys.stdin.read()
    sys.stdout.write(render_outputs(read_deploy_output(text, path)))
    return 0


def cmake_platform(args: SimpleNamespace) -> int:
    """Write the CMake variables of a platform, a configuration and a tree's runtime."""
    from selective_build.driver.cmake_platform import cmake_variables, tree_runtime
    from selective_build.driver.platforms import DEFAULT_CONFIG, HOST
    from selective_build.emit.cmake_variables import render_cmake_variables

    platform, config = args.platform or HOST, args.config or DEFAULT_CONFIG
    runtime = None
    if args.executorch_root:
        from selective_build.driver.platforms import choice_defines
        from selective_build.driver.workspace import Workspace

        tree = os.path.abspath(args.executorch_root)
        if not os.path.isfile(os.path.join(tree, "runtime", "executor", "method.cpp")):
            raise UserError(f"--executorch-root: '{tree}' is not an ExecuTorch source tree "
                            "(it has no runtime/executor/method.cpp)")
        root = os.path.abspath(args.workspace)
        _write(root, "WORKSPACE", "# etsb cmake-platform's scratch workspace\n")
        runtime = tree_runtime(Workspace(root, "", choice_defines(platform, config), tree))
    _write_to(args.output, render_cmake_variables(cmake_variables(platform, config, runtime), "etsb cmake-platform"))
    return 0


# -- the build driver ---------------------------------------------------------------------


def build(args: SimpleNamespace) -> int:
    """Build the targets; a no-op build is answered from the last plan, before anything is evaluated."""
    from selective_build.driver.fast import noop_build

    defines = _defines(args)
    status = noop_build(args.targets, args.jobs, defines, args.executorch_root)
    if status is not None:
        return status
    from selective_build.driver.running import report
    from selective_build.driver.workspace import Workspace

    return report(*Workspace.here(defines, args.executorch_root).build(args.targets, args.jobs))


def _defines(args: SimpleNamespace) -> dict[str, str]:
    """The ``--define`` values, with those ``--platform`` and ``--config`` set."""
    from selective_build.driver.platforms import choice_defines

    return {**args.define, **choice_defines(args.platform, args.config, args.define)}


def query(args: SimpleNamespace) -> int:
    """Print the targets the patterns match, or their dependencies, outputs or operators."""
    from selective_build.driver.query import query as run_query
    from selective_build.driver.workspace import Workspace

    workspace = Workspace.here(_defines(args), args.executorch_root, args.emulate)
    status, lines = run_query(workspace, args.targets, args.output)
    for line in lines:
        print(line)
    return status


def run(args: SimpleNamespace) -> int:
    """Build one binary and run it here or under its platform's emulator, with the arguments after ``--``."""
    from selective_build.driver.launch import run_binary
    from selective_build.driver.layout import DEVELOPMENT_RUNNER
    from selective_build.driver.platforms import HOST, PLATFORM_DEFINE, PLATFORMS
    from selective_build.driver.running import report
    from selective_build.driver.workspace import Workspace

    defines = _defines(args)
    workspace = Workspace.here(defines, args.executorch_root)
    status, plan = workspace.build([args.target], args.jobs, quiet=True)
    if status != 0:
        return report(status, plan)
    if len(plan.targets) != 1 or not plan.targets[0].binary:
        what = f"{len(plan.targets)} targets" if len(plan.targets) != 1 else f"a {plan.targets[0].rule}"
        raise UserError(f"'{args.target}' names {what}: etsb run runs one binary", CommandLine("run"))
    target = plan.targets[0]
    platform = PLATFORMS[defines.get(PLATFORM_DEFINE, HOST)]
    request = None if target.runner == DEVELOPMENT_RUNNER else _deploy_request(target.label, args.runner_args)
    return run_binary(target, os.path.join(workspace.root, target.outputs[0]), platform, args.runner_args, request)


def _deploy_request(label: str, runner_args: list[str]) -> SimpleNamespace:
    """A deploy binary's arguments after ``--``, as the development runner spells them."""
    from selective_build.argv import UsageError, read_values

    try:
        values = read_values(arguments.DEPLOY_RUN, list(runner_args))
    except UsageError as error:
        raise UserError(f"{error}: {label} is a deploy binary, which takes only --model, --inputs and "
                        "--output-dir after '--'", CommandLine("run")) from None
    values.inputs = [path for path in (values.inputs or "").split(",") if path]
    return values


def clean(args: SimpleNamespace) -> int:
    """Remove every build output."""
    from selective_build.driver.workspace import Workspace

    Workspace.here().clean()
    return 0


def size(args: SimpleNamespace) -> int:
    """Print a binary's stripped size by part, beside its all-kernels companion."""
    from selective_build.driver.size import measure_binary, render_size_table, size_report
    from selective_build.driver.workspace import Workspace

    status, label, measured = measure_binary(Workspace.here(_defines(args), args.executorch_root), args.target)
    if status != 0:
        return status
    if args.html:
        from selective_build.emit.size_report import render_size_html

        _write_to(args.html, render_size_html(size_report(label, measured)))
    if args.format == "json":
        from selective_build.emit.size_report import render_size_json

        sys.stdout.write(render_size_json(size_report(label, measured)))
    else:
        print(render_size_table(label, measured, args.top))
    return 0


def doctor(args: SimpleNamespace) -> int:
    """Report what etsb needs here, and how to get what is missing; 1 if anything required is."""
    from selective_build.driver.doctor import checks, report

    lines, missing = report(checks())
    for line in lines:
        print(line)
    return 1 if missing else 0


# Each command's declaration and the function that runs it.
RUNS: Mapping[Command, Callable[[SimpleNamespace], int]] = {
    arguments.MERGE_YAML: merge_yaml, arguments.GEN_OPLIST: gen_oplist, arguments.GEN_ALL_OPLIST: gen_all_oplist,
    arguments.GEN_BINDINGS: gen_bindings, arguments.BACKEND_LIBRARY: backend_library,
    arguments.CHECK_ATTRS: check_attrs, arguments.KERNEL_SOURCES: kernel_sources,
    arguments.GEN_OP_VARIANTS: gen_op_variants, arguments.VALIDATE_YAML: validate_yaml, arguments.BUILD: build,
    arguments.QUERY: query, arguments.RUN: run, arguments.PICK_SMALLER: pick_smaller,
    arguments.DEPLOY_SOURCE: deploy_source, arguments.DEPLOY_OUTPUTS: deploy_outputs,
    arguments.CMAKE_PLATFORM: cmake_platform, arguments.CLEAN: clean, arguments.DOCTOR: doctor, arguments.SIZE: size,
}
