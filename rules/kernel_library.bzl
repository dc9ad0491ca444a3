"""`et_kernel_library`: C++ kernels that generated libraries can link, or
recompile for a dtype-selective build."""

load(":private/attrs.bzl", "attrs", "check_call", "rule_info")
load(":private/shim.bzl", "BUILDS_THE_TREES_RUNTIME", "BUILD_SYSTEM", "FROM_TREE_SUFFIX", "RUNTIME", "RUNTIME_FROM_TREE_CORE", "TAG_MANUAL", "TAG_NOT_PRECOMPILED", "TAG_PRECOMPILE", "etsb_cxx_library", "etsb_filegroup", "etsb_object_sources")

ET_KERNEL_LIBRARY = rule_info(
    name = "et_kernel_library",
    doc = """A library of kernels, usable as `kernel_deps` of the other rules.

Creates `<name>` (the compiled static library: the linker keeps only the
kernels that registration refers to), `<name>_srcs` and `<name>_hdrs` (its
sources and headers: a generated library compiles only the sources its
selection needs, again with its `selected_op_variants.h` when dtype-selective),
in etsb's driver and Bazel `<name>_tree_runtime` (tagged `manual`: the same kernels
compiled against the ExecuTorch tree's runtime, which binaries with
`runtime = "static"` link), and under Bazel `<name>_interface` and `<name>_copts`, what that compile in
another package needs (docs/bazel.md).""",
    attrs = {
        "srcs": attrs.label_list("the kernel sources (`op_<name>.cpp`)"),
        "hdrs": attrs.label_list("headers the kernels share (utility layer)"),
        "deps": attrs.label_list("other libraries the kernels need (the runtime is always added)"),
        "copts": attrs.string_list("extra compiler flags for the kernels"),
        "precompiled_headers": attrs.string_list(
            "headers that the sources include before anything else, spelled as `#include` spells them " +
            "(`<executorch/runtime/kernel/kernel_includes.h>`): etsb's driver compiles them once per set of " +
            "flags into a precompiled header that the kernels' compiles read first (g++, 6 sources or more, " +
            "else one shared with the build's other compiles of the same headers and flags, 6 or more; " +
            "`ETSB_PCH=0` turns it off). The objects stay the same bytes only for sources that include them first",
        ),
        "not_precompiled": attrs.string_list(
            "sources (as `srcs` names them) that include something else before `precompiled_headers`: " +
            "compiled without the precompiled header, since ahead of them it could reorder their objects",
        ),
    },
    outputs = {
        "library": "`<name>`",
        "sources": "`<name>_srcs`",
        "headers": "`<name>_hdrs`",
        "compile interface (Bazel)": "`<name>_interface`, `<name>_copts`",
    },
)

def et_kernel_library(name, **kwargs):
    """A library of kernels (see `ET_KERNEL_LIBRARY`).

    Args:
      name: the target name.
      **kwargs: the attributes of `ET_KERNEL_LIBRARY`, and `tags`, `visibility`, `testonly`.
    """
    a, common = check_call(ET_KERNEL_LIBRARY, name, kwargs)
    if not a.srcs:
        fail("et_kernel_library '%s': srcs is empty" % name)

    # A hint for etsb's driver alone (driver/pch.py; Bazel and Buck2 do not precompile headers).
    precompiled = [TAG_PRECOMPILE + header for header in a.precompiled_headers] + [
        TAG_NOT_PRECOMPILED + source
        for source in a.not_precompiled
    ] if BUILD_SYSTEM == "etsb" else []
    library = dict(common, tags = common.get("tags", []) + precompiled)
    etsb_cxx_library(name = name, srcs = a.srcs + a.hdrs, hdrs = a.hdrs, deps = a.deps + [RUNTIME], copts = a.copts, **library)
    etsb_filegroup(name = name + "_srcs", srcs = a.srcs, **common)
    etsb_filegroup(name = name + "_hdrs", srcs = a.hdrs, **common)
    etsb_object_sources(name = name, srcs = a.srcs, hdrs = a.hdrs, deps = a.deps + [RUNTIME], copts = a.copts, **common)
    if BUILDS_THE_TREES_RUNTIME:
        # The twin against the tree's headers: one binary never mixes them with the wheel's.
        twin = dict(library, tags = library["tags"] + [TAG_MANUAL])
        etsb_cxx_library(
            name = name + FROM_TREE_SUFFIX,
            srcs = a.srcs + a.hdrs,
            hdrs = a.hdrs,
            deps = a.deps + [RUNTIME_FROM_TREE_CORE],
            copts = a.copts,
            **twin
        )
        etsb_object_sources(name = name + FROM_TREE_SUFFIX, srcs = a.srcs, hdrs = a.hdrs, deps = a.deps + [RUNTIME_FROM_TREE_CORE], copts = a.copts, **twin)
