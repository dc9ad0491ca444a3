"""`et_kernel_library`: C++ kernels that generated libraries can link, or
recompile for a dtype-selective build."""

load(":private/checks.bzl", "check_identifier", "check_string_list")
load(":private/shim.bzl", "RUNTIME", "etsb_cxx_library", "etsb_filegroup")

def et_kernel_library(name, srcs, hdrs = [], deps = [], copts = [], tags = [], visibility = None):
    """A library of kernels, usable as `kernel_deps` of the other rules.

    Creates `<name>` (the compiled static library: the linker keeps only the
    kernels that registration refers to), `<name>_srcs` and `<name>_hdrs`
    (its sources and headers, which a dtype-selective `executorch_generated_lib`
    compiles again with its `selected_op_variants.h`).

    Args:
      name: the target name.
      srcs: the kernel sources (`op_<name>.cpp`).
      hdrs: headers the kernels share (utility layer).
      deps: other libraries the kernels need (the runtime is always added).
      copts: extra compiler flags for the kernels.
      tags: free-form tags.
      visibility: who may depend on it (public when None).
    """
    macro = "et_kernel_library"
    check_identifier(macro, name)
    check_string_list(macro, name, "srcs", srcs)
    check_string_list(macro, name, "hdrs", hdrs)
    check_string_list(macro, name, "deps", deps)
    check_string_list(macro, name, "copts", copts)
    if not srcs:
        fail("%s '%s': srcs is empty" % (macro, name))
    etsb_cxx_library(name = name, srcs = srcs + hdrs, hdrs = hdrs, deps = deps + [RUNTIME], copts = copts, tags = tags, visibility = visibility)
    etsb_filegroup(name = name + "_srcs", srcs = srcs, tags = tags, visibility = visibility)
    etsb_filegroup(name = name + "_hdrs", srcs = hdrs, tags = tags, visibility = visibility)
