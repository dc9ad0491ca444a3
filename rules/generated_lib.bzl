"""`executorch_generated_lib`: selected operators resolved to kernels, with
generated registration code, compiled into one library."""

load(":merge_yaml.bzl", "merge_yaml")
load(":operator_library.bzl", "et_operator_library")
load(":private/checks.bzl", "check_bool", "check_identifier", "check_string", "check_string_list", "cxx_identifier", "sibling_label")
load(":private/shim.bzl", "ETSB_COMMAND", "ETSB_TOOL", "ETSB_TOOL_SOURCES", "RUNTIME", "TAG_REGISTERS", "etsb_cxx_library", "etsb_genrule")

# The files `etsb gen-bindings` writes.
BINDINGS_FILES = ["register_kernels.cpp", "NativeFunctions.h", "CustomOpsNativeFunctions.h", "Functions.h"]

def executorch_generated_lib(
        name,
        functions_yaml_target = None,
        custom_ops_yaml_target = None,
        fallback_yaml_target = None,
        deps = [],
        kernel_deps = [],
        dtype_selective_build = False,
        manual_registration = False,
        model_entry = False,
        tags = [],
        visibility = None):
    """Resolves the selected operators to kernels and builds their registration.

    For every operator and kernel key selected by `deps`, the kernel yaml names
    the C++ kernel (a specialised kernel whose `arg_meta` matches the key, else
    the operator's default). A selected operator or key without a kernel fails
    the build with one message listing every gap. The library `<name>` holds
    the generated registration source and links the kernels; its generated
    headers are `<name>/NativeFunctions.h`, `<name>/CustomOpsNativeFunctions.h`
    and `<name>/Functions.h`.

    Args:
      name: the target name; also names the C++ functions `etsb::register_<name>_kernels()`
        and `etsb::<name>_kernels()` ('-' becomes '_').
      functions_yaml_target: the kernel yaml of ATen operators (e.g. `//kernels/portable:functions.yaml`).
      custom_ops_yaml_target: a kernel yaml of custom operators (`func:` entries).
      fallback_yaml_target: a kernel yaml that `functions_yaml_target` is merged over (see `merge_yaml`).
      deps: `et_operator_library` targets; their union is what gets registered. With none,
        every operator of the yamls is registered.
      kernel_deps: `et_kernel_library` targets implementing the kernels.
      dtype_selective_build: recompile the kernels of `kernel_deps` so that their dtype switches
        keep only the dtypes the selection uses.
      manual_registration: no static initialiser; the binary calls `etsb::register_<name>_kernels()`
        (or passes `etsb::<name>_kernels()` to `Program::load_method`), and no whole-archive
        linking is needed.
      model_entry: also define `etsb::register_model_kernels()`, the entry point that the
        runner library `//tools/runner:runner` calls (`et_model_binary` sets it).
      tags: free-form tags passed to the generated targets.
      visibility: who may depend on the library (public when None).
    """
    macro = "executorch_generated_lib"
    check_identifier(macro, name)
    check_string(macro, name, "functions_yaml_target", functions_yaml_target, allow_none = True)
    check_string(macro, name, "custom_ops_yaml_target", custom_ops_yaml_target, allow_none = True)
    check_string(macro, name, "fallback_yaml_target", fallback_yaml_target, allow_none = True)
    check_string_list(macro, name, "deps", deps)
    check_string_list(macro, name, "kernel_deps", kernel_deps)
    check_bool(macro, name, "dtype_selective_build", dtype_selective_build)
    check_bool(macro, name, "manual_registration", manual_registration)
    check_bool(macro, name, "model_entry", model_entry)
    if functions_yaml_target == None and custom_ops_yaml_target == None:
        fail("%s '%s': give functions_yaml_target, custom_ops_yaml_target or both" % (macro, name))
    if fallback_yaml_target != None and functions_yaml_target == None:
        fail("%s '%s': fallback_yaml_target needs a functions_yaml_target to merge over it" % (macro, name))
    if not kernel_deps:
        fail("%s '%s': kernel_deps is empty: name the kernel libraries that implement the yaml" % (macro, name))
    if dtype_selective_build and not deps:
        fail("%s '%s': dtype_selective_build needs deps (an operator selection to take dtypes from)" % (macro, name))

    functions_yaml = functions_yaml_target
    if fallback_yaml_target != None:
        merge_yaml(name = name + "_merged", functions_yaml = functions_yaml_target, fallback_yaml = fallback_yaml_target, tags = tags)
        functions_yaml = ":" + name + "_merged"

    # Without deps every operator of the yamls is registered: select them all, so that
    # every library has a selection for the driver's overlap check.
    selection_deps = deps
    if not deps:
        for suffix, yaml in (("_all_functions", functions_yaml), ("_all_custom_ops", custom_ops_yaml_target)):
            if yaml != None:
                et_operator_library(name = name + suffix, ops_schema_yaml_target = yaml, tags = tags)
                selection_deps = selection_deps + [":" + name + suffix]
    et_operator_library(name = name + "_selected_operators", deps = selection_deps, tags = tags)
    selection = ":" + name + "_selected_operators"

    lib_name = cxx_identifier(name)
    srcs, args = [], []
    if functions_yaml != None:
        srcs.append(functions_yaml)
        args.append("--functions_yaml_path $(location %s)" % functions_yaml)
    if custom_ops_yaml_target != None:
        srcs.append(custom_ops_yaml_target)
        args.append("--custom_ops_yaml_path $(location %s)" % custom_ops_yaml_target)
    srcs.append(selection)
    args.append("--op_selection_yaml_path $(location %s)" % selection)
    if manual_registration:
        args.append("--manual_registration")
    if model_entry:
        args.append("--model_entry")
    etsb_genrule(
        name = name + "_bindings",
        srcs = srcs,
        outs = [name + "/" + f for f in BINDINGS_FILES],
        cmd = ETSB_COMMAND + " gen-bindings " + " ".join(args) + " --lib_name %s --output_dir $(RULEDIR)/%s" % (lib_name, name),
        tools = [ETSB_TOOL, ETSB_TOOL_SOURCES],
        tags = tags,
    )

    kernels = kernel_deps
    if dtype_selective_build:
        etsb_genrule(
            name = name + "_op_variants",
            srcs = [selection],
            outs = [name + "/selected_op_variants.h"],
            cmd = ETSB_COMMAND + " gen-op-variants --yaml_file_path $(location %s) --output_dir $(RULEDIR)/%s" % (selection, name),
            tools = [ETSB_TOOL, ETSB_TOOL_SOURCES],
            tags = tags,
        )
        etsb_cxx_library(
            name = name + "_kernels",
            srcs = [sibling_label(k, "_srcs") for k in kernel_deps] + [":" + name + "_op_variants"],
            # hdrs, not srcs: Bazel rejects a srcs entry that yields no file, such as an empty `_hdrs`.
            hdrs = [sibling_label(k, "_hdrs") for k in kernel_deps],
            copts = ["-include", "$(location :%s_op_variants)" % name],
            deps = [RUNTIME],
            tags = tags,
        )
        kernels = [":" + name + "_kernels"]

    etsb_cxx_library(
        name = name,
        srcs = [":" + name + "_bindings"],
        deps = kernels + [RUNTIME],
        link_whole = not manual_registration,
        # The driver's overlap check reads which selection each registration library registers.
        tags = tags + ["%s//%s:%s_selected_operators" % (TAG_REGISTERS, native.package_name(), name)],
        visibility = visibility,
    )
