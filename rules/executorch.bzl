"""etsb's public rules: load everything from here.

    load("//rules:executorch.bzl", "et_model_binary")

    et_model_binary(name = "bin", model = "model.pte")

Each rule lives in a file of its own; this file only re-exports them.
"""

load(":generated_lib.bzl", _executorch_generated_lib = "executorch_generated_lib")
load(":kernel_library.bzl", _et_kernel_library = "et_kernel_library")
load(":merge_yaml.bzl", _merge_yaml = "merge_yaml")
load(":model_binary.bzl", _et_model_binary = "et_model_binary")
load(":operator_library.bzl", _et_operator_library = "et_operator_library")
load(":runtime.bzl", _et_runtime_library = "et_runtime_library", _etsb_tool = "etsb_tool")

et_operator_library = _et_operator_library
merge_yaml = _merge_yaml
executorch_generated_lib = _executorch_generated_lib
et_model_binary = _et_model_binary
et_kernel_library = _et_kernel_library
et_runtime_library = _et_runtime_library
etsb_tool = _etsb_tool
