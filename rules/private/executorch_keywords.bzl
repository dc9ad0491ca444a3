"""The keywords of ExecuTorch's own Buck2 macros that etsb's rules take besides their own.

ExecuTorch's `executorch_generated_lib` and `et_operator_library`
(`shim_et/xplat/executorch/codegen/codegen.bzl` in its tree) take keywords
for its own build (ATen mode, Meta's platforms, PyTorch-side libraries): etsb's
rules of the same name accept every one of them, so that ExecuTorch's call
sites evaluate with only their `load` changed. Each is declared here with
ExecuTorch's meaning and etsb's (docs/rules.md tabulates both); what etsb
cannot build is refused by the checks below.
"""

load(":private/attrs.bzl", "attrs")

# ExecuTorch's dtype names, in the order of its ScalarType enum (its codegen.bzl
# exports `ScalarType` for `ops_dict` entries: `ScalarType("Float")`).
SCALAR_TYPES = [
    "Byte",
    "Char",
    "Short",
    "Int",
    "Long",
    "Half",
    "Float",
    "Double",
    "ComplexHalf",
    "ComplexFloat",
    "ComplexDouble",
    "Bool",
    "QInt8",
    "QUInt8",
    "QInt32",
    "BFloat16",
    "QUInt4x2",
    "QUInt2x4",
    "Bits1x8",
    "Bits2x4",
    "Bits4x2",
    "Bits8",
    "Bits16",
    "Float8_e5m2",
    "Float8_e4m3fn",
    "Float8_e5m2fnuz",
    "Float8_e4m3fnuz",
    "UInt16",
    "UInt32",
    "Uint64",
]

def scalar_type(name):
    """The dtype `name` as an `ops_dict` entry, checked (ExecuTorch's `ScalarType("Float")`).

    Args:
      name: a name of `SCALAR_TYPES`.

    Returns:
      The name; an unknown one fails, naming the known ones.
    """
    if name not in SCALAR_TYPES:
        fail("ScalarType: '%s' is not a dtype of ExecuTorch's; it takes %s" % (name, ", ".join(SCALAR_TYPES)))
    return name

# executorch_generated_lib's keywords of ExecuTorch's beside etsb's own attributes.
GENERATED_LIB_KEYWORDS = {
    "compiler_flags": attrs.string_list(
        "compiler flags of the registration library's own source",
        executorch = "compiler flags of the generated libraries",
    ),
    "support_exceptions": attrs.bool(
        "`False` compiles the registration source with `-fno-exceptions` (etsb's generated calls never catch: kernels report errors through their context)",
        default = True,
        executorch = "wrap each kernel call in try/catch so that an exception does not end the process; `False` for builds without exceptions",
    ),
    "define_static_targets": attrs.bool(
        "also define `<name>_static`, the library under ExecuTorch's name for its static variant (etsb's libraries are static already: the same library)",
        executorch = "also define `<name>_static` variants of the libraries, linked statically",
    ),
    "expose_operator_symbols": attrs.bool(
        "only with `dtype_selective_build`, as in ExecuTorch (which fails otherwise); etsb never hides the kernels' symbols, so it changes nothing else",
        executorch = "do not build the dtype-selective kernels with hidden symbols (only with `dtype_selective_build`)",
    ),
    "xplat_deps": attrs.label_list(
        "C++ libraries the registration library depends on (linked as `deps`' C++ libraries are)",
        executorch = "more C++ dependencies in the xplat build (e.g. a custom operator library)",
    ),
    "fbcode_deps": attrs.label_list(
        "accepted and ignored: etsb builds the xplat flavour, whose extra dependencies are `xplat_deps`",
        executorch = "more C++ dependencies in the fbcode build",
    ),
    "custom_ops_requires_runtime_registration": attrs.bool(
        "`False` with no `functions_yaml_target`: no library `<name>` is defined (nothing else is: etsb makes no PyTorch-side library)",
        default = True,
        executorch = "`False` with no `functions_yaml_target`: no `<name>` library is generated",
    ),
    "custom_ops_requires_aot_registration": attrs.bool(
        "accepted and ignored: the PyTorch-side library of custom operators belongs to the export environment, which etsb does not build",
        default = True,
        executorch = "also build `custom_ops_<name>`, the library registering the custom operators in PyTorch (ahead of time)",
    ),
    "custom_ops_aten_kernel_deps": attrs.label_list(
        "must be empty: these are ATen kernels for PyTorch's side, which etsb does not build",
        executorch = "ATen kernels of the custom operators for the PyTorch-side library (fake kernels when empty)",
    ),
    "aten_mode": attrs.bool(
        "must be `False`: etsb has no ATen kernels or ATen tensors",
        executorch = "build against ATen kernels and ATen tensors",
    ),
    "use_default_aten_ops_lib": attrs.bool(
        "accepted and ignored (it matters in ATen mode only, which etsb refuses)",
        default = True,
        executorch = "in ATen mode, link PyTorch's mobile operator library",
    ),
    "platforms": attrs.string_list(
        "accepted and ignored: etsb builds for the platform a build asks for (`--platform`, `-c etsb.platform=...`)",
        executorch = "the platforms (`CXX`, `ANDROID`, ...) the libraries are defined for",
    ),
    "feature": attrs.string(
        "accepted and ignored (Meta's internal feature hierarchy)",
        executorch = "a product-feature tag for Meta's internal builds",
    ),
    "compatible_with": attrs.string_list(
        "accepted and ignored: etsb's targets build on every platform a build asks for",
        executorch = "Buck2 platform constraints of the registration library",
    ),
    "include_all_prim_ops": attrs.bool(
        "`False`: only the prim ops the selection names are registered (those its operator lists and dicts name, `executorch_prim::et_view.default`, `aten::sym_size.int`..., and those its models call; none named: all): ExecuTorch's `<name>/selected_prim_ops.h` is written and ExecuTorch's prim ops are compiled with it into `<name>_prim_ops`, which needs the runtime compiled from the tree: `runtime` is then `\"static\"` unless given (a binary links `@executorch//:runtime_without_prim_ops`). Buck2 builds the wheel's runtime only, which registers every prim op itself: there the header alone is written. CMake's `executorch_generated_lib(... INCLUDE_ALL_PRIM_OPS OFF)` does as the driver and Bazel (a binary links `etsb_tree_runtime_without_prim_ops`; docs/cmake.md)",
        default = True,
        executorch = "`False`: register only the prim ops that `deps`' operator lists name (its `selected_prim_ops.h`; none named: all)",
    ),
}

def check_generated_lib_keywords(where, a):
    """Fails on the keywords of ExecuTorch's macro that ask for what etsb cannot build.

    Args:
      where: the rule and target, for the messages.
      a: the call's checked attributes.
    """
    if a.aten_mode:
        fail("%s: aten_mode = True builds against ATen kernels and tensors, which etsb does not have: use ExecuTorch's portable types (aten_mode = False)" % where)
    if a.custom_ops_aten_kernel_deps:
        fail("%s: custom_ops_aten_kernel_deps names ATen kernels for PyTorch's side (%s), which etsb does not build: leave it empty" %
             (where, ", ".join(a.custom_ops_aten_kernel_deps)))
    if a.expose_operator_symbols and not a.dtype_selective_build:
        fail("%s: expose_operator_symbols is for dtype-selective builds only (as in ExecuTorch): set dtype_selective_build = True or drop it" % where)
