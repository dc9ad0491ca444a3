"""The module extension behind etsb's MODULE.bazel (Bazel 7+ with bzlmod):
the same repositories that //bazel:repositories.bzl declares for WORKSPACE.

    etsb = use_extension("@etsb//bazel:extensions.bzl", "etsb")
    etsb.executorch_tree(path = "../executorch")    # optional: an ExecuTorch tree as @executorch
    etsb.cmsis_nn_tree(path = "../cmsis-nn")        # optional: CMSIS-NN as @cmsis_nn (default: beside the tree)
    use_repo(etsb, "etsb_python", "executorch_runtime", "executorch", "cmsis_nn")

`@executorch_runtime` is the executorch wheel's runtime (found through
`ETSB_PYTHON`, or named by `ETSB_EXECUTORCH_RUNTIME`, read with
`--repo_env`); `@etsb_shim` the file through which etsb's rules load Bazel's
shim alone; `@etsb_python` the interpreter of etsb's build actions and the
packages its tools import, as declared files; `@executorch` is an ExecuTorch
source tree with etsb's BUILD files (`EXECUTORCH_ROOT` wins over the tag);
`@cmsis_nn` Arm's CMSIS-NN (`CMSIS_NN_ROOT` wins over the tag; without
either, `cmsis-nn` beside the ExecuTorch tree), under ExecuTorch's Cortex-M
kernels, which the catalogue takes when both trees are there.
Nothing is downloaded.
"""

load("//bazel/private:cmsis_nn.bzl", "cmsis_nn_tree")
load("//bazel/private:executorch_tree.bzl", "executorch_tree")
load("//bazel/private:python_repositories.bzl", "etsb_flatbuffers", "etsb_python", "executorch_runtime")
load("//bazel/private:shim_repository.bzl", "etsb_shim")
load(":repositories.bzl", "etsb_toolchains")

_TREE = tag_class(
    doc = "An ExecuTorch source tree to make the repository `@executorch`.",
    attrs = {"path": attr.string(doc = "the tree: absolute, or relative to the root of the workspace Bazel runs in")},
)

_CMSIS_NN = tag_class(
    doc = "A CMSIS-NN source tree to make the repository `@cmsis_nn` (default: `cmsis-nn` beside the ExecuTorch tree).",
    attrs = {"path": attr.string(doc = "the tree: absolute, or relative to the root of the workspace Bazel runs in")},
)

def _one_path(module_ctx, tag):
    """The path of the one `tag` the modules give ("" for none)."""
    paths = [given.path for module in module_ctx.modules for given in getattr(module.tags, tag)]
    if len(paths) > 1:
        fail("etsb.%s is given %d times: give one tree" % (tag, len(paths)))
    return paths[0] if paths else ""

def _etsb_impl(module_ctx):
    tree = _one_path(module_ctx, "executorch_tree")
    cmsis_nn = _one_path(module_ctx, "cmsis_nn_tree")
    executorch_runtime(name = "executorch_runtime")
    etsb_python(name = "etsb_python")
    etsb_flatbuffers(name = "etsb_flatbuffers")
    etsb_toolchains(name = "etsb_toolchains")
    etsb_shim(name = "etsb_shim", executorch_root = tree, cmsis_nn_root = cmsis_nn)
    executorch_tree(name = "executorch", path = tree)
    cmsis_nn_tree(name = "cmsis_nn", path = cmsis_nn, executorch_root = tree)

etsb = module_extension(
    implementation = _etsb_impl,
    tag_classes = {"executorch_tree": _TREE, "cmsis_nn_tree": _CMSIS_NN},
    doc = "The ExecuTorch runtime of the executorch wheel, the Python of etsb's actions, and an ExecuTorch source tree.",
)
