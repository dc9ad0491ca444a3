"""`@etsb_shim` under Bazel: the one file of etsb's rules that differs by build system.

rules/private/shim.bzl loads `@etsb_shim//:shim.bzl`, which each build
system maps to a file loading its own shim only (etsb's driver and Buck2 to
a folder of rules/private/). Under Bazel it is this repository, whose
`shim.bzl` loads rules/private/shim_bazel.bzl by its label from etsb's
repository as Bazel resolves it here: `@//rules:...` when etsb is the main
repository of Bazel 4 (where `@etsb//` would be a second copy of it),
`@etsb//rules:...` from a project of its own, and the canonical name under
Bazel 7's modules.
"""

load("//rules:private/repository_label.bzl", "repository_label")

_SHIM = '''\
"""etsb's build system under Bazel (written by the repository rule etsb_shim, bazel/private/shim_repository.bzl)."""

load("{shim}", "bazel_shim")

BUILD_SYSTEM = "bazel"

SHIM = bazel_shim()
'''

def _etsb_shim_impl(ctx):
    ctx.file("shim.bzl", _SHIM.format(shim = repository_label("//rules:private/shim_bazel.bzl")))
    ctx.file("BUILD.bazel", "# etsb's shim for Bazel (shim.bzl): no targets.\n")
    ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % ctx.name)

etsb_shim = repository_rule(
    implementation = _etsb_shim_impl,
    doc = "The file etsb's rules load to reach Bazel's shim, and no other build system's (see rules/private/shim.bzl).",
)
