"""`et_model_binary`: a size-trimmed binary that runs one model."""

load(":generated_lib.bzl", "executorch_generated_lib")
load(":operator_library.bzl", "et_operator_library")
load(":private/checks.bzl", "check_bool", "check_identifier", "check_model", "check_string", "check_string_list")
load(":private/shim.bzl", "ETSB_COMMAND", "ETSB_TOOL", "ETSB_TOOL_SOURCES", "LINK_MAPS", "RUNNER", "RUNTIME", "TAG_ALL_KERNELS", "TAG_BINARY", "TAG_MANUAL", "etsb_cxx_binary", "etsb_genrule")

PORTABLE_FUNCTIONS_YAML = "//kernels/portable:functions.yaml"
PORTABLE_KERNELS = "//kernels/portable:kernels"

def et_model_binary(
        name,
        model,
        functions_yaml_target = PORTABLE_FUNCTIONS_YAML,
        kernel_deps = [PORTABLE_KERNELS],
        custom_ops_yaml_target = None,
        fallback_yaml_target = None,
        deps = [],
        dtype_selective_build = False,
        tags = [],
        visibility = None):
    """The runner linked with exactly the kernels `model` needs.

    Selects the operators and kernel keys of `model` (plus `deps`), resolves
    them against the kernel yaml (failing the build if any is not covered),
    and links the model runner, which registers the kernels explicitly:
    `<name> --model M.pte --inputs a.npy,... --output-dir D [--method M] [--iterations N]`.
    A companion `<name>_all_kernels` (tagged `manual`) links every kernel of
    the yaml, for `etsb size` to compare against.

    Args:
      name: the target name; the binary is named after it.
      model: the `.pte` program the binary must run.
      functions_yaml_target: the kernel yaml (default: etsb's portable kernels).
      kernel_deps: the kernel libraries implementing it (default: etsb's portable kernels).
      custom_ops_yaml_target: a kernel yaml of custom operators the model calls.
      fallback_yaml_target: a kernel yaml that `functions_yaml_target` is merged over.
      deps: more `et_operator_library` targets to include (operators other models need).
      dtype_selective_build: keep, within each kernel, only the dtypes the model uses. Both
        forms are linked (`<name>_dtype_selective`, `<name>_op_selective`) and `<name>` is the
        smaller, at `<name>_smallest/<name>`: a dtype restriction that would not pay is not kept.
      tags: free-form tags passed to the generated targets.
      visibility: who may depend on the binary (public when None).
    """
    macro = "et_model_binary"
    check_identifier(macro, name)
    check_model(macro, name, "model", model)
    check_string(macro, name, "functions_yaml_target", functions_yaml_target, allow_none = True)
    check_string_list(macro, name, "kernel_deps", kernel_deps)
    check_string(macro, name, "custom_ops_yaml_target", custom_ops_yaml_target, allow_none = True)
    check_string(macro, name, "fallback_yaml_target", fallback_yaml_target, allow_none = True)
    check_string_list(macro, name, "deps", deps)
    check_bool(macro, name, "dtype_selective_build", dtype_selective_build)

    yamls = dict(
        functions_yaml_target = functions_yaml_target,
        custom_ops_yaml_target = custom_ops_yaml_target,
        fallback_yaml_target = fallback_yaml_target,
        kernel_deps = kernel_deps,
    )
    et_operator_library(name = name + "_ops", model = model, deps = deps, tags = tags)
    binary_tags = tags + [TAG_ALL_KERNELS + ":" + name + "_all_kernels"]
    if not dtype_selective_build:
        _binary(name, [":" + name + "_ops"], False, tags, binary_tags, visibility, yamls)
    else:
        # Restricting dtypes usually shrinks kernels, but can grow them (ExecuTorch's issue
        # 13015): link both forms and keep the smaller, so it never costs bytes.
        candidate_tags = tags + [TAG_MANUAL]
        _binary(name + "_dtype_selective", [":" + name + "_ops"], True, tags, candidate_tags, visibility, yamls)
        _binary(name + "_op_selective", [":" + name + "_ops"], False, tags, candidate_tags, visibility, yamls)
        candidates = [":" + name + "_dtype_selective", ":" + name + "_op_selective"]
        output = name + "_smallest/" + name
        etsb_genrule(
            name = name,
            srcs = candidates,
            outs = [output, output + ".map"] if LINK_MAPS else [output],
            cmd = ETSB_COMMAND + " pick-smaller --output $(location %s) %s%s" % (
                output,
                " ".join(["$(location %s)" % c for c in candidates]),
                "" if LINK_MAPS else " --no_link_map",
            ),
            tools = [ETSB_TOOL, ETSB_TOOL_SOURCES],
            tags = binary_tags + [TAG_BINARY],
            visibility = visibility,
        )

    # The same binary with every kernel of the yaml: what the trimming is measured against.
    executorch_generated_lib(name = name + "_all_kernels_lib", manual_registration = True, model_entry = True,
                             tags = tags + [TAG_MANUAL], **yamls)
    etsb_cxx_binary(
        name = name + "_all_kernels",
        deps = [RUNNER, ":" + name + "_all_kernels_lib", RUNTIME],
        tags = tags + [TAG_MANUAL],
        visibility = visibility,
    )

def _binary(name, selections, dtype_selective_build, lib_tags, binary_tags, visibility, yamls):
    """The runner linked with a generated library registering `selections`."""
    executorch_generated_lib(
        name = name + "_lib",
        deps = selections,
        dtype_selective_build = dtype_selective_build,
        manual_registration = True,
        model_entry = True,
        tags = lib_tags,
        **yamls
    )
    etsb_cxx_binary(
        name = name,
        deps = [RUNNER, ":" + name + "_lib", RUNTIME],
        tags = binary_tags,
        visibility = visibility,
    )
