"""etsb's public rules: load everything from here.

    load("//rules:executorch.bzl", "et_model_binary")

    et_model_binary(name = "bin", model = "model.pte")

Each rule lives in a file of its own, with its attributes declared as data
(`ET_MODEL_BINARY` and the like: kind, default, doc; `docs/rules.md` is made
from them); this file only re-exports them, with the primitive rules the
macros are written against (`etsb_genrule`, `etsb_cxx_library`,
`etsb_cxx_binary`, `etsb_filegroup`, `etsb_export_file`: the same on etsb's
driver, Bazel and Buck2).
"""

load(":backend_library.bzl", _ET_BACKEND_LIBRARY = "ET_BACKEND_LIBRARY", _et_backend_library = "et_backend_library")
load(":generated_lib.bzl", _EXECUTORCH_GENERATED_LIB = "EXECUTORCH_GENERATED_LIB", _executorch_generated_lib = "executorch_generated_lib")
load(":kernel_library.bzl", _ET_KERNEL_LIBRARY = "ET_KERNEL_LIBRARY", _et_kernel_library = "et_kernel_library")
load(":merge_yaml.bzl", _MERGE_YAML = "MERGE_YAML", _merge_yaml = "merge_yaml")
load(":model_binary.bzl", _ET_MODEL_BINARY = "ET_MODEL_BINARY", _et_model_binary = "et_model_binary")
load(":operator_library.bzl", _ET_OPERATOR_LIBRARY = "ET_OPERATOR_LIBRARY", _et_operator_library = "et_operator_library")
load(":private/attrs.bzl", _COMMON_ATTRS = "COMMON_ATTRS")
load(":private/executorch_keywords.bzl", _scalar_type = "scalar_type")
load(
    ":private/shim.bzl",
    _BUILD_SYSTEM = "BUILD_SYSTEM",
    _etsb_cxx_binary = "etsb_cxx_binary",
    _etsb_cxx_library = "etsb_cxx_library",
    _etsb_export_file = "etsb_export_file",
    _etsb_filegroup = "etsb_filegroup",
    _etsb_genrule = "etsb_genrule",
)
load(":runtime.bzl", _et_runtime_backend = "et_runtime_backend", _et_runtime_backends = "et_runtime_backends", _et_runtime_library = "et_runtime_library", _et_runtime_threadpool = "et_runtime_threadpool", _etsb_tool = "etsb_tool")

et_operator_library = _et_operator_library
merge_yaml = _merge_yaml
executorch_generated_lib = _executorch_generated_lib
et_model_binary = _et_model_binary
et_kernel_library = _et_kernel_library
et_runtime_library = _et_runtime_library
et_runtime_backend = _et_runtime_backend
et_runtime_backends = _et_runtime_backends
et_runtime_threadpool = _et_runtime_threadpool
et_backend_library = _et_backend_library
etsb_tool = _etsb_tool

# ExecuTorch's codegen.bzl exports `ScalarType` for `ops_dict` entries: `ScalarType("Float")`.
ScalarType = _scalar_type  # buildifier: disable=name-conventions (ExecuTorch's name)

# The primitive rules, for BUILD files that want them on every build system.
etsb_genrule = _etsb_genrule
etsb_cxx_library = _etsb_cxx_library
etsb_cxx_binary = _etsb_cxx_binary
etsb_filegroup = _etsb_filegroup
etsb_export_file = _etsb_export_file
BUILD_SYSTEM = _BUILD_SYSTEM

# The public rules' declarations, in the order the documentation lists them.
RULES = [_ET_OPERATOR_LIBRARY, _MERGE_YAML, _EXECUTORCH_GENERATED_LIB, _ET_KERNEL_LIBRARY, _ET_BACKEND_LIBRARY, _ET_MODEL_BINARY]

# The attributes every rule passes through to the targets it creates.
COMMON_ATTRS = _COMMON_ATTRS
