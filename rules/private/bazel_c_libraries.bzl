"""Bazel only: C libraries that a kernel library depends on, compiled only for the binaries selecting its kernels.

A kernel library's objects are compiled in each binary's package, only those
its selection needs (`etsb_selected_sources`). A C library the kernel
library depends on (CMSIS-NN under ExecuTorch's Cortex-M kernels) would be
compiled whole in every configuration a binary links the kernel library in,
a float binary's too: instead, the kernel library compiles against its
headers alone, and the binary's package compiles all of its sources when the
selection lists one of the kernel library's sources, and none otherwise.
etsb's driver decides the same from the selection (docs/cortex_m.md).
"""

load(":private/bazel_sources.bzl", "etsb_selected_sources")
load(":private/names.bzl", "sibling_label")
load(":private/shim_common.bzl", "bazel_filegroup", "bazel_genrule")

# The C libraries so compiled, as a kernel library's deps name them.
SELECTED_C_LIBRARIES = ["@cmsis_nn//:cmsis-nn"]

# The siblings of a C library, and of a kernel library naming its C library (or none):
# its sources, its headers (a library to compile against, linking nothing) and its flags
# (a file, as OBJECT_COPTS).
_C_SRCS = "_c_srcs"
_C_HEADERS = "_c_headers"
_C_COPTS = "_c_copts"

def flags_file(name, srcs, copts, tags, visibility, testonly):
    """The genrule writing `<name>.inc`: `copts`, for a compile to read as `@file`.

    Args:
      name: the target name.
      srcs: files a flag may name with $(location).
      copts: the flags.
      tags: the target's tags.
      visibility: its visibility.
      testonly: whether it is testonly.
    """

    # One flag a line, as written: GCC splits a response file into words as a shell
    # does, which is how Bazel splits copts. Quoted here for the genrule's shell only.
    words = ["'" + flag.replace("'", "'\\''") + "'" for flag in copts]
    bazel_genrule(
        name = name,
        srcs = srcs,
        outs = [name + ".inc"],
        # Make variables in the flags ($(TORCH_INCLUDE)) expand here, as in copts. No flags: a
        # newline (no argument), not an empty file, which Bazel 7 then expects a remote
        # executor to hold without uploading it (Bazel's own worker then misses it).
        cmd = "printf '%%s\\n' %s > $@" % " ".join(words) if words else "echo > $@",
        tools = [],
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )

def c_library_parts(name, srcs, hdrs, deps, copts, includes, tags, visibility, testonly):
    """What a binary's package compiles C library `name` from.

    `<name>_c_srcs`, its sources; `<name>_c_headers`, its headers and include
    folders (the sources too, which the binary's wrappers include); `<name>_c_copts`,
    its own flags. Arguments: those of the library.
    """
    bazel_filegroup(name = name + _C_SRCS, srcs = srcs, tags = tags, visibility = visibility, testonly = testonly)

    # buildifier: disable=native-cc-library (Bazel 4 has no rules_cc offline)
    native.cc_library(
        name = name + _C_HEADERS,
        hdrs = hdrs,
        textual_hdrs = srcs,
        includes = includes,
        deps = deps,
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )
    flags_file(name + _C_COPTS, [], copts, tags, visibility, testonly)

def kernel_library_c_library(name, deps, tags, visibility, testonly):
    """Kernel library `name`'s C library (of `deps`) named by its siblings; `deps` with its headers in its place.

    Args:
      name: the kernel library's name.
      deps: its deps.
      tags: its tags.
      visibility: its visibility.
      testonly: whether it is testonly.

    Returns:
      `deps`, the C library's headers in place of the C library.
    """
    selected = [dep for dep in deps if dep in SELECTED_C_LIBRARIES]
    if len(selected) > 1:
        fail("%s: depends on %s: one C library a kernel library at most" % (name, ", ".join(selected)))
    bazel_filegroup(name = name + _C_SRCS, srcs = [dep + _C_SRCS for dep in selected], tags = tags, visibility = visibility, testonly = testonly)
    if selected:
        bazel_filegroup(name = name + _C_COPTS, srcs = [selected[0] + _C_COPTS], tags = tags, visibility = visibility, testonly = testonly)
    else:
        flags_file(name + _C_COPTS, [], [], tags, visibility, testonly)

    # buildifier: disable=native-cc-library (Bazel 4 has no rules_cc offline)
    native.cc_library(
        name = name + _C_HEADERS,
        deps = [dep + _C_HEADERS for dep in selected],
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )
    return [dep + _C_HEADERS if dep in selected else dep for dep in deps]

def c_library_objects(name, library, object_list, copts, config_copts, tags, testonly):
    """`name`: the C library of kernel library `library`, compiled whole when `object_list` names one of its sources.

    Args:
      name: the target name.
      library: the kernel library's label.
      object_list: the selection's list of sources.
      copts: the compile flags before the C library's own (an `@file`).
      config_copts: the configuration's, after them.
      tags: the target's tags.
      testonly: whether it is testonly.

    Returns:
      Its label.
    """
    etsb_selected_sources(
        name = name + "_sources",
        srcs = [sibling_label(library, _C_SRCS)],
        selection = object_list,
        whole_when_any_of = [sibling_label(library, "_srcs")],
        tags = tags,
        testonly = testonly,
    )
    flags = sibling_label(library, _C_COPTS)

    # buildifier: disable=native-cc-library (Bazel 4 has no rules_cc offline)
    native.cc_library(
        name = name,
        srcs = [":" + name + "_sources", flags],
        copts = copts + ["@$(location %s)" % flags] + config_copts,
        deps = [sibling_label(library, _C_HEADERS)],
        tags = tags,
        testonly = testonly,
    )
    return ":" + name
