"""etsb's prelude: what every BUILD file of etsb's driver sees without a load,
as Buck2's prelude gives its BUILD files their rules (the driver passes it to
its evaluator with --prelude). So the kernel registration docs' Buck2 example
builds as pasted:

    export_file(name = "functions.yaml")
    cxx_library(name = "add_kernel", srcs = ["add.cpp"])
    et_operator_library(name = "all_ops", include_all_ops = True)
    executorch_generated_lib(name = "generated_lib", functions_yaml_target = ":functions.yaml",
                             deps = [":all_ops", ":add_kernel"])
    cxx_binary(name = "executorch_bin", deps = [":generated_lib"])

It holds etsb's rules (as `//rules:executorch.bzl` exports them) and two C++
rules in Buck2's spelling that know ExecuTorch: `cxx_library` and `cxx_binary`
build against the runtime (its headers, flags and library), and a
`cxx_binary` without sources of its own gets etsb's model runner as its
`main` (kernels registered at start-up; `--help`, `--list-kernels`). Every
other attribute goes to the driver's primitive of the same name, which takes
both Bazel's and Buck2's spellings (`hdrs`/`exported_headers`,
`copts`/`compiler_flags`, ...). A BUILD file's own load of a name wins.

Under Bazel, which has no prelude, a BUILD file loads the same names from
here (`load("@etsb//rules:prelude.bzl", "cxx_library", ...)`): `export_file`
becomes `exports_files`, and `cxx_library`/`cxx_binary` become `cc_library`/
`cc_binary`, Buck2's attribute spellings translated.
"""

load(
    ":executorch.bzl",
    _et_kernel_library = "et_kernel_library",
    _et_model_binary = "et_model_binary",
    _et_operator_library = "et_operator_library",
    _executorch_generated_lib = "executorch_generated_lib",
    _merge_yaml = "merge_yaml",
)
load(":private/shim.bzl", "BUILD_SYSTEM", "CXX_FLAGS", "RUNNER_STATIC", "RUNTIME", "etsb_cxx_binary", "etsb_cxx_library")

et_operator_library = _et_operator_library
merge_yaml = _merge_yaml
executorch_generated_lib = _executorch_generated_lib
et_model_binary = _et_model_binary
et_kernel_library = _et_kernel_library

# Buck2's spellings of Bazel's C++ attributes (the driver's primitives take both).
_BAZEL_SPELLINGS = {
    "exported_headers": "hdrs",
    "headers": "hdrs",
    "exported_deps": "deps",
    "compiler_flags": "copts",
    "preprocessor_flags": "copts",
    "linker_flags": "linkopts",
    "exported_linker_flags": "linkopts",
}

def _in_bazels_spelling(attrs):
    """`attrs` with Buck2's attribute names turned into Bazel's (lists joined)."""
    result = {}
    for key, value in attrs.items():
        key = _BAZEL_SPELLINGS.get(key, key)
        result[key] = result.get(key, []) + value if key in result else value
    return result

def _with_flags(flags, attrs):
    # `attrs` with the compiler `flags`, in the attribute this build system has: the
    # driver's `copts`, or Buck2's `compiler_flags` (its cxx rules have no `copts`).
    if BUILD_SYSTEM != "buck2":
        return dict(attrs, copts = flags)
    return dict(attrs, compiler_flags = flags + attrs.get("compiler_flags", []))

def export_file(name, src = None, **kwargs):
    """A file of the package that other targets may name (Buck2's `export_file`).

    Args:
      name: the target name (and the file's, without `src`).
      src: the file, when it is not named `name`.
      **kwargs: the driver's export_file attributes (ignored under Bazel, which has no such target).
    """
    if BUILD_SYSTEM == "bazel":
        native.exports_files([src or name])
    else:
        native.export_file(name = name, src = src or name, **kwargs)

def cxx_library(name, deps = [], copts = [], **kwargs):
    """A C++ library built against the ExecuTorch runtime (see the module doc).

    Args:
      name: the target name.
      deps: libraries it depends on; the runtime is added.
      copts: compiler flags for its own sources (after etsb's C++17).
      **kwargs: the driver's cxx_library attributes, in Bazel's or Buck2's spelling.
    """
    if BUILD_SYSTEM == "bazel":
        attrs = _in_bazels_spelling(dict(kwargs, deps = deps, copts = copts))
        attrs["deps"] = attrs["deps"] + [RUNTIME]
        if "alwayslink" in attrs:
            attrs["link_whole"] = attrs.pop("alwayslink")
        etsb_cxx_library(name = name, **attrs)
        return
    native.cxx_library(name = name, deps = deps + [RUNTIME], **_with_flags(CXX_FLAGS + copts, kwargs))

def cxx_binary(name, srcs = [], deps = [], copts = [], **kwargs):
    """A C++ executable linked with the ExecuTorch runtime.

    Without `srcs`, etsb's model runner is its `main` (see the module doc).

    Args:
      name: the target name; the binary is named after it.
      srcs: its own sources; none: etsb's runner (tools/runner) is the main.
      deps: libraries it links (generated libraries register their kernels at start-up).
      copts: compiler flags for its own sources (after etsb's C++17).
      **kwargs: the driver's cxx_binary attributes, in Bazel's or Buck2's spelling.
    """
    runner = [] if srcs else [RUNNER_STATIC]
    if BUILD_SYSTEM == "bazel":
        attrs = _in_bazels_spelling(dict(kwargs, deps = deps + runner + [RUNTIME], copts = copts))
        etsb_cxx_binary(name = name, srcs = srcs, **attrs)
        return
    native.cxx_binary(name = name, srcs = srcs, deps = deps + runner + [RUNTIME], **_with_flags(CXX_FLAGS + copts, kwargs))
