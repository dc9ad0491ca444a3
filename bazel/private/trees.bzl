"""Where the source trees of `@executorch` and `@cmsis_nn` are, as their
repository rules and `@etsb_shim` (which tells the catalogue whether both are
there) all find them; see //bazel:repositories.bzl."""

# The environment variables naming the trees (`--repo_env=NAME=DIR`), which win over the arguments.
EXECUTORCH_VARIABLE = "EXECUTORCH_ROOT"
CMSIS_NN_VARIABLE = "CMSIS_NN_ROOT"

# The folder beside an ExecuTorch tree where CMSIS-NN is looked for (as etsb's driver and
# CMake rules look: selective_build.driver.state.cmsis_nn_tree), and a file every CMSIS-NN tree has.
_CMSIS_NN_BESIDE_TREE = "cmsis-nn"
_CMSIS_NN_MARKER = "Include/arm_nnfunctions.h"

def _main_workspace_root(ctx, path, fail_with):
    """The root of the workspace Bazel runs in (the user's, not etsb's).

    Bazel 4's repository_ctx has no workspace_root, and a label of the main
    repository's WORKSPACE file fails where it is WORKSPACE.bazel (or, under
    bzlmod, absent). Bazel writes that root into its output base's
    DO_NOT_BUILD_HERE (Bazel 4 and 7 alike), the folder above `external/`,
    where the repositories are.
    """
    marker = ctx.path(".").dirname.dirname.get_child("DO_NOT_BUILD_HERE")
    if not marker.exists:
        fail_with("'%s' is relative, and Bazel's output base has no DO_NOT_BUILD_HERE naming the workspace root it is relative to: give an absolute path" % path)
    return ctx.read(marker).strip()

def absolute_tree_path(ctx, path, fail_with = fail):
    """`path`, a source tree as given to etsb, made absolute.

    A relative one (etsb_repositories' `executorch_root`, etsb.executorch_tree's
    `path`) is relative to the root of the user's workspace.

    Args:
      ctx: the repository_ctx.
      path: the tree as given.
      fail_with: called with a message when a relative path cannot be resolved.

    Returns:
      The absolute path.
    """
    if path.startswith("/"):
        return path
    return _main_workspace_root(ctx, path, fail_with).rstrip("/") + "/" + path

def executorch_tree_path(ctx, given):
    """The ExecuTorch tree of this build: `$EXECUTORCH_ROOT`, else `given`; "" when neither names one.

    Args:
      ctx: the repository_ctx (its rule must list EXECUTORCH_ROOT in `environ`).
      given: the tree etsb_repositories or etsb.executorch_tree names ("" for none).

    Returns:
      The tree's absolute path, when it holds kernels/portable/functions.yaml; else "".
    """
    root = ctx.os.environ.get(EXECUTORCH_VARIABLE, "") or given
    if not root:
        return ""
    root = absolute_tree_path(ctx, root)
    return root if ctx.path(root + "/kernels/portable/functions.yaml").exists else ""

def cmsis_nn_tree_path(ctx, given, executorch_root):
    """The CMSIS-NN tree of this build: `$CMSIS_NN_ROOT`, else `given`, else `cmsis-nn` beside the ExecuTorch tree.

    Args:
      ctx: the repository_ctx (its rule must list CMSIS_NN_ROOT and EXECUTORCH_ROOT in `environ`).
      given: the tree etsb_repositories or etsb.cmsis_nn_tree names ("" for none).
      executorch_root: the ExecuTorch tree as given ("" for none).

    Returns:
      (path, why): the tree's absolute path and "", or "" and where it was looked for.
    """
    named = ctx.os.environ.get(CMSIS_NN_VARIABLE, "")
    source = "$" + CMSIS_NN_VARIABLE
    if not named and given:
        named, source = given, "cmsis_nn_root"
    if named:
        root = absolute_tree_path(ctx, named)
        if ctx.path(root + "/" + _CMSIS_NN_MARKER).exists:
            return root, ""
        return "", "the CMSIS-NN source tree given (%s, from %s) has no %s" % (root, source, _CMSIS_NN_MARKER)
    tree = executorch_tree_path(ctx, executorch_root)
    if not tree:
        return "", ("no CMSIS-NN source tree: give etsb_repositories(cmsis_nn_root = DIR) in WORKSPACE (etsb.cmsis_nn_tree(path = DIR) " +
                    "in MODULE.bazel) or --repo_env=%s=DIR, or keep it as '%s' beside the ExecuTorch tree" % (CMSIS_NN_VARIABLE, _CMSIS_NN_BESIDE_TREE))
    beside = tree.rstrip("/").rpartition("/")[0] + "/" + _CMSIS_NN_BESIDE_TREE
    if ctx.path(beside + "/" + _CMSIS_NN_MARKER).exists:
        return beside, ""
    return "", ("no CMSIS-NN source tree: %s is not set, no cmsis_nn_root is given, and %s, beside the ExecuTorch tree, has no %s (give " +
                "--repo_env=%s=DIR or etsb_repositories(cmsis_nn_root = DIR))") % (CMSIS_NN_VARIABLE, beside, _CMSIS_NN_MARKER, CMSIS_NN_VARIABLE)
