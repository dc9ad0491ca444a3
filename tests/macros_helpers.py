"""What the tests of etsb's public rules without building share
(tests/test_macros.py, tests/test_macro_errors.py): the workspace with one
call of each rule in package `m`, `etsb query` run in this process, and a
scratch package `bad` for one test's calls."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from conftest import MODELS_DIR, TREE
from helpers import TEST_KERNELS, new_workspace

# One call of each rule (and of their options), each on its own line: a target's
# location is the BUILD line of the call that made it.
CALLS = {
    "kernels": 'et_kernel_library(name = "kernels", srcs = ["kernels.cpp"], hdrs = ["kernels.h"], '
               'copts = ["-DFAST=1"], tags = ["k"])',
    "ops": 'et_operator_library(name = "ops", ops = ["aten::add.out", "mul.out"], tags = ["mine"])',
    "everything": 'et_operator_library(name = "everything", ops_dict = {"aten::add.out": ["Float"]}, '
                  'model = "m.pte", ops_schema_yaml_target = "kernels.yaml", deps = [":ops"], '
                  'backends = ["XnnpackBackend"], include_all_ops = True, testonly = True)',
    "merged": 'merge_yaml(name = "merged", functions_yaml = "vendor.yaml", fallback_yaml = "kernels.yaml")',
    "lib": 'executorch_generated_lib(name = "lib", functions_yaml_target = "kernels.yaml", deps = [":ops"], '
           'kernel_deps = [":kernels"])',
    "dlib": 'executorch_generated_lib(name = "dlib", functions_yaml_target = "vendor.yaml", '
            'fallback_yaml_target = "kernels.yaml", deps = [":ops"], kernel_deps = [":kernels"], '
            'dtype_selective_build = True, manual_registration = True, visibility = ["//other:__pkg__"])',
    "be": 'et_backend_library(name = "be", backends = ["XnnpackBackend"], library = "libbe.so", '
          'needs = ["libpool.so"])',
    "bin": 'et_model_binary(name = "bin", model = "m.pte", functions_yaml_target = "kernels.yaml", '
           'kernel_deps = [":kernels"], backend_deps = [":be"], runtime = "wheel")',
    "small": 'et_model_binary(name = "small", model = "m.pte", functions_yaml_target = "kernels.yaml", '
             'kernel_deps = [":kernels"], dtype_selective_build = True)',
    "ship": 'et_model_binary(name = "ship", model = "m.pte", functions_yaml_target = "kernels.yaml", '
            'kernel_deps = [":kernels"], embed_model = True, inputs = ["in.npy"], method_pool_bytes = 4096, '
            'runtime = "shared")',
    # The default runtime ("auto"): shipped where built to ship, the wheel's elsewhere.
    "two": 'et_model_binary(name = "two", model = "m.pte", functions_yaml_target = "kernels.yaml", '
           'kernel_deps = [":kernels"])',
}
LOAD = ('load("//rules:executorch.bzl", "et_backend_library", "et_kernel_library", "et_model_binary", '
        '"et_operator_library", "executorch_generated_lib", "merge_yaml")\n')
PRELUDE = 'load("//rules:executorch.bzl", "et_model_binary", "et_operator_library", "executorch_generated_lib")\n'


@contextlib.contextmanager
def bad_package(workspace: Path, text: str):
    """Package `bad` holding `text` (after the rules' load, unless it is a load), removed afterwards."""
    package = workspace / "bad"
    package.mkdir()
    try:
        (package / "a.bzl").write_text('load(":b.bzl", "b")\na = 1\n')
        (package / "b.bzl").write_text('load(":a.bzl", "a")\nb = 1\n')
        (package / "BUILD").write_text(text if text.startswith("load(") else PRELUDE + text)
        yield package
    finally:
        shutil.rmtree(package)


def make_workspace(root: Path) -> Path:
    """A workspace with etsb's rules and a package `m` holding one call of each
    rule (`CALLS`, one a line after `LOAD`) and the files they name."""
    new_workspace(root)
    package = root / "m"
    package.mkdir()
    shutil.copy(TEST_KERNELS / "mlp.yaml", package / "kernels.yaml")
    shutil.copy(TEST_KERNELS / "mlp_kernels.cpp", package / "kernels.cpp")
    shutil.copy(MODELS_DIR / "mlp" / "mlp.pte", package / "m.pte")
    for name in ("kernels.h", "vendor.yaml", "libbe.so", "libpool.so", "in.npy"):
        (package / name).write_text("")
    (package / "BUILD").write_text(LOAD + "".join(call + "\n" for call in CALLS.values()))
    return root


def query_runner(workspace: Path, monkeypatch, capsys):
    """`etsb query ARGS` in the workspace, run by the command line's main in this
    process (about 20 ms a call, against 120 ms for a new process): (exit code, stdout, stderr)."""
    from selective_build.__main__ import main

    monkeypatch.chdir(workspace)

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(["query", *argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run


# ExecuTorch's own call sites of its macros (examples/selective_build/targets.bzl of its tree):
# its two loads, and what they become to load etsb's rules.
EXECUTORCH_LOADS = {
    'load("@fbsource//xplat/executorch/build:runtime_wrapper.bzl", "get_oss_build_kwargs", "is_xplat", "runtime")':
        'load("@etsb//rules:executorch_runtime_wrapper.bzl", "get_oss_build_kwargs", "is_xplat", "runtime")',
    'load("@fbsource//xplat/executorch/codegen:codegen.bzl", "et_operator_library", "executorch_generated_lib", '
    '"ScalarType")':
        'load("@etsb//rules:executorch.bzl", "et_operator_library", "executorch_generated_lib", "ScalarType")',
}


def executorch_targets_bzl() -> str:
    """ExecuTorch's examples/selective_build/targets.bzl with its loads, and only them, changed to etsb's."""
    text = (TREE / "examples" / "selective_build" / "targets.bzl").read_text()
    for theirs, ours in EXECUTORCH_LOADS.items():
        assert text.count(theirs) == 1, theirs
        text = text.replace(theirs, ours)
    return text
