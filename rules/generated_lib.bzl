"""`executorch_generated_lib`: selected operators resolved to kernels, with
generated registration code, compiled into one library."""

load(":merge_yaml.bzl", "merge_yaml")
load(":operator_library.bzl", "et_operator_library")
load(":private/attrs.bzl", "attrs", "check_call", "internal", "rule_info", "with_tags")
load(":private/catalogue.bzl", "catalogue_custom_libraries")
load(":private/executorch_keywords.bzl", "GENERATED_LIB_KEYWORDS", "check_generated_lib_keywords")
load(":private/names.bzl", "cxx_identifier", "sibling_label")
load(":private/prim_ops.bzl", "PRIM_OPS_HEADER", "library_runtime", "prim_ops_library")
load(":private/shim.bzl", "BUILD_SYSTEM", "ETSB_COMMAND", "ETSB_TOOLS", "FROM_TREE_SUFFIX", "FRONT_END", "REGISTRY_SIZE_HEADER", "RUNTIME", "RUNTIME_KINDS", "RUNTIME_SHARED", "RUNTIME_STATIC", "TAG_PRECOMPILE", "TAG_REGISTERS", "check_runtime", "etsb_cxx_library", "etsb_filegroup", "etsb_genrule", "runtime_headers")

# The files `etsb gen-bindings` writes.
BINDINGS_FILES = ["register_kernels.cpp", "NativeFunctions.h", "CustomOpsNativeFunctions.h", "Functions.h"]

# The headers every registration source includes first, in its order (emit/registration.py's prelude):
# etsb's driver precompiles them once for all the registration libraries of a build compiling with
# the same flags (driver/pch_shared.py; Bazel and Buck2 do not precompile headers).
REGISTRATION_PRECOMPILED = [
    "<cstdint>",
    "<optional>",
    "<string_view>",
    "<tuple>",
    "<executorch/runtime/core/evalue.h>",
    "<executorch/runtime/core/exec_aten/util/scalar_type_util.h>",
    "<executorch/runtime/core/span.h>",
    "<executorch/runtime/kernel/operator_registry.h>",
    "<executorch/runtime/platform/log.h>",
]

# The linker script that links the backend libraries a selection needs (`--backends_output`).
BACKENDS_LINK_SCRIPT = "backends.ld"

EXECUTORCH_GENERATED_LIB = rule_info(
    name = "executorch_generated_lib",
    doc = """Resolves the selected operators to kernels and builds their registration.

For every operator and kernel key selected by `deps`, the kernel yaml names the
C++ kernel (a specialised kernel whose `arg_meta` matches the key, else the
operator's default). A selected operator or key without a kernel fails the
build with one message listing every gap. The library `<name>` holds the
generated registration source and links the kernels; the C++ functions it
defines are `etsb::register_<name>_kernels()` and `etsb::<name>_kernels()`
('-' becomes '_').""",
    attrs = dict({
        "functions_yaml_target": attrs.label(
            "the kernel yaml of ATen operators (e.g. `//kernels/portable:functions.yaml`)",
            executorch = "the kernel yaml of ATen operators",
        ),
        "custom_ops_yaml_target": attrs.label(
            "a kernel yaml of custom operators (`func:` entries)",
            executorch = "a kernel yaml of custom operators",
        ),
        "fallback_yaml_target": attrs.label(
            "a kernel yaml that `functions_yaml_target` is merged over (see `merge_yaml`)",
            executorch = "a kernel yaml that `functions_yaml_target` is merged over",
        ),
        "deps": attrs.label_list(
            "`et_operator_library` targets; their union is what gets registered. With none, every operator of the yamls is registered. As in ExecuTorch's Buck2 macro, a C++ library of this package among them (a `cxx_library` or `et_kernel_library` defined before this call) is taken as a kernel library instead",
            executorch = "the operator libraries whose union is registered, and C++ libraries the library depends on",
        ),
        "kernel_deps": attrs.label_list(
            "`et_kernel_library` targets implementing the kernels; a kernel function that several define (a vendor library merged over a fallback that spells its kernels alike) is taken from the first listed, so list the vendor's first",
            executorch = "the kernel libraries implementing the yaml",
        ),
        "dtype_selective_build": attrs.bool(
            "recompile the kernels of `kernel_deps` so that their dtype switches keep only the dtypes the selection uses",
            executorch = "recompile the portable and optimized kernels keeping only the selected dtypes",
        ),
        "catalogue": attrs.bool("the kernel libraries are the catalogue's (rules/private/catalogue.bzl), taken for the model (`et_model_binary` sets it): the build names, in one line each, the libraries after the first that serve its operators (under Buck2, the bindings' action, from the libraries' yamls)"),
        "manual_registration": attrs.bool(
            "no static initialiser: the binary calls `etsb::register_<name>_kernels()` (or passes `etsb::<name>_kernels()` to `Program::load_method`), and no whole-archive linking is needed",
            executorch = "generate a registration function for the program to call instead of static registration",
        ),
        "model_entry": attrs.bool("also define `etsb::register_model_kernels()`, the entry point that the runner library `//tools/runner:runner` calls (`et_model_binary` sets it)"),
        "backend_deps": attrs.label_list("`et_backend_library` targets: every backend the selection needs (delegated programs, `backends`) must be declared by one, or the build fails naming the model, method and backend id; the library links those that are needed and no other"),
        "runtime": attrs.choice("the ExecuTorch runtime the registration and kernels compile against: `\"shared\"`, the wheel's `libexecutorch.so`; `\"static\"`, the runtime compiled from the ExecuTorch tree (`@executorch//:runtime`, etsb's driver and Bazel; the kernel libraries must be `et_kernel_library` targets; a binary links `@executorch//:runtime` itself, as `et_model_binary` does)", RUNTIME_KINDS, RUNTIME_SHARED),
    }, **GENERATED_LIB_KEYWORDS),
    outputs = {
        "library": "`<name>`",
        "headers": "`<name>/NativeFunctions.h`, `<name>/CustomOpsNativeFunctions.h`, `<name>/Functions.h`",
    },
)

def executorch_generated_lib(name, **kwargs):
    """Resolves the selected operators to kernels and builds their registration (see `EXECUTORCH_GENERATED_LIB`).

    Args:
      name: the target name.
      **kwargs: the attributes of `EXECUTORCH_GENERATED_LIB`, and `tags` (or Buck2's `labels`), `visibility`, `testonly`.
    """
    _generated_lib(name, kwargs)

def generated_lib_listed_by(name, twin, **kwargs):
    """An `executorch_generated_lib` compiling the kernel sources its dtype-selective `twin` lists (`etsb kernel-sources` runs once for both: an `et_model_binary`'s two forms, of one selection, yamls, kernel libraries and runtime)."""
    _generated_lib(name, kwargs, ":%s/kernel_sources.txt" % twin)

def _generated_lib(name, kwargs, kernel_list = None):
    """The body of `executorch_generated_lib`; `kernel_list`, another's kernel-sources list to take."""
    a, common = check_call(EXECUTORCH_GENERATED_LIB, name, kwargs)
    where = "executorch_generated_lib '%s'" % name
    check_generated_lib_keywords(where, a)
    runtime = library_runtime(where, a, kwargs.get("runtime") != None)
    if not a.custom_ops_requires_runtime_registration and a.functions_yaml_target == None:
        # ExecuTorch's meaning: no runtime library for custom operators alone.
        return
    if a.functions_yaml_target == None and a.custom_ops_yaml_target == None:
        fail("%s: give functions_yaml_target, custom_ops_yaml_target or both" % where)
    if a.fallback_yaml_target != None and a.functions_yaml_target == None:
        fail("%s: fallback_yaml_target needs a functions_yaml_target to merge over it" % where)
    operator_deps, kernel_libraries, plain_libraries = _split_deps(a.deps)
    kernel_deps = a.kernel_deps + kernel_libraries
    if not kernel_deps and not plain_libraries:
        fail("%s: kernel_deps is empty: name the kernel libraries that implement the yaml" % where)
    if a.dtype_selective_build and not operator_deps:
        fail("%s: dtype_selective_build needs deps (an operator selection to take dtypes from)" % where)
    check_runtime(where, runtime)
    if runtime == RUNTIME_STATIC and plain_libraries:
        fail("%s: runtime = \"static\" compiles the kernels against the tree's runtime, which it cannot do for %s: make it an et_kernel_library" %
             (where, ", ".join(plain_libraries)))
    if a.dtype_selective_build and plain_libraries:
        fail("%s: dtype_selective_build recompiles the kernels, which it cannot do for %s: make it an et_kernel_library" %
             (where, ", ".join(plain_libraries)))
    helper = internal(common)

    functions_yaml = a.functions_yaml_target
    if a.fallback_yaml_target != None:
        merge_yaml(name = name + "_merged", functions_yaml = a.functions_yaml_target, fallback_yaml = a.fallback_yaml_target, **helper)
        functions_yaml = ":" + name + "_merged"
    selection = _selection(name, operator_deps, functions_yaml, a.custom_ops_yaml_target, helper)
    _bindings(
        name,
        functions_yaml,
        a.custom_ops_yaml_target,
        selection,
        a.manual_registration,
        a.model_entry,
        a.backend_deps,
        helper,
        # A model binary of the static runtime may size its kernel registry to this library.
        registry_size = a.model_entry and runtime == RUNTIME_STATIC,
        prim_ops_header = not a.include_all_prim_ops,
        # Buck2 links whole libraries (no `_selected_kernels` to say which serve the model): the yamls say it.
        said_libraries = catalogue_custom_libraries() if a.catalogue and BUILD_SYSTEM == "buck2" else [],
    )

    kernels = kernel_deps
    if BUILD_SYSTEM in ("etsb", "bazel") and kernel_deps:
        # Only the kernel sources the selection needs are compiled (the rest of a
        # library as large as ExecuTorch's portable one never is).
        kernels = [_selected_kernels(
            name,
            kernel_deps,
            functions_yaml,
            a.custom_ops_yaml_target,
            selection,
            a.dtype_selective_build,
            helper,
            other_libraries = bool(plain_libraries),
            runtime = runtime,
            say_libraries = a.catalogue,
            kernel_list = kernel_list,
        )]
    elif a.dtype_selective_build:
        kernels = [_dtype_selective_kernels(name, kernel_deps, selection, helper)]

    # Only the prim ops the selection names (ExecuTorch's include_all_prim_ops = False).
    prim_ops = [prim_ops_library(name, helper)] if runtime == RUNTIME_STATIC and not a.include_all_prim_ops else []
    copts = list(a.compiler_flags)
    if not a.support_exceptions:
        copts.append("-fno-exceptions")
    etsb_cxx_library(
        name = name,
        copts = copts,
        # Buck2 gives a genrule of several outputs as its folder: each file is named there.
        srcs = [":%s/%s" % (name, f) for f in BINDINGS_FILES] if BUILD_SYSTEM == "buck2" else [":" + name + "_bindings"],
        # The linker script naming the backend libraries the selection needs (a link input).
        linker_scripts = [":%s/%s" % (name, BACKENDS_LINK_SCRIPT)],
        linker_inputs = [sibling_label(b, "_files") for b in a.backend_deps],
        deps = kernels + plain_libraries + a.xplat_deps + [runtime_headers(runtime)] + prim_ops,
        link_whole = not a.manual_registration,
        # The driver's overlap check reads which selection each registration library registers
        # (relative to this package, which may be an external repository's).
        **with_tags(common, ["%s:%s_selected_operators" % (TAG_REGISTERS, name)] + (
            [TAG_PRECOMPILE + header for header in REGISTRATION_PRECOMPILED] if BUILD_SYSTEM == "etsb" else []
        ))
    )
    if a.define_static_targets:
        # ExecuTorch's name for the library linked statically: etsb's libraries are static.
        etsb_cxx_library(name = name + "_static", deps = [":" + name], link_whole = not a.manual_registration, **common)

# The rule kinds of C++ libraries, as each build system's existing_rule names them.
_LIBRARY_KINDS = ("cxx_library", "cc_library")

def _split_deps(deps):
    """`deps` as (operator libraries, et_kernel_library targets, other C++ libraries).

    A label of this package naming a C++ library defined before
    this call is a kernel library (ExecuTorch's Buck2 macro takes both in
    `deps`); an et_kernel_library is known by its `<name>_srcs` sibling.
    Anything else, and any label of another package, is an operator library."""
    operators, kernels, plain = [], [], []
    for dep in deps:
        rule = None
        if dep.startswith(":") or dep.startswith("//%s:" % native.package_name()):
            rule = native.existing_rule(dep.rpartition(":")[2])
        if rule == None or rule["kind"] not in _LIBRARY_KINDS:
            operators.append(dep)
        elif native.existing_rule(dep.rpartition(":")[2] + "_srcs") != None:
            kernels.append(dep)
        else:
            plain.append(dep)
    return operators, kernels, plain

def _selection(name, deps, functions_yaml, custom_ops_yaml, helper):
    """The label of the union of `deps`.

    With none, of every operator of the yamls (so that every library has a
    selection for the driver's overlap check).
    """
    selection_deps = deps
    if not deps:
        for suffix, yaml in (("_all_functions", functions_yaml), ("_all_custom_ops", custom_ops_yaml)):
            if yaml != None:
                et_operator_library(name = name + suffix, ops_schema_yaml_target = yaml, **helper)
                selection_deps = selection_deps + [":" + name + suffix]
    et_operator_library(name = name + "_selected_operators", deps = selection_deps, **helper)
    return ":" + name + "_selected_operators"

def _bindings(name, functions_yaml, custom_ops_yaml, selection, manual_registration, model_entry, backend_deps, helper, registry_size = False, prim_ops_header = False, said_libraries = ()):
    """The genrule writing the registration source and headers.

    It also writes the linker script of the backend libraries the selection
    needs, with `registry_size` ExecuTorch's `selected_max_kernel_num.h`, and with
    `prim_ops_header` its `selected_prim_ops.h` (rules/private/prim_ops.bzl).
    It says which of `said_libraries` ((kernels, yaml) pairs) serve the selection.
    """
    srcs, args = [], []
    if functions_yaml != None:
        srcs.append(functions_yaml)
        args.append("--functions_yaml_path $(location %s)" % functions_yaml)
    if custom_ops_yaml != None:
        srcs.append(custom_ops_yaml)
        args.append("--custom_ops_yaml_path $(location %s)" % custom_ops_yaml)
    srcs.append(selection)
    args.append("--op_selection_yaml_path $(location %s)" % selection)
    if manual_registration:
        args.append("--manual_registration")
    if model_entry:
        args.append("--model_entry")
    for backend in backend_deps:
        srcs += [backend, sibling_label(backend, "_files")]
        args.append("--backend_library_path $(location %s)" % backend)
    script = "%s/%s" % (name, BACKENDS_LINK_SCRIPT)
    args.append("--backends_output $(location %s)" % script)
    outs = [name + "/" + f for f in BINDINGS_FILES] + [script]
    if registry_size:
        outs.append("%s/%s" % (name, REGISTRY_SIZE_HEADER))
        args.append("--max-kernel-num-output $(location %s)" % outs[-1])
    if prim_ops_header:
        outs.append("%s/%s" % (name, PRIM_OPS_HEADER))
        args.append("--prim-ops-header-output $(location %s)" % outs[-1])
    for kernels, yaml in said_libraries:
        srcs.append(yaml)
        args.append("--say-library '%s=$(location %s)'" % (kernels, yaml))
    if FRONT_END != None:
        # A missing kernel's remedy as this build system names libraries and trees.
        args.append("--front-end " + FRONT_END)
    etsb_genrule(
        name = name + "_bindings",
        srcs = srcs,
        outs = outs,
        cmd = ETSB_COMMAND + " gen-bindings " + " ".join(args) + " --lib_name %s --output_dir $(RULEDIR)/%s" % (cxx_identifier(name), name),
        tools = ETSB_TOOLS,
        **helper
    )

def _selected_kernels(
        name,
        kernel_deps,
        functions_yaml,
        custom_ops_yaml,
        selection,
        dtype_selective_build,
        helper,
        other_libraries = False,
        runtime = RUNTIME_SHARED,
        say_libraries = False,
        kernel_list = None):
    """The objects of `kernel_deps` that the selection's kernels need (etsb's driver, Bazel).

    `etsb kernel-sources` lists their sources from every file the libraries
    declare, and only those are compiled; with `dtype_selective_build`, compiled
    again with the selection's `selected_op_variants.h`. A kernel that several
    libraries define (etsb's portable kernels over ExecuTorch's: the same
    function names) comes from the first of `kernel_deps` defining it. With
    the static runtime the objects are those of each library's twin compiled
    against the tree's headers (`<library>_tree_runtime`). With `kernel_list`,
    the list another library's kernel-sources wrote for the same selection."""
    objects_of = [sibling_label(k, FROM_TREE_SUFFIX) for k in kernel_deps] if runtime == RUNTIME_STATIC else kernel_deps
    if kernel_list != None:
        etsb_cxx_library(name = name + "_kernels", objects_of = objects_of, object_list = kernel_list, **helper)
        return ":" + name + "_kernels"
    files, libraries = [], []
    for index, kernels in enumerate(kernel_deps):
        # One group of each library's sources and headers: Bazel refuses `$(locations)`
        # of an empty group, which `_hdrs` may be (`_srcs` never is).
        own = "%s_library_files_%d" % (name, index)
        etsb_filegroup(name = own, srcs = [sibling_label(kernels, "_srcs"), sibling_label(kernels, "_hdrs")], **helper)
        files.append(":" + own)

        # Each library's files after its name: where two define a kernel, the first listed wins.
        libraries.append("--library '%s' $(locations :%s)" % (kernels, own))
    args = ["--op_selection_yaml_path $(location %s)" % selection]
    if other_libraries:
        # Plain C++ libraries are linked too: a kernel no listed file defines may be theirs.
        args.append("--other_libraries")
    if say_libraries:
        args.append("--say_libraries")
    yamls = []
    for flag, yaml in (("--functions_yaml_path", functions_yaml), ("--custom_ops_yaml_path", custom_ops_yaml)):
        if yaml != None:
            yamls.append(yaml)
            args.append("%s $(location %s)" % (flag, yaml))
    outs = [name + "/kernel_sources.txt"]
    if dtype_selective_build:
        # The names the sources' dtype switches use, for selected_op_variants.h.
        outs.append(name + "/switch_names.txt")
        args.append("--switch_names_output $(location %s/switch_names.txt)" % name)
        if BUILD_SYSTEM == "etsb":
            # Sources naming no switch are marked: the driver links their library's own objects.
            args.append("--mark_plain")
    etsb_genrule(
        name = name + "_kernel_sources",
        srcs = [selection] + yamls + files,
        outs = outs,
        cmd = ETSB_COMMAND + " kernel-sources %s --output $(location %s/kernel_sources.txt) %s" % (
            " ".join(args),
            name,
            " ".join(libraries),
        ),
        tools = ETSB_TOOLS,
        **helper
    )
    hdrs, copts, includes = [], [], []
    if dtype_selective_build:
        variants = _op_variants(name, selection, helper, ":%s/switch_names.txt" % name)
        hdrs, copts = [variants], ["-include", "$(location %s)" % variants]

        # Its folder on the include path: ExecuTorch's selective_build.h includes it as
        # "selected_op_variants.h". Bazel's includes name the output tree too; the driver's
        # do not, and $(RULEDIR) (which Bazel gives no C++ library) does.
        if BUILD_SYSTEM == "bazel":
            includes = [name]
        else:
            copts.append("-I$(RULEDIR)/" + name)
    etsb_cxx_library(
        name = name + "_kernels",
        hdrs = hdrs,
        copts = copts,
        includes = includes,
        objects_of = objects_of,
        object_list = ":%s/kernel_sources.txt" % name,
        **helper
    )
    return ":" + name + "_kernels"

def _op_variants(name, selection, helper, switch_names = None):
    """The genrule writing the selection's `selected_op_variants.h`; its label.

    The kernels' own switch names are used too when `switch_names` lists them.
    """
    srcs, extra = [selection], ""
    if switch_names != None:
        srcs.append(switch_names)
        extra = " --switch_names $(location %s)" % switch_names
    etsb_genrule(
        name = name + "_op_variants",
        srcs = srcs,
        outs = [name + "/selected_op_variants.h"],
        cmd = ETSB_COMMAND + " gen-op-variants --yaml_file_path $(location %s) --output_dir $(RULEDIR)/%s%s" % (selection, name, extra),
        tools = ETSB_TOOLS,
        **helper
    )
    return ":" + name + "_op_variants"

def _dtype_selective_kernels(name, kernel_deps, selection, helper):
    """The kernels of `kernel_deps` compiled again with the selection's `selected_op_variants.h` (Buck2: etsb's driver and Bazel compile only the selected sources, `_selected_kernels`)."""
    _op_variants(name, selection, helper)
    etsb_cxx_library(
        name = name + "_kernels",
        srcs = [sibling_label(k, "_srcs") for k in kernel_deps] + [":" + name + "_op_variants"],
        # hdrs, not srcs: Bazel rejects a srcs entry that yields no file, such as an empty `_hdrs`.
        hdrs = [sibling_label(k, "_hdrs") for k in kernel_deps],
        copts = ["-include", "$(location :%s_op_variants)" % name],
        deps = [RUNTIME],
        **helper
    )
    return ":" + name + "_kernels"
