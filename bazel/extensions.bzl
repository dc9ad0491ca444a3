"""The module extension behind etsb's MODULE.bazel (Bazel 7+ with bzlmod):
the same repositories that //bazel:repositories.bzl declares for WORKSPACE.

    etsb = use_extension("@etsb//bazel:extensions.bzl", "etsb")
    etsb.executorch_tree(path = "../executorch")    # optional: an ExecuTorch tree as @executorch
    use_repo(etsb, "etsb_python", "executorch_runtime", "executorch")

`@executorch_runtime` is the executorch wheel's runtime (found through
`ETSB_PYTHON`, or named by `ETSB_EXECUTORCH_RUNTIME`, read with
`--repo_env`); `@etsb_shim` the file through which etsb's rules load Bazel's
shim alone; `@etsb_python` the interpreter of etsb's build actions and the
packages its tools import, as declared files; `@executorch` is an ExecuTorch
source tree with etsb's BUILD files (`EXECUTORCH_ROOT` wins over the tag).
Nothing is downloaded.
"""

load("//bazel/private:executorch_tree.bzl", "executorch_tree")
load("//bazel/private:python_repositories.bzl", "etsb_flatbuffers", "etsb_python", "executorch_runtime")
load("//bazel/private:shim_repository.bzl", "etsb_shim")
load(":repositories.bzl", "etsb_toolchains")

_TREE = tag_class(
    doc = "An ExecuTorch source tree to make the repository `@executorch`.",
    attrs = {"path": attr.string(doc = "the tree: absolute, or relative to the root of the workspace Bazel runs in")},
)

def _etsb_impl(module_ctx):
    paths = [tree.path for module in module_ctx.modules for tree in module.tags.executorch_tree]
    if len(paths) > 1:
        fail("etsb.executorch_tree is given %d times: give one tree" % len(paths))
    executorch_runtime(name = "executorch_runtime")
    etsb_python(name = "etsb_python")
    etsb_flatbuffers(name = "etsb_flatbuffers")
    etsb_toolchains(name = "etsb_toolchains")
    etsb_shim(name = "etsb_shim")
    executorch_tree(name = "executorch", path = paths[0] if paths else "")

etsb = module_extension(
    implementation = _etsb_impl,
    tag_classes = {"executorch_tree": _TREE},
    doc = "The ExecuTorch runtime of the executorch wheel, the Python of etsb's actions, and an ExecuTorch source tree.",
)
