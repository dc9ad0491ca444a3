"""`et_model_binary`: a size-trimmed binary that runs one model."""

load(":generated_lib.bzl", "executorch_generated_lib", "generated_lib_listed_by")
load(":operator_library.bzl", "et_operator_library")
load(":private/attrs.bzl", "attrs", "check_call", "internal", "rule_info", "with_tags")
load(":private/boards.bzl", "BARE_METAL_SETTINGS", "SHIPPING_SETTINGS")
load(":private/catalogue.bzl", "CATALOGUE_CUSTOM_OPS_YAML", "PORTABLE_FUNCTIONS_YAML", "catalogue_kernel_deps")
load(":private/model_runtime.bzl", "WHEEL_BACKENDS", "auto_binary", "auto_runner", "backend_deps_for", "runtime_kind", "runtime_libraries")
load(":private/shim.bzl", "BUILD_SYSTEM", "ETSB_COMMAND", "ETSB_TOOLS", "LINK_MAPS", "RUNNER", "RUNNER_FROM_TREE", "RUNTIME", "RUNTIME_AUTO", "RUNTIME_FROM_TREE", "RUNTIME_SHARED", "RUNTIME_SHARED_LIBRARY", "RUNTIME_STATIC", "RUNTIME_THREADPOOL_LIBRARY", "RUNTIME_WHEEL", "SELECT_DEFAULT", "SIZE_CONFIG_SETTING", "TAG_ALL_KERNELS", "TAG_BINARY", "TAG_COPIED_TO", "TAG_MANUAL", "check_runtime", "deploy_runner", "etsb_cxx_binary", "etsb_cxx_library", "etsb_genrule", "etsb_label", "runtime_library")

# The sources of the host tool that verifies a program to embed (tools/runner/verify_program.cpp).
PROGRAM_VERIFIER_SOURCES = [etsb_label("//tools/runner:verify_program.cpp"), etsb_label("//tools/runner:program_check.h")]

ET_MODEL_BINARY = rule_info(
    name = "et_model_binary",
    doc = """The runner linked with exactly the kernels `model` needs.

Selects the operators and kernel keys of `model` (plus `deps`), resolves them
against the kernel yaml (failing the build if any is not covered), and links
the model runner, which registers the kernels explicitly, with the backend
libraries the model's delegates need (from `backend_deps`) and no other:
`<name> --model M.pte --inputs a.npy,... --output-dir D [--method M] [--iterations N]` (`<name> --help`).
Built to ship (`--config size`, any `--platform` but the host, or
`embed_model = True`), it links the deploy runner instead:
`<name> M.pte [INPUT.bin ...]`, or `<name>` alone with the program (and
`inputs`) embedded; it prints the outputs, and runs in static memory sized
from the model (docs/deploy.md). With the default `runtime = "auto"`, a
binary built to ship is the shipped one: ExecuTorch's runtime compiled from
the tree, kernels keeping only the model's dtypes, stripped; `etsb build`
prints its size (flash and RAM on a board).
A companion `<name>_all_kernels` (tagged `manual`) links every kernel of the
yaml and the backends the model uses, for `etsb size` to compare against.""",
    attrs = {
        "model": attrs.model("the `.pte` program the binary must run", mandatory = True),
        "functions_yaml_target": attrs.label("the kernel yaml (default: etsb's portable kernels)"),
        "kernel_deps": attrs.label_list("the kernel libraries implementing it. Default, when no kernel library or yaml is named: the catalogue (rules/private/catalogue.bzl), every library etsb knows, each operator taken from the first that has it: etsb's portable, quantized and LLM kernels, then, with an ExecuTorch tree and CMSIS-NN (under Buck2: the cells the project's root .buckconfig names, `[etsb] executorch_cell` and `cmsis_nn_cell`), ExecuTorch's Cortex-M kernels"),
        "custom_ops_yaml_target": attrs.label("a kernel yaml of custom operators the model calls (an int8 PT2E program's `quantized_decomposed` operators: `//kernels/quantized:quantized.yaml`, with `//kernels/quantized:kernels` among the `kernel_deps`; the catalogue's by default)"),
        "fallback_yaml_target": attrs.label("a kernel yaml that `functions_yaml_target` is merged over"),
        "deps": attrs.label_list("more `et_operator_library` targets to include (operators other models need)"),
        "backends": attrs.backend_list("backend ids to link beside those the model's delegates use"),
        "backend_deps": attrs.label_list("the `et_backend_library` (or `et_runtime_backends`) targets that may provide the model's backends (default: the runtime wheel's XNNPACK, QNN and OpenVINO libraries, declared and copied by one action, `//runtime:wheel_backends`; none under Bazel 4, which links every one given, and none with the static runtime: the wheel's need its libexecutorch.so); only those the model uses are linked, and a backend none provides fails the build", default = WHEEL_BACKENDS),
        "runtime": attrs.choice("the ExecuTorch runtime linked: `\"auto\"` (the default), a shipped binary where one is built to ship (`--config=size`, or any `--platform` but the host): ExecuTorch's runtime from the tree, the deploy runner, kernels keeping only the model's dtypes, stripped; on the host's development configuration the wheel's runtime and the development runner (with `dtype_selective_build`, and under Buck2: `\"shared\"`); `\"shared\"` (or `\"wheel\"`), the wheel's `libexecutorch.so` (found beside the binary) in every configuration; `\"static\"`, ExecuTorch's runtime compiled from the ExecuTorch tree given to etsb (`--executorch-root`, `EXECUTORCH_ROOT`, `.etsbrc`; `@executorch//:runtime`) and linked in, in every configuration, with everything in the binary compiled against the tree's headers (etsb's driver and Bazel; the kernel libraries must be `et_kernel_library` targets)", [RUNTIME_AUTO, RUNTIME_SHARED, RUNTIME_WHEEL, RUNTIME_STATIC], RUNTIME_AUTO),
        "embed_model": attrs.bool("embed `model` in the binary (an aligned constant array) and link the deploy runner, in every configuration: the binary then takes no arguments"),
        "inputs": attrs.label_list("`.npy` inputs of the model's first method to embed beside it, in order (needs `embed_model`); without them the binary runs a method that takes no inputs, and a method that takes some is a build error"),
        "method_pool_bytes": attrs.int("the deploy runner's method allocator pool in bytes (default 0: a bound computed from the model)"),
        "temp_pool_bytes": attrs.int("the deploy runner's scratch for kernels in bytes (the runtime's temp allocator; default 0: none, and kernels take their paths that need none)"),
        "dtype_selective_build": attrs.bool("keep, within each kernel, only the dtypes the model uses. Both forms are linked (`<name>_dtype_selective`, `<name>_op_selective`) and `<name>` is the smaller, at `<name>_smallest/<name>` (stripped; a board's as linked, compared by flash): a dtype restriction that would not pay is not kept. With it the default runtime is `\"shared\"`: name `runtime = \"static\"` to ship"),
    },
    outputs = {"binary": "`<name>` (or `<name>_smallest/<name>` with `dtype_selective_build`)", "companion": "`<name>_all_kernels`"},
)

def et_model_binary(name, **kwargs):
    """The runner linked with exactly the kernels a model needs (see `ET_MODEL_BINARY`).

    Args:
      name: the target name; the binary is named after it.
      **kwargs: the attributes of `ET_MODEL_BINARY`, and `tags`, `visibility`, `testonly`.
    """
    a, common = check_call(ET_MODEL_BINARY, name, kwargs)
    runtime = runtime_kind(a)
    check_runtime("et_model_binary '%s'" % name, RUNTIME_SHARED if runtime == RUNTIME_AUTO else runtime)

    # What a BUILD file names wins; naming nothing takes the catalogue.
    catalogue = not (a.kernel_deps or a.custom_ops_yaml_target or a.fallback_yaml_target)
    yamls = dict(
        functions_yaml_target = a.functions_yaml_target or PORTABLE_FUNCTIONS_YAML,
        custom_ops_yaml_target = CATALOGUE_CUSTOM_OPS_YAML if catalogue else a.custom_ops_yaml_target,
        fallback_yaml_target = a.fallback_yaml_target,
        kernel_deps = catalogue_kernel_deps() if catalogue else a.kernel_deps,
        catalogue = catalogue,
        runtime = runtime,
    )

    helper = internal(common)
    if a.inputs and not a.embed_model:
        fail("et_model_binary '%s': `inputs` are embedded beside the model: set `embed_model = True` too" % name)
    et_operator_library(name = name + "_ops", model = a.model, deps = a.deps, backends = a.backends, **helper)
    _deploy_source(name, a, runtime, helper)
    binary = with_tags(common, [TAG_ALL_KERNELS + ":" + name + "_all_kernels"])
    if runtime == RUNTIME_AUTO:
        auto_binary(name, yamls, binary, a, helper)
        _all_kernels(name, yamls, catalogue, auto_runner(name, a), a, common, helper)
        return
    runner = _runner(name, a, runtime)

    # The wheel's backend libraries need its libexecutorch.so: a second runtime beside
    # the static one. Such a binary takes only the backend libraries it is given.
    yamls["backend_deps"] = backend_deps_for(a, runtime)
    if not a.dtype_selective_build:
        _binary(name, name, [":" + name + "_ops"], False, binary, yamls, runner, a, helper)
    else:
        # Restricting dtypes usually shrinks kernels, but can grow them (ExecuTorch's issue
        # 13015): link both forms and keep the smaller, so it never costs bytes.
        # The chosen one is copied into `<name>_smallest/`: its run path finds the libraries from there too.
        candidate = with_tags(common, [TAG_MANUAL, TAG_COPIED_TO + name + "_smallest"])
        _binary(name, name + "_dtype_selective", [":" + name + "_ops"], True, candidate, yamls, runner, a, helper)
        _binary(name, name + "_op_selective", [":" + name + "_ops"], False, candidate, yamls, runner, a, helper, twin = name + "_dtype_selective_lib")
        candidates = [":" + name + "_dtype_selective", ":" + name + "_op_selective"]
        output = name + "_smallest/" + name

        # The shared runtime goes beside the copy, where its run path ($ORIGIN) finds it, and
        # the development runner's thread pool with it (unused beside a deploy runner: outs
        # cannot depend on the configuration).
        beside, copied = [], []
        if runtime == RUNTIME_SHARED:
            beside = [RUNTIME_SHARED_LIBRARY]
            copied = [name + "_smallest/libexecutorch.so"]
            if not a.embed_model:
                beside.append(RUNTIME_THREADPOOL_LIBRARY)
                copied.append(name + "_smallest/libexecutorch_threadpool.so")
        etsb_genrule(
            name = name,
            srcs = candidates + beside,
            outs = ([output, output + ".map"] if LINK_MAPS else [output]) + copied,
            cmd = ETSB_COMMAND + " pick-smaller --output $(location %s)%s %s%s" % (
                output,
                "".join([" --beside $(location %s)" % b for b in beside]),
                " ".join(["$(location %s)" % c for c in candidates]),
                "" if LINK_MAPS else " --no_link_map",
            ),
            tools = ETSB_TOOLS,
            **with_tags(binary, [TAG_BINARY])
        )
    _all_kernels(name, yamls, catalogue, runner, a, common, helper)

def _all_kernels(name, yamls, catalogue, runner, a, common, helper):
    """`<name>_all_kernels`: the same binary with every kernel of the yaml, what the trimming is measured against.

    It runs the model too: every kernel, and the backends the model's
    delegates use. With the catalogue, every kernel of the functions yaml and
    the custom operators the model calls (the catalogue's other libraries are
    what the model's operators choose, not a size to compare with). With
    `runtime = "auto"`, against the runtime the binary links in each configuration.

    Args:
      name: the et_model_binary's name.
      yamls: the generated library's kernel yamls, kernel libraries and runtime.
      catalogue: whether the kernel libraries are the catalogue's.
      runner: the runner libraries (`_runner`).
      a: the et_model_binary's checked attributes.
      common: the et_model_binary's common attributes.
      helper: the common attributes of its helper targets.
    """
    manual = with_tags(helper, [TAG_MANUAL])
    if catalogue:
        et_operator_library(name = name + "_all_kernels_ops", ops_schema_yaml_target = yamls["functions_yaml_target"], deps = [":" + name + "_ops"], **manual)
    else:
        et_operator_library(name = name + "_all_kernels_ops", include_all_operators = True, deps = [":" + name + "_ops"], **manual)
    auto = yamls["runtime"] == RUNTIME_AUTO
    for runtime in [RUNTIME_SHARED, RUNTIME_STATIC] if auto else [yamls["runtime"]]:
        executorch_generated_lib(
            name = name + ("_all_kernels_shipped_lib" if auto and runtime == RUNTIME_STATIC else "_all_kernels_lib"),
            manual_registration = True,
            model_entry = True,
            deps = [":" + name + "_all_kernels_ops"],
            **dict(yamls, runtime = runtime, backend_deps = backend_deps_for(a, runtime), **manual)
        )
    if not auto:
        libraries = [":" + name + "_all_kernels_lib", runtime_library(yamls["runtime"])]
    else:
        choices = {setting: [":" + name + "_all_kernels_shipped_lib", RUNTIME_FROM_TREE] for setting in SHIPPING_SETTINGS}
        choices[SELECT_DEFAULT] = [":" + name + "_all_kernels_lib", RUNTIME]
        libraries = select(choices)
    etsb_cxx_binary(name = name + "_all_kernels", deps = runner + libraries, **with_tags(common, [TAG_MANUAL]))

def _deploy_source(name, a, runtime, helper):
    """Declares `<name>_deploy`, the deploy runner's generated source.

    It holds static memory sized from the model, and the model and `inputs`
    themselves when they are embedded. With the static runtime, also the
    `selected_prim_ops.h` of the prim ops the model calls (see `runtime_libraries`).

    Args:
      name: the et_model_binary's name.
      a: its checked attributes.
      runtime: the runtime it links (`runtime_kind`).
      helper: the common attributes of its helper targets.
    """
    flags = "".join([" --inputs $(location %s)" % i for i in a.inputs])
    srcs = [a.model] + a.inputs
    if a.embed_model:
        # Verified at build time on the host (ExecuTorch's verifier, `etsb deploy-source` builds it
        # from these sources), as the file-reading deploy runner verifies a program at run time.
        flags += " --embed"
        srcs += PROGRAM_VERIFIER_SOURCES
        if BUILD_SYSTEM == "bazel":
            # Bazel's actions do not import the wheel: its runtime library (a link into it) says where it is.
            srcs.append(RUNTIME_SHARED_LIBRARY)
            flags += " --runtime-library $(location %s)" % RUNTIME_SHARED_LIBRARY
    outs = [name + "_deploy.cpp"]
    prim_ops_header = name + "_deploy/selected_prim_ops.h"
    if runtime != RUNTIME_SHARED:
        outs.append(prim_ops_header)
        flags += " --prim-ops-header $(location %s)" % prim_ops_header
    manual = with_tags(helper, [TAG_MANUAL])
    etsb_genrule(
        name = name + "_deploy_source",
        srcs = srcs,
        outs = outs,
        cmd = ETSB_COMMAND + " deploy-source --model $(location %s) --output $(location %s) --method-pool-bytes %d --temp-pool-bytes %d%s" % (
            a.model,
            outs[0],
            a.method_pool_bytes,
            a.temp_pool_bytes,
            flags,
        ),
        tools = ETSB_TOOLS,
        **manual
    )
    etsb_cxx_library(name = name + "_deploy", srcs = [":" + outs[0]], **manual)

def _runner(name, a, runtime):
    """The runner libraries the binaries link.

    The deploy runner with the model's deploy source when the model is embedded,
    in the size configuration or on a platform without an operating system;
    else the development runner.

    Args:
      name: the et_model_binary's name.
      a: its checked attributes.
      runtime: `RUNTIME_SHARED` or `RUNTIME_STATIC`.

    Returns:
      A list of labels, or a select() of lists.
    """
    deploy = [deploy_runner(a.embed_model, runtime), ":" + name + "_deploy"]
    if a.embed_model:
        return deploy
    development = [RUNNER_FROM_TREE if runtime == RUNTIME_STATIC else RUNNER]
    choices = {setting: deploy for setting in [SIZE_CONFIG_SETTING] + BARE_METAL_SETTINGS}
    choices[SELECT_DEFAULT] = development
    return select(choices)

def _binary(name, binary_name, selections, dtype_selective_build, binary, yamls, runner, a, helper, twin = None):
    """`runner` linked with a generated library registering `selections`, and the runtime.

    Args:
      name: the et_model_binary's name.
      binary_name: this binary's name.
      selections: the et_operator_library targets it registers.
      dtype_selective_build: whether its kernels keep only the selected dtypes.
      binary: the binary's common attributes.
      yamls: the generated library's kernel yamls, kernel libraries and runtime.
      runner: the runner libraries (`_runner`).
      a: the et_model_binary's checked attributes.
      helper: the common attributes of its helper targets.
      twin: a dtype-selective generated library of the same selection whose kernel sources it compiles.
    """
    library = dict(deps = selections, manual_registration = True, model_entry = True, **dict(yamls, **helper))
    if twin != None:
        generated_lib_listed_by(name = binary_name + "_lib", twin = twin, **library)
    else:
        executorch_generated_lib(name = binary_name + "_lib", dtype_selective_build = dtype_selective_build, **library)
    etsb_cxx_binary(name = binary_name, deps = runner + [":" + binary_name + "_lib"] + runtime_libraries(name, binary_name, a, yamls["runtime"], helper), **binary)
