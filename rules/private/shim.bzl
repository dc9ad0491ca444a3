"""The primitive rules behind etsb's macros, for every build system that loads them.

etsb's macros are written once against five primitives: a genrule, a C++
library, a C++ binary, a filegroup and an exported file. This file maps each
onto the build system evaluating it:

* etsb's own driver (`etsb build`), whose `native` offers `cxx_library`;
* Bazel, whose `native` offers `cc_library` (we call `cc_library`/`cc_binary`);
* Buck2, whose `native` offers `cxx_library` and `read_config`.

Genrule commands use Bazel's notation (`$(location ...)`, `$(RULEDIR)`, `$@`).
In etsb's driver and Buck2 two make variables set by the build system name
the Python that runs etsb's tools (`$(ETSB_PYTHON)`) and the ExecuTorch
runtime wheel (`$(EXECUTORCH_RUNTIME)`). Bazel needs neither: its actions run
the interpreter of `@etsb_python` and read the runtime of
`@executorch_runtime`, both declared inputs, so that no path of the machine
is in a command line (actions cache across checkouts and run remotely).
"""

load(":private/bazel_sources.bzl", "etsb_selected_sources")
load(":private/build_system.bzl", _BUILD_SYSTEM = "BUILD_SYSTEM")
load(":private/names.bzl", "sibling_label")

BUILD_SYSTEM = _BUILD_SYSTEM

def etsb_label(text):
    """A label of etsb's repository as every repository names it.

    `Label` resolves `text` relative to this file's repository (as Bazel does,
    and etsb's driver, where it gives `@etsb//...` inside etsb's checkout too),
    so the rules reach their own targets when they are loaded from another
    repository or module (`@etsb//rules:executorch.bzl`) or called from an
    ExecuTorch tree's overlay. Buck2 (untried) takes the text as it is.

    Args:
      text: `//pkg:name` in etsb's repository, or `@NAME//pkg:name` of a
        repository etsb's own set-up declares (the runtime's).

    Returns:
      The label's text, absolute.
    """
    if BUILD_SYSTEM == "buck2":
        return text
    absolute = str(Label(text))

    # Bazel 4 writes the main repository's labels without it: `@//` names it from anywhere.
    return absolute if absolute.startswith("@") else "@" + absolute

# The targets each C++ library gives under Bazel for another package to compile its
# sources as objects of its own (`objects_of`; etsb_object_sources makes them).
OBJECT_INTERFACE = "_interface"
OBJECT_COPTS = "_copts"

# The label of etsb's command-line tool and of the Python sources it runs.
ETSB_TOOL = etsb_label("//tools/selective_build:etsb")
ETSB_TOOL_SOURCES = etsb_label("//tools/selective_build:sources")

# The command prefix that runs the etsb tool inside a genrule, and the `tools`
# of such a genrule: the tool, its sources and, under Bazel, the interpreter and
# the packages it imports (`-S`: no site directories; `-B`: no bytecode
# written beside declared sources).
_PYTHON = etsb_label("@etsb_python//:python3") if BUILD_SYSTEM == "bazel" else None
ETSB_COMMAND = (
    "PYTHONPATH=$$(dirname $(execpath {python}))/site-packages $(execpath {python}) -S -B $(execpath {tool})".format(python = _PYTHON, tool = ETSB_TOOL) if BUILD_SYSTEM == "bazel" else "$(ETSB_PYTHON) $(location %s)" % ETSB_TOOL
)
ETSB_TOOLS = [ETSB_TOOL, ETSB_TOOL_SOURCES] + ([_PYTHON, etsb_label("@etsb_python//:packages")] if BUILD_SYSTEM == "bazel" else [])

# The ExecuTorch runtime library (libexecutorch.so and its headers).
RUNTIME = etsb_label("@executorch_runtime//:executorch" if BUILD_SYSTEM == "bazel" else "//runtime:executorch")

# The runtime's shared library as a file, for a copy of a binary to take along
# (binaries find it beside themselves first: their run path starts at $ORIGIN).
RUNTIME_SHARED_LIBRARY = etsb_label("//runtime:libexecutorch.so")

# The directory holding each external repository's tree as `<NAME>/`, relative
# to where compilers run: an include root where `executorch/...` is an
# ExecuTorch tree (`@executorch//...`). etsb's driver links trees there.
EXTERNAL_INCLUDE_ROOT = "external" if BUILD_SYSTEM == "bazel" else "etsb-out/external"

# Whether a linked binary has its link map beside it (`<binary>.map`): etsb's
# driver writes one, Bazel and Buck2 do not.
LINK_MAPS = BUILD_SYSTEM == "etsb"

# The model runner library, the `main` of every model binary (it calls
# etsb::register_model_kernels(), which the binary's generated library defines).
RUNNER = etsb_label("//tools/runner:runner")

# The same runner for binaries whose kernels register at start-up (static
# initialisers): the `main` the prelude gives a cxx_binary without sources.
RUNNER_STATIC = etsb_label("//tools/runner:runner_static")

# Flags every C++ target gets: the runtime's headers expect C++17.
CXX_FLAGS = ["-std=c++17"]

# Tags that tell etsb's driver about a target (tools/selective_build/driver/layout.py
# spells them for the driver; a test keeps the two the same).
TAG_MANUAL = "manual"  # not matched by `...` and `:all` patterns
TAG_REGISTERS = "etsb_registers="  # + the et_operator_library a registration library registers
TAG_ALL_KERNELS = "etsb_all_kernels="  # + the all-kernels companion of a binary, for `etsb size`
TAG_BINARY = "etsb_binary"  # a genrule whose output is a binary
TAG_COPIED_TO = "etsb_copied_to="  # + a folder (of the package) a copy of this binary runs from

def command_word(text):
    """`text` as one word of a genrule command, whatever it holds.

    In single quotes for the shell (a quote written '\\''), and with `$`
    doubled so that the build system's make-variable expansion leaves it alone.

    Args:
      text: the word.

    Returns:
      The quoted word.
    """
    return "'" + text.replace("'", "'\\''").replace("$", "$$") + "'"

def _visibility(visibility):
    if visibility != None:
        return visibility
    return ["PUBLIC"] if BUILD_SYSTEM == "buck2" else ["//visibility:public"]

def etsb_genrule(name, srcs, outs, cmd, tools = [], tags = [], visibility = None, testonly = False):
    """A command that turns `srcs` into `outs`; `tools` are the programs it runs.

    Args:
      name: the target name.
      srcs: input files or targets; `$(location X)` in `cmd` names each.
      outs: output paths, relative to the package's output directory.
      cmd: the shell command (Bazel notation; see this file's docstring).
      tools: programs and their data that `cmd` runs.
      tags: free-form tags (`manual` keeps a target out of `...` patterns).
      visibility: who may depend on it (public when None).
      testonly: only test targets may depend on it.
    """
    if BUILD_SYSTEM == "buck2":
        native.genrule(
            name = name,
            srcs = srcs + tools,
            outs = {out: [out] for out in outs},
            cmd = cmd.replace("$(RULEDIR)", "$OUT"),
            labels = tags,
            visibility = _visibility(visibility),
        )
    elif BUILD_SYSTEM == "bazel":
        native.genrule(
            name = name,
            srcs = srcs,
            outs = outs,
            cmd = cmd,
            tools = tools,
            tags = tags,
            visibility = _visibility(visibility),
            testonly = testonly,
        )
    else:
        native.genrule(
            name = name,
            srcs = srcs,
            outs = outs,
            cmd = cmd,
            tools = tools,
            tags = tags,
            visibility = _visibility(visibility),
            testonly = testonly,
        )

def etsb_cxx_library(
        name,
        srcs = [],
        hdrs = [],
        deps = [],
        copts = [],
        defines = [],
        includes = [],
        linkopts = [],
        link_whole = False,
        objects_of = [],
        object_list = None,
        linker_scripts = [],
        linker_inputs = [],
        tags = [],
        visibility = None,
        testonly = False):
    """A static C++ library.

    Args:
      name: the target name.
      srcs: C++ sources (and private headers) compiled into it.
      hdrs: headers its dependents may include.
      deps: libraries it depends on (their headers, defines and link options propagate).
      copts: compiler flags for its own sources only.
      defines: preprocessor definitions for it and its dependents.
      includes: include directories, relative to the package, for it and its dependents
        (under Bazel in the source and the output tree alike; the driver's are the source
        tree's, where `-I$(RULEDIR)/...` in copts names its output tree instead).
      linkopts: linker flags for every binary that links it.
      link_whole: link every object even if nothing refers to it (static registration).
      objects_of: libraries whose objects it holds, those of the sources `object_list`
        names: only those compile (etsb's driver natively; Bazel through
        `etsb_selected_sources` and each library's `etsb_object_sources`); Buck2 takes
        the libraries as deps.
      object_list: a file listing the sources of `objects_of` to take, one a line.
      linker_scripts: GNU ld scripts every binary linking it takes as link inputs (etsb's driver,
        Buck2; Bazel 4 cannot: there the shared libraries of `linker_inputs` are linked instead).
      linker_inputs: files those scripts name (shared libraries the binary then needs at run time).
      tags: free-form tags.
      visibility: who may depend on it (public when None).
      testonly: only test targets may depend on it.
    """
    if BUILD_SYSTEM == "etsb":
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
            visibility = _visibility(visibility),
            testonly = testonly,
            **extra
        )
        return
    if BUILD_SYSTEM == "bazel" and objects_of:
        # The sources the list names, compiled here: one library each, with its own flags.
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
            deps = deps + [":" + part]

        # This library compiles nothing of its own: the flags were for the objects.
        copts = []
    else:
        deps = deps + objects_of
    if BUILD_SYSTEM == "bazel":
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
            visibility = _visibility(visibility),
            testonly = testonly,
        )
    elif BUILD_SYSTEM == "buck2":
        if linker_scripts:
            linkopts = linkopts + ["$(location %s)" % s for s in linker_scripts]
        native.cxx_library(
            name = name,
            srcs = srcs,
            exported_headers = hdrs,
            include_directories = includes,
            exported_deps = deps,
            compiler_flags = CXX_FLAGS + copts,
            exported_preprocessor_flags = ["-D" + d for d in defines],
            exported_linker_flags = linkopts,
            link_whole = link_whole,
            labels = tags,
            visibility = _visibility(visibility),
        )

def etsb_object_sources(name, srcs, hdrs = [], deps = [], copts = [], tags = [], visibility = None, testonly = False):
    """What another package needs to compile `name`'s sources as objects of its own (`objects_of`).

    Under Bazel: `<name>_interface`, a library of the headers and dependencies
    the sources compile against (the sources themselves as textual headers:
    another package includes them), and `<name>_copts`, a file of the
    library's compiler flags, one a line (make variables expanded). Elsewhere
    nothing: etsb's driver takes another library's sources and flags natively.

    Args:
      name: the library's target name.
      srcs: its sources.
      hdrs: its headers.
      deps: the libraries it depends on.
      copts: its own compiler flags.
      tags: free-form tags.
      visibility: who may use them (public when None).
      testonly: only test targets may use them.
    """
    if BUILD_SYSTEM != "bazel":
        return

    # buildifier: disable=native-cc-library (Bazel 4 has no rules_cc offline)
    native.cc_library(
        name = name + OBJECT_INTERFACE,
        hdrs = hdrs,
        textual_hdrs = srcs,
        deps = deps,
        tags = tags,
        visibility = _visibility(visibility),
        testonly = testonly,
    )

    # One flag a line, as written: GCC splits a response file into words as a shell
    # does, which is how Bazel splits copts. Quoted here for the genrule's shell only.
    words = ["'" + flag.replace("'", "'\\''") + "'" for flag in copts]
    etsb_genrule(
        name = name + OBJECT_COPTS,
        # The library's files: a flag may name one with $(location).
        srcs = srcs + hdrs,
        outs = [name + OBJECT_COPTS + ".inc"],
        # Make variables in the flags ($(TORCH_INCLUDE)) expand here, as in copts. No flags: a
        # newline (no argument), not an empty file, which Bazel 7 then expects a remote
        # executor to hold without uploading it (Bazel's own worker then misses it).
        cmd = "printf '%%s\\n' %s > $@" % " ".join(words) if words else "echo > $@",
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )

def etsb_cxx_binary(name, srcs = [], deps = [], copts = [], defines = [], linkopts = [], tags = [], visibility = None, testonly = False):
    """A C++ executable.

    Args:
      name: the target name; the binary is named after it.
      srcs: C++ sources compiled into it.
      deps: libraries it links.
      copts: compiler flags for its own sources.
      defines: preprocessor definitions for its own sources.
      linkopts: extra linker flags.
      tags: free-form tags.
      visibility: who may depend on it (public when None).
      testonly: only test targets may depend on it.
    """
    if BUILD_SYSTEM == "bazel":
        # buildifier: disable=native-cc-binary (Bazel 4 has no rules_cc offline)
        native.cc_binary(
            name = name,
            srcs = srcs,
            deps = deps,
            copts = CXX_FLAGS + copts,
            defines = defines,
            linkopts = linkopts,
            tags = tags,
            visibility = _visibility(visibility),
            testonly = testonly,
        )
    elif BUILD_SYSTEM == "buck2":
        native.cxx_binary(
            name = name,
            srcs = srcs,
            deps = deps,
            compiler_flags = CXX_FLAGS + copts,
            preprocessor_flags = ["-D" + d for d in defines],
            linker_flags = linkopts,
            labels = tags,
            visibility = _visibility(visibility),
        )
    else:
        native.cxx_binary(
            name = name,
            srcs = srcs,
            deps = deps,
            copts = CXX_FLAGS + copts,
            defines = defines,
            linkopts = linkopts,
            tags = tags,
            visibility = _visibility(visibility),
            testonly = testonly,
        )

def etsb_filegroup(name, srcs, tags = [], visibility = None, testonly = False):
    """A named set of files.

    Args:
      name: the target name.
      srcs: the files (or targets whose outputs to include).
      tags: free-form tags.
      visibility: who may depend on it (public when None).
      testonly: only test targets may depend on it.
    """
    if BUILD_SYSTEM == "buck2":
        native.filegroup(name = name, srcs = srcs, labels = tags, visibility = _visibility(visibility))
    else:
        native.filegroup(name = name, srcs = srcs, tags = tags, visibility = _visibility(visibility), testonly = testonly)

def etsb_export_file(name):
    """Makes the package's file `name` referable from other packages.

    Args:
      name: the file, relative to the package.
    """
    if BUILD_SYSTEM == "bazel":
        native.exports_files([name])
    elif BUILD_SYSTEM == "buck2":
        native.export_file(name = name, visibility = ["PUBLIC"])
    else:
        native.export_file(name = name, src = name)
