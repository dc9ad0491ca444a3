"""The ExecuTorch runtime an `et_model_binary` links, and its shipped binary.

`runtime = "auto"` (the default) decides by configuration, through select():
where a binary is built to ship (`SHIPPING_SETTINGS`: the size configuration,
every platform but the host) the tree's runtime, the deploy runner and
dtype-selective kernels, stripped; on the host's development configuration the
wheel's runtime. `"shared"` (`"wheel"`) and `"static"` decide at load time.
"""

load(":generated_lib.bzl", "executorch_generated_lib")
load(":private/attrs.bzl", "with_tags")
load(":private/boards.bzl", "SHIPPING_SETTINGS")
load(":private/shim.bzl", "BUILDS_THE_TREES_RUNTIME", "BUILD_SYSTEM", "REGISTRY_SIZE_HEADER", "RUNNER", "RUNTIME", "RUNTIME_AUTO", "RUNTIME_FROM_TREE", "RUNTIME_FROM_TREE_CORE", "RUNTIME_FROM_TREE_PRIM_OPS", "RUNTIME_FROM_TREE_PROGRAM", "RUNTIME_FROM_TREE_PROGRAM_UNVERIFIED", "RUNTIME_FROM_TREE_REGISTRY", "RUNTIME_SHARED", "RUNTIME_STATIC", "RUNTIME_WHEEL", "SELECT_DEFAULT", "SIZE_CONFIG_SETTING", "TAG_MANUAL", "deploy_runner", "etsb_cxx_binary", "etsb_cxx_library", "etsb_label", "runtime_library")

# The backend libraries of the runtime wheel: a model binary may link any of them, and links those its
# delegates use. Declared and copied by one action (et_runtime_backends), which is all a binary whose
# programs delegate to none of them costs. Not under Bazel 4, which links every backend library it is
# given (see etsb_cxx_library): there a delegated model names its backend libraries in `backend_deps`.
WHEEL_BACKENDS = [] if BUILD_SYSTEM == "bazel" else [etsb_label("//runtime:wheel_backends")]

def runtime_kind(a):
    """The runtime `a` asks for: `"auto"`, `"shared"` (also spelt `"wheel"`) or `"static"`.

    `"auto"` stays where this build system builds the tree's runtime and the
    binary is one link; with `dtype_selective_build` (two links compared at
    load time, before the configuration is known) and under Buck2 it is the
    wheel's runtime.

    Args:
      a: the et_model_binary's checked attributes.

    Returns:
      One of `RUNTIME_AUTO`, `RUNTIME_SHARED`, `RUNTIME_STATIC`.
    """
    if a.runtime == RUNTIME_WHEEL:
        return RUNTIME_SHARED
    if a.runtime == RUNTIME_AUTO and (a.dtype_selective_build or not BUILDS_THE_TREES_RUNTIME):
        return RUNTIME_SHARED
    return a.runtime

def backend_deps_for(a, runtime):
    """The backend libraries a binary of `runtime` may link: the wheel's need its libexecutorch.so.

    Args:
      a: the et_model_binary's checked attributes.
      runtime: `RUNTIME_SHARED` or `RUNTIME_STATIC`.

    Returns:
      A list of labels.
    """
    return [] if runtime == RUNTIME_STATIC and a.backend_deps == WHEEL_BACKENDS else a.backend_deps

def auto_binary(name, yamls, binary, a, helper):
    """`<name>` of `runtime = "auto"`: shipped where built to ship, else the development binary.

    One cxx_binary whose libraries select() the configuration's: in the size
    configuration and on every platform but the host (`SHIPPING_SETTINGS`),
    the deploy runner, ExecuTorch's runtime from the tree (trimmed to the
    model in the size configuration, as `runtime = "static"` is) and kernels
    that keep only the model's dtypes (`<name>_shipped_lib`), stripped; on the
    host's other configurations, the development runner (or the deploy runner
    with `embed_model`) with the wheel's runtime (`<name>_lib`).

    Args:
      name: the et_model_binary's name.
      yamls: the generated library's kernel yamls and kernel libraries.
      binary: the binary's common attributes.
      a: the et_model_binary's checked attributes.
      helper: the common attributes of its helper targets.
    """
    ops = [":" + name + "_ops"]
    manual = with_tags(helper, [TAG_MANUAL])
    executorch_generated_lib(
        name = name + "_lib",
        deps = ops,
        manual_registration = True,
        model_entry = True,
        **dict(yamls, runtime = RUNTIME_SHARED, backend_deps = a.backend_deps, **helper)
    )
    shipped = name + "_shipped"
    executorch_generated_lib(
        name = shipped + "_lib",
        deps = ops,
        dtype_selective_build = True,
        manual_registration = True,
        model_entry = True,
        **dict(yamls, runtime = RUNTIME_STATIC, backend_deps = backend_deps_for(a, RUNTIME_STATIC), **manual)
    )
    deploy = [deploy_runner(a.embed_model, RUNTIME_STATIC), ":" + name + "_deploy", ":" + shipped + "_lib"]
    trimmed = trimmed_runtime(name, shipped, a, helper)
    choices = {
        setting: deploy + (trimmed if size else [RUNTIME_FROM_TREE])
        for setting, size in SHIPPING_SETTINGS.items()
    }
    development = [deploy_runner(True, RUNTIME_SHARED), ":" + name + "_deploy"] if a.embed_model else [RUNNER]
    choices[SELECT_DEFAULT] = development + [":" + name + "_lib", RUNTIME]
    strip = {setting: ["-s"] for setting in SHIPPING_SETTINGS}
    strip[SELECT_DEFAULT] = []
    etsb_cxx_binary(name = name, deps = select(choices), linkopts = select(strip), **binary)

def auto_runner(name, a):
    """The runner libraries of `runtime = "auto"`'s companion, by configuration (see `auto_binary`).

    Args:
      name: the et_model_binary's name.
      a: its checked attributes.

    Returns:
      A select() of lists.
    """
    deploy = [deploy_runner(a.embed_model, RUNTIME_STATIC), ":" + name + "_deploy"]
    choices = {setting: deploy for setting in SHIPPING_SETTINGS}
    choices[SELECT_DEFAULT] = [deploy_runner(True, RUNTIME_SHARED), ":" + name + "_deploy"] if a.embed_model else [RUNNER]
    return select(choices)

def runtime_libraries(name, binary_name, a, runtime, helper):
    """The runtime libraries binary `binary_name` links.

    With the static runtime in the size configuration, `trimmed_runtime`'s;
    elsewhere the whole runtime.

    Args:
      name: the et_model_binary's name.
      binary_name: the binary's name (`<name>`, or a candidate of `dtype_selective_build`).
      a: the et_model_binary's checked attributes.
      runtime: `RUNTIME_SHARED` or `RUNTIME_STATIC`.
      helper: the common attributes of its helper targets.

    Returns:
      A list of labels, or a select() of lists.
    """
    if runtime != RUNTIME_STATIC:
        return [runtime_library(runtime)]
    return select({
        SIZE_CONFIG_SETTING: trimmed_runtime(name, binary_name, a, helper),
        SELECT_DEFAULT: [RUNTIME_FROM_TREE],
    })

def trimmed_runtime(name, binary_name, a, helper):
    """The static runtime binary `binary_name` links in the size configuration.

    ExecuTorch's runtime without its prim ops and kernel registry, and
    `<binary_name>_runtime`: the prim ops the model calls (when it alone
    decides which: no `deps` add operators of other programs) and a registry
    of as many slots as the binary registers kernels (ExecuTorch's
    `selected_prim_ops.h` and `selected_max_kernel_num.h` hooks, written by
    `etsb deploy-source` and `etsb gen-bindings` into `<name>_deploy/` and
    `<binary_name>_lib/`), and the program loader: without its flatbuffer
    verifier when the program is embedded (it was read at build time), with
    it when the binary reads a program at run time. With `deps`, the whole runtime.

    Args:
      name: the et_model_binary's name.
      binary_name: the binary's name, whose generated library is `<binary_name>_lib`.
      a: the et_model_binary's checked attributes.
      helper: the common attributes of its helper targets.

    Returns:
      A list of labels.
    """
    if a.deps:
        return [RUNTIME_FROM_TREE]
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
    return [":" + binary_name + "_runtime", program, RUNTIME_FROM_TREE_CORE]
