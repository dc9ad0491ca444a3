"""`@cmsis_nn`: a CMSIS-NN source tree as a repository, with etsb's BUILD file
(rules/cmsis_nn/BUILD.overlay); see //bazel:repositories.bzl."""

load(":trees.bzl", "CMSIS_NN_VARIABLE", "EXECUTORCH_VARIABLE", "cmsis_nn_tree_path")

def _cmsis_nn_tree_impl(ctx):
    root, why = cmsis_nn_tree_path(ctx, ctx.attr.path, ctx.attr.executorch_root)
    if not root:
        # Reached only when a target needs it (ExecuTorch's Cortex-M kernels named by hand):
        # the catalogue leaves them out when this tree is missing.
        fail("@cmsis_nn: %s" % why)
    tree = ctx.path(root)
    for entry in tree.readdir():
        if entry.basename not in ("BUILD", "BUILD.bazel", "WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel"):
            ctx.symlink(entry, entry.basename)
    ctx.symlink(ctx.path(Label("//rules:BUILD")).dirname.get_child("cmsis_nn").get_child("BUILD.overlay"), "BUILD.bazel")
    ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % ctx.name)

cmsis_nn_tree = repository_rule(
    implementation = _cmsis_nn_tree_impl,
    doc = "A CMSIS-NN source tree as a repository, with etsb's BUILD file (rules/cmsis_nn/BUILD.overlay).",
    attrs = {
        "path": attr.string(doc = "the tree: absolute, or relative to the root of the workspace Bazel runs in; empty: `cmsis-nn` beside the ExecuTorch tree"),
        "executorch_root": attr.string(doc = "the ExecuTorch tree as etsb_repositories names it (beside which CMSIS-NN is looked for)"),
    },
    environ = [CMSIS_NN_VARIABLE, EXECUTORCH_VARIABLE],
    local = True,
)
