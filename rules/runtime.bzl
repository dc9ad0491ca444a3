"""The external parts every etsb build uses: the ExecuTorch runtime and etsb's own tool."""

load(":backend_library.bzl", "et_backend_library")
load(":private/shim.bzl", "BUILD_SYSTEM", "TAG_BUILT_FOR", "etsb_export_file", "etsb_filegroup", "etsb_genrule", "etsb_label")

def et_runtime_library(name):
    """The ExecuTorch runtime (`libexecutorch.so` and its headers, from the wheel).

    In etsb's driver the wheel's place is the make variable `$(EXECUTORCH_RUNTIME)`,
    and `libexecutorch.so` is copied into the output tree: binaries find it
    relative to themselves (`$ORIGIN`), so that they do not depend on where the
    checkout or the wheel is, and still run after the output tree moves.
    Bazel reads the wheel through the `@executorch_runtime` repository
    (`//bazel:repositories.bzl`). Either way `libexecutorch.so` is a target of
    its own, for a copy of a binary to take along.

    Args:
      name: the target name (etsb's rules refer to `//runtime:executorch`).
    """
    if BUILD_SYSTEM == "bazel":
        native.alias(name = name, actual = etsb_label("@executorch_runtime//:executorch"), visibility = ["//visibility:public"])
        native.alias(
            name = "libexecutorch.so",
            actual = etsb_label("@executorch_runtime//:lib/libexecutorch.so"),
            visibility = ["//visibility:public"],
        )
        return
    visibility = ["PUBLIC"] if BUILD_SYSTEM == "buck2" else ["//visibility:public"]
    etsb_genrule(
        name = "libexecutorch_so",
        srcs = [],
        outs = ["libexecutorch.so"],
        cmd = "cp $(EXECUTORCH_RUNTIME)/lib/libexecutorch.so $@",
        visibility = visibility,
    )
    if BUILD_SYSTEM == "buck2":
        # Buck2's include directories are relative to the package: the wheel's, outside it, are flags.
        native.cxx_library(
            name = name,
            exported_preprocessor_flags = [
                "-I$(EXECUTORCH_RUNTIME)/include",
                "-I$(EXECUTORCH_RUNTIME)/include/executorch/runtime/core/portable_type/c10",
                "-DC10_USING_CUSTOM_GENERATED_MACROS",
            ],
            exported_linker_flags = ["-L$(EXECUTORCH_RUNTIME)/lib", "-lexecutorch", "-Wl,-rpath,$(EXECUTORCH_RUNTIME)/lib"],
            visibility = visibility,
        )
        return
    native.cxx_library(
        name = name,
        srcs = [":libexecutorch.so"],
        includes = [
            "$(EXECUTORCH_RUNTIME)/include",
            "$(EXECUTORCH_RUNTIME)/include/executorch/runtime/core/portable_type/c10",
        ],
        defines = ["C10_USING_CUSTOM_GENERATED_MACROS"],
        # The wheel's library is an x86-64 Linux one: a binary for another
        # `--platform` linking it fails at analysis, naming the binary.
        tags = [TAG_BUILT_FOR + "host"],
        visibility = visibility,
    )

def et_runtime_shared_library(name):
    """A shared library of the runtime wheel's `lib/` as a target named after the file.

    In etsb's driver it is copied beside `libexecutorch.so`, where binaries
    find it at run time; under Bazel it is the `@executorch_runtime`
    repository's file.

    Args:
      name: the library's file name, e.g. `libexecutorch_threadpool.so` (the target's
        name too, with `.` as `_` in etsb's driver).
    """
    if BUILD_SYSTEM == "bazel":
        native.alias(name = name, actual = etsb_label("@executorch_runtime//:lib/" + name), visibility = ["//visibility:public"])
        return
    visibility = ["PUBLIC"] if BUILD_SYSTEM == "buck2" else ["//visibility:public"]
    etsb_genrule(
        name = name.replace(".", "_"),
        srcs = [],
        outs = [name],
        cmd = "cp $(EXECUTORCH_RUNTIME)/lib/%s $@" % name,
        visibility = visibility,
    )

def et_runtime_threadpool(name):
    """ExecuTorch's thread pool from the runtime wheel (`libexecutorch_threadpool.so`), as a library to link.

    A binary linking it runs etsb's kernels on the pool (the runner's
    `--threads N`); one that does not runs them on the calling thread. The
    library file is the target `libexecutorch_threadpool.so`, declared here
    if no backend declared it first.

    Args:
      name: the target name (etsb's rules refer to `//runtime:threadpool`).
    """
    library = "libexecutorch_threadpool.so"
    if native.existing_rule(library) == None and native.existing_rule(library.replace(".", "_")) == None:
        et_runtime_shared_library(name = library)
    if BUILD_SYSTEM == "bazel":
        native.alias(name = name, actual = etsb_label("@executorch_runtime//:threadpool"), visibility = ["//visibility:public"])
        return
    if BUILD_SYSTEM == "buck2":
        native.cxx_library(
            name = name,
            exported_linker_flags = ["-L$(EXECUTORCH_RUNTIME)/lib", "-lexecutorch_threadpool"],
            exported_deps = [":executorch"],
            visibility = ["PUBLIC"],
        )
        return
    native.cxx_library(
        name = name,
        srcs = [":" + library],
        # Host-only through :executorch, which a binary for another platform is refused for.
        deps = [":executorch"],
        visibility = ["//visibility:public"],
    )

def et_runtime_backend(name, backends, library, needs = []):
    """A backend library of the runtime wheel, declared for etsb (`et_backend_library`).

    Args:
      name: the target name (`//runtime:xnnpack_backend`).
      backends: the backend ids it registers.
      library: its file name in the wheel's `lib/`.
      needs: file names of the libraries it needs beside it (the same folder).
    """
    for file_name in [library] + needs:
        if native.existing_rule(file_name) == None and native.existing_rule(file_name.replace(".", "_")) == None:
            et_runtime_shared_library(name = file_name)
    et_backend_library(name = name, backends = backends, library = ":" + library, needs = [":" + n for n in needs])

def et_runtime_backends(name, libraries):
    """The runtime wheel's backend libraries in one target, for a binary that may link any of them.

    One action copies every library (and what it needs) from the wheel into
    `<name>/` and writes their declarations, as a list, to
    `<name>/backend_library.yaml`: a binary whose programs delegate to none
    of them (most) costs that one cheap shell action, not a declaration and a
    copy per library. `:<name>` is the declaration (what `backend_deps` takes,
    like an `et_backend_library`), `:<name>_files` the copies. etsb's driver
    only: under Bazel 4 every backend library given is linked (`backend_deps`
    there names the ones a model needs, `et_runtime_backend`'s).

    Args:
      name: the target name (`//runtime:wheel_backends`).
      libraries: one `[backend ids, library file name, [files it needs]]` per
        library, the file names those of the wheel's `lib/`.
    """
    if BUILD_SYSTEM == "bazel":
        return
    visibility = ["PUBLIC"] if BUILD_SYSTEM == "buck2" else ["//visibility:public"]
    declaration = name + "/backend_library.yaml"
    files = []
    for _, library, needs in libraries:
        for file_name in [library] + needs:
            if file_name not in files:
                files.append(file_name)
    lines = ["# The backend libraries of the runtime wheel (et_runtime_backends %s)." % name]
    for backends, library, needs in libraries:
        lines.append("- backends: [%s]" % ", ".join(backends))
        lines.append("  library: $(location %s/%s)" % (name, library))
        lines.append("  needs: [%s]" % ", ".join(["$(location %s/%s)" % (name, n) for n in needs]))
    copies = ["cp $(EXECUTORCH_RUNTIME)/lib/%s $(location %s/%s)" % (f, name, f) for f in files]
    etsb_genrule(
        name = name + "_declared",
        srcs = [],
        outs = [declaration] + [name + "/" + f for f in files],
        cmd = " && ".join(copies + ["printf '%%s\\n' %s > $(location %s)" % (" ".join(["'%s'" % line for line in lines]), declaration)]),
        visibility = visibility,
    )
    etsb_filegroup(name = name, srcs = [":" + declaration], visibility = visibility)
    etsb_filegroup(name = name + "_files", srcs = [":%s/%s" % (name, f) for f in files], visibility = visibility)

def etsb_tool(name, sources_name):
    """etsb's command-line tool, as genrules run it, and every file it reads.

    Args:
      name: the target of the entry script (`__main__.py` in the package).
      sources_name: the target of the package's Python sources and package data.
    """

    # A plain file everywhere (not a py_binary under Bazel): genrules run it with
    # the interpreter shim.bzl's ETSB_COMMAND names (the driver's $(ETSB_PYTHON),
    # Bazel's declared @etsb_python), and no Python toolchain is involved.
    etsb_export_file("__main__.py")
    etsb_filegroup(name = name, srcs = ["__main__.py"])

    # With etsb's own kernel yamls: a missing kernel's error names the library of
    # etsb's that provides it (stages/coverage.py), from files the action declares.
    etsb_filegroup(name = sources_name, srcs = native.glob(["**/*.py", "data/*.yaml"]) + [
        "//kernels/portable:functions.yaml",
        "//kernels/quantized:quantized.yaml",
        "//kernels/llm:functions.yaml",
    ])
