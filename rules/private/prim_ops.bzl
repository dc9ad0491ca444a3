"""Prim-op selection for `executorch_generated_lib` (ExecuTorch's `include_all_prim_ops = False`).

ExecuTorch's prim ops (`executorch_prim::*`, `aten::sym_size.int`...) are
registered by its prim-op registry, not by a kernel library. A library that
keeps only the prim ops its selection names (its operator lists' prim ops and
those its models call) writes ExecuTorch's `selected_prim_ops.h` (`etsb
gen-bindings --prim-ops-header-output`) and compiles ExecuTorch's prim ops
with it (`-DET_PRIM_OPS_SELECTIVE_BUILD`): `<name>_prim_ops`. That needs the
runtime compiled from the tree: the wheel's `libexecutorch.so` registers every
prim op itself when it loads. A binary linking such a library links
`@executorch//:runtime_without_prim_ops`, not `@executorch//:runtime`.
"""

load(
    ":private/shim.bzl",
    "BUILDS_THE_TREES_RUNTIME",
    "RUNTIME_FROM_TREE_CORE",
    "RUNTIME_FROM_TREE_PRIM_OPS",
    "RUNTIME_SHARED",
    "RUNTIME_STATIC",
    "etsb_cxx_library",
)

# The runtime without its prim ops (its registry of 2,000 slots and the program
# loader), which a binary linking such libraries links.
RUNTIME_FROM_TREE_WITHOUT_PRIM_OPS = "@executorch//:runtime_without_prim_ops"

# The header `etsb gen-bindings --prim-ops-header-output` writes, under `<name>/`.
PRIM_OPS_HEADER = "selected_prim_ops.h"

def library_runtime(where, a, runtime_given):
    """The runtime a generated library builds against, given its prim-op choice.

    Args:
      where: the rule and target, for the message.
      a: the call's checked attributes.
      runtime_given: whether the call gave `runtime` itself.

    Returns:
      `a.runtime`, or the static runtime for a prim-op selection that did not
      name one (where this build system builds it; Buck2 builds the wheel's
      runtime only, which keeps every prim op).
    """
    if a.include_all_prim_ops:
        return a.runtime
    if a.runtime == RUNTIME_SHARED and runtime_given:
        fail("%s: include_all_prim_ops = False registers only the selected prim ops, which the wheel's runtime (runtime = \"shared\") cannot: it registers every prim op itself when it loads. Give runtime = \"static\"" % where)
    return RUNTIME_STATIC if BUILDS_THE_TREES_RUNTIME else a.runtime

def prim_ops_library(name, helper):
    """Declares `<name>_prim_ops`: ExecuTorch's prim ops keeping those of `<name>/selected_prim_ops.h`.

    Args:
      name: the generated library's name.
      helper: the common attributes of its helper targets.

    Returns:
      The label of the library.
    """
    etsb_cxx_library(
        name = name + "_prim_ops",
        srcs = [RUNTIME_FROM_TREE_PRIM_OPS],
        hdrs = [":%s/%s" % (name, PRIM_OPS_HEADER)],
        # register_prim_ops.cpp includes "selected_prim_ops.h" from the include path.
        copts = ["-DET_PRIM_OPS_SELECTIVE_BUILD", "-I$(RULEDIR)/" + name],
        link_whole = True,
        deps = [RUNTIME_FROM_TREE_CORE],
        **helper
    )
    return ":" + name + "_prim_ops"
