"""etsb's primitives under etsb's own driver (`etsb build`), which alone loads this file (etsb/shim.bzl).

The driver's primitives take Bazel's attribute names, and more: a library's
`objects_of` (another library's sources compiled with its own flags), GNU ld
scripts for the binaries that link it, and a link map beside each binary.
Genrules name the Python that runs etsb's tools and the runtime wheel through
two make variables the driver sets, `$(ETSB_PYTHON)` and `$(EXECUTORCH_RUNTIME)`.
"""

load(":private/repository_label.bzl", "repository_label")
load(
    ":private/shim_common.bzl",
    "CXX_FLAGS",
    "ETSB_TOOL_SOURCES_TARGET",
    "ETSB_TOOL_TARGET",
    "at_repository",
    "bazel_filegroup",
    "bazel_genrule",
    "define_config_setting",
    "make_variable_command",
    "no_object_sources",
    "same_visibility",
)

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
        linker_scripts,
        linker_inputs,
        tags,
        visibility,
        testonly):
    extra = dict(objects_of = objects_of, object_list = object_list) if objects_of else {}
    if linker_scripts or linker_inputs:
        extra.update(linker_scripts = linker_scripts, linker_inputs = linker_inputs)
    if includes:
        extra["includes"] = includes
    native.cxx_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        copts = CXX_FLAGS + copts,
        defines = defines,
        linkopts = linkopts,
        link_whole = link_whole,
        tags = tags,
        visibility = visibility,
        testonly = testonly,
        **extra
    )

def _cxx_binary(name, srcs, deps, copts, defines, linkopts, tags, visibility, testonly):
    native.cxx_binary(
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
    native.export_file(name = name, src = name)

def etsb_shim():
    """The primitives and the constants of etsb's driver, as shim.bzl exports them.

    Returns:
      A struct with shim.bzl's fields (see there).
    """
    tool = repository_label(ETSB_TOOL_TARGET)
    return struct(
        label = repository_label,
        etsb_tool = tool,
        etsb_tool_sources = repository_label(ETSB_TOOL_SOURCES_TARGET),
        etsb_command = make_variable_command(tool),
        etsb_tools = [tool, repository_label(ETSB_TOOL_SOURCES_TARGET)],
        runtime = repository_label("//runtime:executorch"),
        runtime_threadpool = repository_label("//runtime:threadpool"),
        # The driver links each external repository's tree there.
        external_include_root = "etsb-out/external",
        link_maps = True,
        select_default = "//conditions:default",
        public = ["//visibility:public"],
        visibility = same_visibility,
        genrule = bazel_genrule,
        cxx_library = _cxx_library,
        object_sources = no_object_sources,
        cxx_binary = _cxx_binary,
        filegroup = bazel_filegroup,
        export_file = _export_file,
        config_setting = define_config_setting,
        # The driver knows which external repositories this build has.
        has_repository = native.etsb_has_repository,
        repository_label = at_repository,
        # gen-bindings' messages spell labels as BUILD files do here (its default).
        front_end = None,
    )
