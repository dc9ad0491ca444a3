"""The primitive rules behind etsb's macros, for every build system that loads them.

etsb's macros are written once against five primitives: a genrule, a C++
library, a C++ binary, a filegroup and an exported file. This file is their
public face. Each build system maps them onto its own rules in a shim that
it alone loads, chosen once by its set-up: this file loads
`@etsb_shim//:shim.bzl`, a repository (a cell under Buck2) each build system
maps to its own file, which loads its shim:

* etsb's driver: `rules/private/etsb/shim.bzl` (`shim_etsb.bzl`);
* Bazel: the file the repository rule `etsb_shim` writes
  (bazel/private/shim_repository.bzl; `shim_bazel.bzl`);
* Buck2: `rules/private/buck2/shim.bzl` (`shim_buck2.bzl`), which names
  nothing Buck2 lacks (`Label`, `attr`, `depset`).

Genrule commands use Bazel's notation (`$(location ...)`, `$(RULEDIR)`, `$@`).
In etsb's driver and Buck2 two make variables set by the build system name
the Python that runs etsb's tools (`$(ETSB_PYTHON)`) and the ExecuTorch
runtime wheel (`$(EXECUTORCH_RUNTIME)`). Bazel needs neither: its actions run
the interpreter of `@etsb_python` and read the runtime of
`@executorch_runtime`, both declared inputs, so that no path of the machine
is in a command line (actions cache across checkouts and run remotely).
"""

# The build system's own file: its name ("etsb", "bazel" or "buck2") and its shim (a struct).
load("@etsb_shim//:shim.bzl", _BUILD_SYSTEM = "BUILD_SYSTEM", _SHIM = "SHIM")
load(":private/shim_common.bzl", _CXX_FLAGS = "CXX_FLAGS", _OBJECT_COPTS = "OBJECT_COPTS", _OBJECT_INTERFACE = "OBJECT_INTERFACE")

BUILD_SYSTEM = _BUILD_SYSTEM

# Whether this build system compiles ExecuTorch's runtime from the tree (`runtime = "static"`,
# the `_tree` runners, the kernel libraries' twins against it).
BUILDS_THE_TREES_RUNTIME = BUILD_SYSTEM in ("etsb", "bazel")

def etsb_label(text):
    """A label of etsb's repository as every repository names it.

    `Label` resolves `text` relative to etsb's repository (Bazel; the driver gives
    `@etsb//...` inside etsb's checkout too), so the rules reach their own targets
    when loaded from another repository or module or called from an ExecuTorch
    tree's overlay. Buck2 prefixes the cell `etsb` (`etsb//pkg:name`).

    Args:
      text: `//pkg:name` in etsb's repository, or `@NAME//pkg:name` of a
        repository etsb's own set-up declares (the runtime's).

    Returns:
      The label's text, absolute.
    """
    return _SHIM.label(text)

# The targets each C++ library gives under Bazel for another package to compile its
# sources as objects of its own (`objects_of`; etsb_object_sources makes them).
OBJECT_INTERFACE = _OBJECT_INTERFACE
OBJECT_COPTS = _OBJECT_COPTS

# gen-bindings' `--front-end` (how its messages spell labels): "buck2", or None (the driver's and Bazel's).
FRONT_END = _SHIM.front_end

# The label of etsb's command-line tool and of the Python sources it runs.
ETSB_TOOL = _SHIM.etsb_tool
ETSB_TOOL_SOURCES = _SHIM.etsb_tool_sources

# The command prefix that runs the etsb tool inside a genrule, and the `tools` of such a
# genrule: the tool, its sources and, under Bazel, the interpreter and its packages.
ETSB_COMMAND = _SHIM.etsb_command
ETSB_TOOLS = _SHIM.etsb_tools

# The ExecuTorch runtime library (libexecutorch.so and its headers).
RUNTIME = _SHIM.runtime

# ExecuTorch's thread pool from the same wheel (libexecutorch_threadpool.so: extension/threadpool
# over pthreadpool), which the development runner links so that `--threads N` runs etsb's
# kernels on N threads (see kernels/portable/cpu/util/parallel_util.h).
RUNTIME_THREADPOOL = _SHIM.runtime_threadpool

# The runtime's shared library as a file, for a copy of a binary to take along
# (binaries find it beside themselves first: their run path starts at $ORIGIN).
RUNTIME_SHARED_LIBRARY = etsb_label("//runtime:libexecutorch.so")

# The thread pool's shared library as a file, likewise (the development runner links it).
RUNTIME_THREADPOOL_LIBRARY = etsb_label("//runtime:libexecutorch_threadpool.so")

# The directory holding each external repository's tree as `<NAME>/`, relative to where compilers
# run: an include root where `executorch/...` is an ExecuTorch tree (the driver links trees there).
EXTERNAL_INCLUDE_ROOT = _SHIM.external_include_root

# Whether a linked binary has its link map beside it (`<binary>.map`): only the driver's do.
LINK_MAPS = _SHIM.link_maps

# The key of a `select()` branch taken when no other matches (Buck2's `DEFAULT`).
SELECT_DEFAULT = _SHIM.select_default

# The model runner library, the `main` of every model binary (it calls
# etsb::register_model_kernels(), which the binary's generated library defines).
RUNNER = etsb_label("//tools/runner:runner")

# The same runner for binaries whose kernels register at start-up (static
# initialisers): the `main` the prelude gives a cxx_binary without sources.
RUNNER_STATIC = etsb_label("//tools/runner:runner_static")

# The runtimes a binary can link (`runtime = ...`): the wheel's shared library
# (the default), or ExecuTorch's runtime compiled from the tree given to etsb's
# driver or Bazel (`@executorch//:runtime`, rules/executorch_tree/BUILD.overlay),
# linked statically. Buck2 builds only "shared" so far.
RUNTIME_SHARED = "shared"
RUNTIME_STATIC = "static"
RUNTIME_KINDS = [RUNTIME_SHARED, RUNTIME_STATIC]

# What et_model_binary takes besides: `"auto"` (its default), the static runtime where a binary is
# built to ship (the size configuration, every platform but the host) and the wheel's on the host's
# development configuration; `"wheel"`, another name of `"shared"`.
RUNTIME_AUTO = "auto"
RUNTIME_WHEEL = "wheel"
RUNTIME_FROM_TREE = "@executorch//:runtime"

# Its parts, for a binary that registers only the prim ops its program calls in
# a registry of its own size: the runtime without prim ops and registry, and
# their sources.
RUNTIME_FROM_TREE_CORE = "@executorch//:runtime_core"
RUNTIME_FROM_TREE_PROGRAM = "@executorch//:program"  # the program loader, with its flatbuffer verifier
RUNTIME_FROM_TREE_PROGRAM_UNVERIFIED = "@executorch//:program_unverified"  # and without: programs compiled in
RUNTIME_FROM_TREE_PRIM_OPS = "@executorch//:prim_ops_sources"
RUNTIME_FROM_TREE_REGISTRY = "@executorch//:registry_sources"

# ExecuTorch's hook sizing the kernel registry (runtime/kernel/operator_registry.cpp
# includes it when it is on the include path), as a registration library writes it
# (`etsb gen-bindings --max-kernel-num-output`) for binaries of the static runtime.
REGISTRY_SIZE_HEADER = "executorch/runtime/kernel/selected_max_kernel_num.h"

# The runner compiled against the tree's runtime, for `runtime = "static"`.
RUNNER_FROM_TREE = etsb_label("//tools/runner:runner_tree")

# The deploy runner (tools/runner/deploy.cpp), the `main` of a binary built to
# ship (`--config size`, or `embed_model = True`), by where the program comes
# from and which runtime it is built against.
def deploy_runner(embedded, runtime):
    """The deploy runner library for a program `embedded` or not, against `runtime`.

    Args:
      embedded: whether the program is embedded in the binary.
      runtime: `RUNTIME_SHARED` or `RUNTIME_STATIC`.

    Returns:
      The runner library's label.
    """
    name = "deploy_embedded" if embedded else "deploy"
    return etsb_label("//tools/runner:" + name + ("_tree" if runtime == RUNTIME_STATIC else ""))

# The configuration whose binaries link the deploy runner: `--config size`
# (the driver's `--define etsb_config=size`; rules/BUILD).
SIZE_CONFIG_SETTING = etsb_label("//rules:size_config")

# The suffix of a kernel library's twin compiled against the tree's runtime
# (et_kernel_library makes it in etsb's driver and under Bazel; `runtime = "static"` links it).
FROM_TREE_SUFFIX = "_tree_runtime"

def runtime_library(kind):
    """The runtime library a binary of runtime `kind` links.

    Args:
      kind: one of `RUNTIME_KINDS`.

    Returns:
      Its label.
    """
    return RUNTIME_FROM_TREE if kind == RUNTIME_STATIC else RUNTIME

def runtime_headers(kind):
    """The runtime library that libraries of runtime `kind` compile against.

    For the static runtime, the runtime without its prim ops and kernel
    registry: binaries link them, all prim ops and 2,000 registry slots
    (`runtime_library`), or only the prim ops their program calls and as many
    slots as they register (the size configuration of et_model_binary).

    Args:
      kind: one of `RUNTIME_KINDS`.

    Returns:
      Its label.
    """
    return RUNTIME_FROM_TREE_CORE if kind == RUNTIME_STATIC else RUNTIME

def check_runtime(where, kind):
    """Fails unless this build system can build runtime `kind`.

    Args:
      where: the rule and target, for the message.
      kind: one of `RUNTIME_KINDS`.
    """
    if kind == RUNTIME_STATIC and not BUILDS_THE_TREES_RUNTIME:
        fail("%s: runtime = \"static\" is built by etsb's driver and Bazel only so far, not under %s" % (where, BUILD_SYSTEM))

# Flags every C++ target gets: the runtime's headers expect C++17.
CXX_FLAGS = _CXX_FLAGS

# Tags that tell etsb's driver about a target (tools/selective_build/driver/layout.py
# spells them for the driver; a test keeps the two the same).
TAG_MANUAL = "manual"  # not matched by `...` and `:all` patterns
TAG_REGISTERS = "etsb_registers="  # + the et_operator_library a registration library registers
TAG_ALL_KERNELS = "etsb_all_kernels="  # + the all-kernels companion of a binary, for `etsb size`
TAG_BINARY = "etsb_binary"  # a genrule whose output is a binary
TAG_COPIED_TO = "etsb_copied_to="  # + a folder (of the package) a copy of this binary runs from
TAG_BUILT_FOR = "etsb_built_for="  # + the one platform (--platform) a prebuilt library runs on
TAG_PRECOMPILE = "etsb_precompile="  # + a header every source of a C++ library includes (<a/b.h>): precompiled once
TAG_NOT_PRECOMPILED = "etsb_not_precompiled="  # + a source of the library (package-relative) compiled without them
TAG_DEPLOY_RUNNER = "etsb_deploy_runner="  # + DEPLOY_FROM_FILE or DEPLOY_EMBEDDED: how a deploy runner gets its program
DEPLOY_FROM_FILE = "file"  # its arguments: MODEL.pte and raw input files (etsb run writes them)
DEPLOY_EMBEDDED = "embedded"  # the program and inputs compiled in: no arguments

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
        return _SHIM.visibility(visibility)
    return _SHIM.public

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
    _SHIM.genrule(
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
    _SHIM.cxx_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        copts = copts,
        defines = defines,
        includes = includes,
        linkopts = linkopts,
        link_whole = link_whole,
        objects_of = objects_of,
        object_list = object_list,
        linker_scripts = linker_scripts,
        linker_inputs = linker_inputs,
        tags = tags,
        visibility = _visibility(visibility),
        testonly = testonly,
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
    _SHIM.object_sources(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        copts = copts,
        tags = tags,
        visibility = _visibility(visibility),
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
    _SHIM.cxx_binary(
        name = name,
        srcs = srcs,
        deps = deps,
        copts = copts,
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
    _SHIM.filegroup(name = name, srcs = srcs, tags = tags, visibility = _visibility(visibility), testonly = testonly)

def etsb_config_setting(name, defines):
    """A `select()` key matching `--define NAME=VALUE` pairs (under Buck2, `-c etsb.NAME=VALUE`, no `etsb_`).

    Args:
      name: the target name.
      defines: NAME -> VALUE, all of which must hold.
    """
    _SHIM.config_setting(name = name, defines = defines)

def etsb_export_file(name):
    """Makes the package's file `name` referable from other packages.

    Args:
      name: the file, relative to the package.
    """
    _SHIM.export_file(name)
