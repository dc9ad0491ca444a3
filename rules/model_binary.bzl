"""`et_model_binary`: a size-trimmed binary that runs one model."""

load(":generated_lib.bzl", "executorch_generated_lib")
load(":operator_library.bzl", "et_operator_library")
load(":private/attrs.bzl", "attrs", "check_call", "internal", "rule_info", "with_tags")
load(":private/boards.bzl", "BARE_METAL_SETTINGS")
load(":private/catalogue.bzl", "CATALOGUE_CUSTOM_OPS_YAML", "PORTABLE_FUNCTIONS_YAML", "catalogue_kernel_deps")
load(":private/shim.bzl", "BUILD_SYSTEM", "ETSB_COMMAND", "ETSB_TOOLS", "LINK_MAPS", "REGISTRY_SIZE_HEADER", "RUNNER", "RUNNER_FROM_TREE", "RUNTIME_FROM_TREE", "RUNTIME_FROM_TREE_CORE", "RUNTIME_FROM_TREE_PRIM_OPS", "RUNTIME_FROM_TREE_PROGRAM", "RUNTIME_FROM_TREE_PROGRAM_UNVERIFIED", "RUNTIME_FROM_TREE_REGISTRY", "RUNTIME_KINDS", "RUNTIME_SHARED", "RUNTIME_SHARED_LIBRARY", "RUNTIME_STATIC", "RUNTIME_THREADPOOL_LIBRARY", "SELECT_DEFAULT", "SIZE_CONFIG_SETTING", "TAG_ALL_KERNELS", "TAG_BINARY", "TAG_COPIED_TO", "TAG_MANUAL", "check_runtime", "deploy_runner", "etsb_cxx_binary", "etsb_cxx_library", "etsb_genrule", "etsb_label", "runtime_library")

# The backend libraries of the runtime wheel: a model binary may link any of them, and links those its
# delegates use. Declared and copied by one action (et_runtime_backends), which is all a binary whose
# programs delegate to none of them costs. Not under Bazel 4, which links every backend library it is
# given (see etsb_cxx_library): there a delegated model names its backend libraries in `backend_deps`.
WHEEL_BACKENDS = [] if BUILD_SYSTEM == "bazel" else [etsb_label("//runtime:wheel_backends")]

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
Built to ship (`--config size`, or `embed_model = True`), it links the deploy
runner instead: `<name> M.pte [INPUT.bin ...]`, or `<name>` alone with the
program (and `inputs`) embedded; it prints the outputs, and runs in static
memory sized from the model (docs/deploy.md).
A companion `<name>_all_kernels` (tagged `manual`) links every kernel of the
yaml and the backends the model uses, for `etsb size` to compare against.""",
    attrs = {
        "model": attrs.model("the `.pte` program the binary must run", mandatory = True),
        "functions_yaml_target": attrs.label("the kernel yaml (default: etsb's portable kernels)"),
        "kernel_deps": attrs.label_list("the kernel libraries implementing it. Default, when no kernel library or yaml is named: the catalogue (rules/private/catalogue.bzl), every library etsb knows, each operator taken from the first that has it: etsb's portable, quantized and LLM kernels, then, with an ExecuTorch tree and CMSIS-NN (etsb's driver and Bazel), ExecuTorch's Cortex-M kernels"),
        "custom_ops_yaml_target": attrs.label("a kernel yaml of custom operators the model calls (an int8 PT2E program's `quantized_decomposed` operators: `//kernels/quantized:quantized.yaml`, with `//kernels/quantized:kernels` among the `kernel_deps`; the catalogue's by default)"),
        "fallback_yaml_target": attrs.label("a kernel yaml that `functions_yaml_target` is merged over"),
        "deps": attrs.label_list("more `et_operator_library` targets to include (operators other models need)"),
        "backends": attrs.backend_list("backend ids to link beside those the model's delegates use"),
        "backend_deps": attrs.label_list("the `et_backend_library` (or `et_runtime_backends`) targets that may provide the model's backends (default: the runtime wheel's XNNPACK, QNN and OpenVINO libraries, declared and copied by one action, `//runtime:wheel_backends`; none under Bazel 4, which links every one given, and none with `runtime = \"static\"`: the wheel's need its libexecutorch.so); only those the model uses are linked, and a backend none provides fails the build", default = WHEEL_BACKENDS),
        "runtime": attrs.choice("the ExecuTorch runtime linked: `\"shared\"`, the wheel's `libexecutorch.so` (found beside the binary); `\"static\"`, ExecuTorch's runtime compiled from the ExecuTorch tree given to etsb (`--executorch-root`, `@executorch//:runtime`) and linked in, with everything in the binary compiled against the tree's headers (etsb's driver and Bazel; the kernel libraries must be `et_kernel_library` targets)", RUNTIME_KINDS, RUNTIME_SHARED),
        "embed_model": attrs.bool("embed `model` in the binary (an aligned constant array) and link the deploy runner, in every configuration: the binary then takes no arguments"),
        "inputs": attrs.label_list("`.npy` inputs of the model's first method to embed beside it, in order (needs `embed_model`); without them the binary runs a method that takes no inputs, and a method that takes some is a build error"),
        "method_pool_bytes": attrs.int("the deploy runner's method allocator pool in bytes (default 0: a bound computed from the model)"),
        "temp_pool_bytes": attrs.int("the deploy runner's scratch for kernels in bytes (the runtime's temp allocator; default 0: none, and kernels take their paths that need none)"),
        "dtype_selective_build": attrs.bool("keep, within each kernel, only the dtypes the model uses. Both forms are linked (`<name>_dtype_selective`, `<name>_op_selective`) and `<name>` is the smaller, at `<name>_smallest/<name>`: a dtype restriction that would not pay is not kept"),
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
    check_runtime("et_model_binary '%s'" % name, a.runtime)

    # What a BUILD file names wins; naming nothing takes the catalogue.
    catalogue = not (a.kernel_deps or a.custom_ops_yaml_target or a.fallback_yaml_target)
    yamls = dict(
        functions_yaml_target = a.functions_yaml_target or PORTABLE_FUNCTIONS_YAML,
        custom_ops_yaml_target = CATALOGUE_CUSTOM_OPS_YAML if catalogue else a.custom_ops_yaml_target,
        fallback_yaml_target = a.fallback_yaml_target,
        kernel_deps = catalogue_kernel_deps() if catalogue else a.kernel_deps,
        catalogue = catalogue,
        runtime = a.runtime,
    )

    helper = internal(common)
    if a.inputs and not a.embed_model:
        fail("et_model_binary '%s': `inputs` are embedded beside the model: set `embed_model = True` too" % name)
    et_operator_library(name = name + "_ops", model = a.model, deps = a.deps, backends = a.backends, **helper)
    _deploy_source(name, a, helper)
    runner = _runner(name, a)

    # The wheel's backend libraries need its libexecutorch.so: a second runtime beside
    # the static one. Such a binary takes only the backend libraries it is given.
    static_wheel_backends = a.runtime == RUNTIME_STATIC and a.backend_deps == WHEEL_BACKENDS
    yamls["backend_deps"] = [] if static_wheel_backends else a.backend_deps
    binary = with_tags(common, [TAG_ALL_KERNELS + ":" + name + "_all_kernels"])
    if not a.dtype_selective_build:
        _binary(name, name, [":" + name + "_ops"], False, binary, yamls, runner, a, helper)
    else:
        # Restricting dtypes usually shrinks kernels, but can grow them (ExecuTorch's issue
        # 13015): link both forms and keep the smaller, so it never costs bytes.
        # The chosen one is copied into `<name>_smallest/`: its run path finds the libraries from there too.
        candidate = with_tags(common, [TAG_MANUAL, TAG_COPIED_TO + name + "_smallest"])
        _binary(name, name + "_dtype_selective", [":" + name + "_ops"], True, candidate, yamls, runner, a, helper)
        _binary(name, name + "_op_selective", [":" + name + "_ops"], False, candidate, yamls, runner, a, helper)
        candidates = [":" + name + "_dtype_selective", ":" + name + "_op_selective"]
        output = name + "_smallest/" + name

        # The shared runtime goes beside the copy, where its run path ($ORIGIN) finds it, and
        # the development runner's thread pool with it (unused beside a deploy runner: outs
        # cannot depend on the configuration).
        beside, runtime = [], []
        if a.runtime == RUNTIME_SHARED:
            beside = [RUNTIME_SHARED_LIBRARY]
            runtime = [name + "_smallest/libexecutorch.so"]
            if not a.embed_model:
                beside.append(RUNTIME_THREADPOOL_LIBRARY)
                runtime.append(name + "_smallest/libexecutorch_threadpool.so")
        etsb_genrule(
            name = name,
            srcs = candidates + beside,
            outs = ([output, output + ".map"] if LINK_MAPS else [output]) + runtime,
            cmd = ETSB_COMMAND + " pick-smaller --output $(location %s)%s %s%s" % (
                output,
                "".join([" --beside $(location %s)" % b for b in beside]),
                " ".join(["$(location %s)" % c for c in candidates]),
                "" if LINK_MAPS else " --no_link_map",
            ),
            tools = ETSB_TOOLS,
            **with_tags(binary, [TAG_BINARY])
        )

    # The same binary with every kernel of the yaml: what the trimming is measured against.
    manual = with_tags(helper, [TAG_MANUAL])

    # It runs the model too: every kernel, and the backends the model's delegates use. With the
    # catalogue, every kernel of the functions yaml and the custom operators the model calls (the
    # catalogue's other libraries are what the model's operators choose, not a size to compare with).
    if catalogue:
        et_operator_library(name = name + "_all_kernels_ops", ops_schema_yaml_target = yamls["functions_yaml_target"], deps = [":" + name + "_ops"], **manual)
    else:
        et_operator_library(name = name + "_all_kernels_ops", include_all_operators = True, deps = [":" + name + "_ops"], **manual)
    executorch_generated_lib(
        name = name + "_all_kernels_lib",
        manual_registration = True,
        model_entry = True,
        deps = [":" + name + "_all_kernels_ops"],
        **dict(yamls, **manual)
    )
    etsb_cxx_binary(name = name + "_all_kernels", deps = runner + [":" + name + "_all_kernels_lib", runtime_library(a.runtime)], **with_tags(common, [TAG_MANUAL]))

def _deploy_source(name, a, helper):
    """Declares `<name>_deploy`, the deploy runner's generated source.

    It holds static memory sized from the model, and the model and `inputs`
    themselves when they are embedded. With the static runtime, also the
    `selected_prim_ops.h` of the prim ops the model calls (see `_runtime`).

    Args:
      name: the et_model_binary's name.
      a: its checked attributes.
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
    if a.runtime == RUNTIME_STATIC:
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

def _runtime(name, binary_name, a, helper):
    """The runtime libraries binary `binary_name` links.

    With the static runtime in the size configuration, ExecuTorch's runtime
    without its prim ops and kernel registry, and `<binary_name>_runtime`:
    the prim ops the model calls (when it alone decides which: no `deps` add
    operators of other programs) and a registry of as many slots as the
    binary registers kernels (ExecuTorch's `selected_prim_ops.h` and
    `selected_max_kernel_num.h` hooks, written by `etsb deploy-source` and
    `etsb gen-bindings`), and the program loader: without its flatbuffer
    verifier when the program is embedded (it was read at build time), with
    it when the binary reads a program at run time.

    Args:
      name: the et_model_binary's name.
      binary_name: the binary's name (`<name>`, or a candidate of `dtype_selective_build`).
      a: the et_model_binary's checked attributes.
      helper: the common attributes of its helper targets.

    Returns:
      A list of labels, or a select() of lists.
    """
    if a.runtime != RUNTIME_STATIC or a.deps:
        return [runtime_library(a.runtime)]
    etsb_cxx_library(
        name = binary_name + "_runtime",
        srcs = [RUNTIME_FROM_TREE_PRIM_OPS, RUNTIME_FROM_TREE_REGISTRY],
        hdrs = [":%s_deploy/selected_prim_ops.h" % name, ":%s_lib/%s" % (binary_name, REGISTRY_SIZE_HEADER)],
        copts = [
            "-DEXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD",
            "-DET_PRIM_OPS_SELECTIVE_BUILD",
            "-I$(RULEDIR)/%s_deploy" % name,
            "-I$(RULEDIR)/%s_lib" % binary_name,
        ],
        link_whole = True,
        deps = [RUNTIME_FROM_TREE_CORE],
        **with_tags(helper, [TAG_MANUAL])
    )

    # A program compiled in was read at build time: its loader needs no verifier.
    program = RUNTIME_FROM_TREE_PROGRAM_UNVERIFIED if a.embed_model else RUNTIME_FROM_TREE_PROGRAM
    return select({
        SIZE_CONFIG_SETTING: [":" + binary_name + "_runtime", program, RUNTIME_FROM_TREE_CORE],
        SELECT_DEFAULT: [RUNTIME_FROM_TREE],
    })

def _runner(name, a):
    """The runner libraries the binaries link.

    The deploy runner with the model's deploy source when the model is embedded,
    in the size configuration or on a platform without an operating system;
    else the development runner.

    Args:
      name: the et_model_binary's name.
      a: its checked attributes.

    Returns:
      A list of labels, or a select() of lists.
    """
    deploy = [deploy_runner(a.embed_model, a.runtime), ":" + name + "_deploy"]
    if a.embed_model:
        return deploy
    development = [RUNNER_FROM_TREE if a.runtime == RUNTIME_STATIC else RUNNER]
    choices = {setting: deploy for setting in [SIZE_CONFIG_SETTING] + BARE_METAL_SETTINGS}
    choices[SELECT_DEFAULT] = development
    return select(choices)

def _binary(name, binary_name, selections, dtype_selective_build, binary, yamls, runner, a, helper):
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
    """
    executorch_generated_lib(
        name = binary_name + "_lib",
        deps = selections,
        dtype_selective_build = dtype_selective_build,
        manual_registration = True,
        model_entry = True,
        **dict(yamls, **helper)
    )
    etsb_cxx_binary(name = binary_name, deps = runner + [":" + binary_name + "_lib"] + _runtime(name, binary_name, a, helper), **binary)
