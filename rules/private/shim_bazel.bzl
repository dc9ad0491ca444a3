"""etsb's primitives under Bazel (4.2.3 and 7), whose `native` offers `cc_library`.

A C++ library is a `cc_library` (`alwayslink` for `link_whole`), a binary a
`cc_binary`, an exported file `exports_files`. Genrules run the interpreter
of `@etsb_python` and read the runtime of `@executorch_runtime`, both
declared inputs, so that no path of the machine is in a command line
(actions cache across checkouts and run remotely).
"""

load(":private/bazel_sources.bzl", "etsb_selected_sources")
load(":private/names.bzl", "sibling_label")
load(
    ":private/shim_common.bzl",
    "CXX_FLAGS",
    "ETSB_TOOL_SOURCES_TARGET",
    "ETSB_TOOL_TARGET",
    "OBJECT_COPTS",
    "OBJECT_INTERFACE",
    "bazel_filegroup",
    "bazel_genrule",
    "repository_label",
)

def _objects_of(name, hdrs, includes, copts, objects_of, object_list, tags, testonly):
    """The libraries compiling the sources of `objects_of` that `object_list` names.

    One library each, with that library's own flags; returns their labels.
    """
    parts = []
    for index, library in enumerate(objects_of):
        part = "%s_objects_%d" % (name, index)
        etsb_selected_sources(
            name = part + "_sources",
            srcs = [sibling_label(library, "_srcs")],
            selection = object_list,
            tags = tags,
            testonly = testonly,
        )
        flags = sibling_label(library, OBJECT_COPTS)

        # buildifier: disable=native-cc-library (Bazel 4 has no rules_cc offline)
        native.cc_library(
            name = part,
            # The flags file (`.inc`, a textual input of every compile): GCC and Clang
            # read `@file` as arguments; $(location) in copts names srcs only.
            # The library's own headers too: its copts may name them ($(location) again).
            srcs = [":" + part + "_sources", flags] + hdrs,
            includes = includes,
            copts = CXX_FLAGS + ["@$(location %s)" % flags] + copts,
            deps = [sibling_label(library, OBJECT_INTERFACE)],
            tags = tags,
            testonly = testonly,
        )
        parts.append(":" + part)
    return parts

def _cxx_library(
        name,
        srcs,
        hdrs,
        deps,
        copts,
        defines,
        includes,
        linkopts,
        link_whole,
        objects_of,
        object_list,
        linker_scripts,  # buildifier: disable=unused-variable (Bazel 4 cannot take them)
        linker_inputs,
        tags,
        visibility,
        testonly):
    if objects_of:
        deps = deps + _objects_of(name, hdrs, includes, copts, objects_of, object_list, tags, testonly)

        # This library compiles nothing of its own: the flags were for the objects.
        copts = []
    if linker_inputs:
        # Bazel 4's cc_library takes no unreferenced link inputs (no additional_linker_inputs),
        # so the generated scripts are not used: the shared libraries are linked as given.
        # buildifier: disable=native-cc-library (Bazel 4 has no rules_cc offline)
        native.cc_library(
            name = name + "_linker_inputs",
            srcs = linker_inputs,
            tags = tags,
            testonly = testonly,
        )
        deps = deps + [":" + name + "_linker_inputs"]

    # buildifier: disable=native-cc-library (Bazel 4 has no rules_cc offline)
    native.cc_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        copts = CXX_FLAGS + copts,
        defines = defines,
        includes = includes,
        linkopts = linkopts,
        alwayslink = link_whole,
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )

def _object_sources(name, srcs, hdrs, deps, copts, tags, visibility, testonly):
    # buildifier: disable=native-cc-library (Bazel 4 has no rules_cc offline)
    native.cc_library(
        name = name + OBJECT_INTERFACE,
        hdrs = hdrs,
        textual_hdrs = srcs,
        deps = deps,
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )

    # One flag a line, as written: GCC splits a response file into words as a shell
    # does, which is how Bazel splits copts. Quoted here for the genrule's shell only.
    words = ["'" + flag.replace("'", "'\\''") + "'" for flag in copts]
    bazel_genrule(
        name = name + OBJECT_COPTS,
        # The library's files: a flag may name one with $(location).
        srcs = srcs + hdrs,
        outs = [name + OBJECT_COPTS + ".inc"],
        # Make variables in the flags ($(TORCH_INCLUDE)) expand here, as in copts. No flags: a
        # newline (no argument), not an empty file, which Bazel 7 then expects a remote
        # executor to hold without uploading it (Bazel's own worker then misses it).
        cmd = "printf '%%s\\n' %s > $@" % " ".join(words) if words else "echo > $@",
        tools = [],
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )

def _cxx_binary(name, srcs, deps, copts, defines, linkopts, tags, visibility, testonly):
    # buildifier: disable=native-cc-binary (Bazel 4 has no rules_cc offline)
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps,
        copts = CXX_FLAGS + copts,
        defines = defines,
        linkopts = linkopts,
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )

def _export_file(name):
    native.exports_files([name])

def bazel_shim():
    """The primitives and the constants under Bazel, as shim.bzl exports them.

    Returns:
      A struct with shim.bzl's fields (see there).
    """
    tool = repository_label(ETSB_TOOL_TARGET)
    sources = repository_label(ETSB_TOOL_SOURCES_TARGET)
    python = repository_label("@etsb_python//:python3")
    return struct(
        label = repository_label,
        etsb_tool = tool,
        etsb_tool_sources = sources,
        # `-S`: no site directories; `-B`: no bytecode written beside declared sources.
        etsb_command = "PYTHONPATH=$$(dirname $(execpath {python}))/site-packages $(execpath {python}) -S -B $(execpath {tool})".format(python = python, tool = tool),
        # The interpreter and the packages it imports are tools too.
        etsb_tools = [tool, sources, python, repository_label("@etsb_python//:packages")],
        runtime = repository_label("@executorch_runtime//:executorch"),
        external_include_root = "external",
        link_maps = False,
        public = ["//visibility:public"],
        genrule = bazel_genrule,
        cxx_library = _cxx_library,
        object_sources = _object_sources,
        cxx_binary = _cxx_binary,
        filegroup = bazel_filegroup,
        export_file = _export_file,
    )
