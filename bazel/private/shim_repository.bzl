"""`@etsb_shim` under Bazel: the one file of etsb's rules that differs by build system.

rules/private/shim.bzl loads `@etsb_shim//:shim.bzl`, which each build
system maps to a file loading its own shim only (etsb's driver and Buck2 to
a folder of rules/private/). Under Bazel it is this repository, whose
`shim.bzl` loads rules/private/shim_bazel.bzl by its label from etsb's
repository as Bazel resolves it here: `@//rules:...` when etsb is the main
repository of Bazel 4 (where `@etsb//` would be a second copy of it),
`@etsb//rules:...` from a project of its own, and the canonical name under
Bazel 7's modules. It also says which source trees the build has
(`@executorch`, `@cmsis_nn`: where their repository rules find them,
bazel/private/trees.bzl), which Bazel's BUILD files cannot ask.
"""

load("//rules:private/repository_label.bzl", "repository_label")
load(":trees.bzl", "CMSIS_NN_VARIABLE", "EXECUTORCH_VARIABLE", "cmsis_nn_tree_path", "executorch_tree_path")

_SHIM = '''\
"""etsb's build system under Bazel (written by the repository rule etsb_shim, bazel/private/shim_repository.bzl)."""

load("{shim}", "bazel_shim")

BUILD_SYSTEM = "bazel"

# The source trees this build has (`@executorch`, `@cmsis_nn`): the catalogue takes
# ExecuTorch's Cortex-M kernels when both are there.
_REPOSITORIES = {repositories}

def _has_repository(name):
    return name in _REPOSITORIES

SHIM = bazel_shim(has_repository = _has_repository)
'''

def _etsb_shim_impl(ctx):
    repositories = []
    if executorch_tree_path(ctx, ctx.attr.executorch_root):
        repositories.append("executorch")
    if cmsis_nn_tree_path(ctx, ctx.attr.cmsis_nn_root, ctx.attr.executorch_root)[0]:
        repositories.append("cmsis_nn")
    ctx.file("shim.bzl", _SHIM.format(shim = repository_label("//rules:private/shim_bazel.bzl"), repositories = repr(repositories)))
    ctx.file("BUILD.bazel", "# etsb's shim for Bazel (shim.bzl): no targets.\n")
    ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % ctx.name)

etsb_shim = repository_rule(
    implementation = _etsb_shim_impl,
    doc = "The file etsb's rules load to reach Bazel's shim, and no other build system's (see rules/private/shim.bzl); it says which source trees the build has.",
    attrs = {
        "executorch_root": attr.string(doc = "the ExecuTorch tree as `@executorch` is given it"),
        "cmsis_nn_root": attr.string(doc = "the CMSIS-NN tree as `@cmsis_nn` is given it"),
    },
    environ = [CMSIS_NN_VARIABLE, EXECUTORCH_VARIABLE],
    local = True,
)
