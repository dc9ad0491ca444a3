"""What ExecuTorch's BUCK call sites load beside its macros, for etsb's rules.

ExecuTorch's own targets files (`examples/selective_build/targets.bzl`) load
`et_operator_library`, `executorch_generated_lib` and `ScalarType` from its
codegen.bzl, and `runtime`, `is_xplat` and `get_oss_build_kwargs` from its
build/runtime_wrapper.bzl. With their loads changed to

    load("@etsb//rules:executorch_runtime_wrapper.bzl", "get_oss_build_kwargs", "is_xplat", "runtime")
    load("@etsb//rules:executorch.bzl", "et_operator_library", "executorch_generated_lib", "ScalarType")

they evaluate as ExecuTorch's open-source build does (`runtime.is_oss`, not
xplat), on etsb's driver, Bazel and Buck2. `runtime.cxx_library` and
`runtime.cxx_binary` are etsb's prelude rules (built against the ExecuTorch
runtime; a source-less binary gets etsb's runner as its `main`);
ExecuTorch's own `runtime.genrule` (Buck2's named outputs and `$OUT`) is not
offered: write etsb_genrule instead.
"""

load(":prelude.bzl", _cxx_binary = "cxx_binary", _cxx_library = "cxx_library", _export_file = "export_file")
load(":private/shim.bzl", "BUILD_SYSTEM", "etsb_filegroup")

def is_xplat():
    """Whether this is Meta's xplat build: never here (the open-source one, as `runtime.is_oss` says).

    Returns:
      False.
    """
    return False

def get_oss_build_kwargs():
    """The attributes ExecuTorch's open-source build gives its binaries: a static link, with `-ldl`.

    Returns:
      A dict of `runtime.cxx_binary` attributes.
    """
    return {"link_style": "static", "linker_flags": ["-ldl"]}

def _buck2_only(kwargs, names):
    """`kwargs` without `names`, except under Buck2, whose rules take them (`link_style`)."""
    if BUILD_SYSTEM == "buck2":
        return kwargs
    return {key: value for key, value in kwargs.items() if key not in names}

def _runtime_cxx_binary(name, define_static_target = False, **kwargs):  # buildifier: disable=unused-variable
    # define_static_target: etsb's binaries link their libraries statically already.
    _cxx_binary(name = name, **_buck2_only(kwargs, ["link_style"]))

def _runtime_cxx_library(name, define_static_target = False, **kwargs):
    _cxx_library(name = name, **kwargs)
    if define_static_target:
        # ExecuTorch's name for the library linked statically: etsb's libraries are static.
        _cxx_library(name = name + "_static", exported_deps = [":" + name])

def _runtime_filegroup(name, srcs, **kwargs):
    etsb_filegroup(name = name, srcs = srcs, **kwargs)

# ExecuTorch's `runtime` struct, as its open-source build defines it, over etsb's rules.
runtime = struct(
    is_oss = True,
    cxx_binary = _runtime_cxx_binary,
    cxx_library = _runtime_cxx_library,
    export_file = _export_file,
    filegroup = _runtime_filegroup,
)
