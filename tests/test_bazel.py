"""What is Bazel's own in etsb's rules under real Bazel (Debian's
bazel-bootstrap, Bazel 4.2.3, read through the WORKSPACE file): a chosen
binary runs from a copy, and mistakes in a BUILD file fail Bazel's loading at
the BUILD line. What Bazel must do like the other front ends (the examples'
binaries run like torch, the smaller candidate is kept, the vendor kernel
serves relu, a rebuild runs nothing) is in test_front_ends.py.

Bazel runs with an output base of its own under pytest's temporary directory,
two jobs at a time and a 1 GB server heap (conftest.py's bazel_examples); the
server is shut down and the output base removed when the session ends.
scripts/setup.sh installs Bazel: a machine without it fails these tests rather
than skipping them."""

from __future__ import annotations

import os
import sys
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, TREE
from helpers import (BAZEL_BUILD, assert_matches_torch, assert_real_model_matches_torch, run_model,
                     run_real_model)
from llm_helpers import assert_generates_torchs_tokens

pytestmark = pytest.mark.build

MLP = "mlp"


def test_the_chosen_dtype_selective_binary_has_the_runtime_beside_it(bazel_examples):
    """pick-smaller copies the chosen binary one directory down, without link
    maps under Bazel, and libexecutorch.so and the runner's thread pool beside it (test_front_ends.py runs
    the directory from elsewhere)."""
    binary = bazel_examples.binary("dtype_selective")
    assert sorted(p.name for p in binary.parent.iterdir()) == sorted([binary.name, "libexecutorch.so",
                                                                      "libexecutorch_threadpool.so"])


BAD_PACKAGES = {
    # A misspelt attribute: Bazel's own check of the macro's signature.
    "bad_attribute": """\
load("//rules:executorch.bzl", "et_model_binary")

et_model_binary(
    name = "bin",
    model = "//tests/models:mlp/mlp.pte",
    dtype_selectiv_build = True,
)
""",
    # Shell text in an operator name: refused while loading, never run.
    "shell_in_ops": """\
load("//rules:executorch.bzl", "et_operator_library")

et_operator_library(name = "bin", ops = ["aten::add.out';touch /tmp/etsb-PWNED;'"])
""",
    # A model that is not a .pte: the attribute declarations' check (rules/private/attrs.bzl).
    "bad_model": """\
load("//rules:executorch.bzl", "et_model_binary")

# not a program
et_model_binary(name = "bin", model = "mlp.onnx")
""",
}


def test_bad_build_files_fail_bazels_loading_at_the_build_line(bazel_examples, tmp_path):
    """The packages live outside the repository, on a second package path root
    (the same server; nothing is written into the workspace)."""
    for package, text in BAD_PACKAGES.items():
        (tmp_path / package).mkdir()
        (tmp_path / package / "BUILD").write_text(text)
    result = bazel_examples.bazel("build", *BAZEL_BUILD, "--keep_going", f"--package_path=%workspace%:{tmp_path}",
                   *(f"//{package}:bin" for package in BAD_PACKAGES))
    assert result.returncode != 0
    errors = result.stderr
    assert f'File "{tmp_path}/bad_attribute/BUILD", line 3, column 16, in <toplevel>' in errors, errors
    assert ("et_model_binary 'bin': unknown attribute 'dtype_selectiv_build' (did you mean "
            "'dtype_selective_build'?)") in errors, errors
    assert f'File "{tmp_path}/bad_model/BUILD", line 4, column 16, in <toplevel>' in errors, errors
    assert "et_model_binary 'bin': attribute 'model' must name a .pte program, got 'mlp.onnx'" in errors, errors
    assert f'File "{tmp_path}/shell_in_ops/BUILD", line 3, column 20, in <toplevel>' in errors, errors
    assert "is not an operator name such as aten::add.out" in errors, errors
    assert not Path("/tmp/etsb-PWNED").exists()
    assert "Build did NOT complete successfully" in errors


# -- ExecuTorch's tree as @executorch -----------------------------------------------------


@pytest.mark.tree
def test_the_trees_kernels_build_under_bazel_and_run_like_torch(bazel_examples, tmp_path):
    """WORKSPACE's etsb_repositories(executorch_root = ...) makes the snapshot
    @executorch, with etsb's BUILD files: the MLP with the tree's portable
    kernels, and ResNet with etsb's kernels merged over them, run like torch;
    nothing is written into the tree."""
    before = {os.path.join(d, f): os.stat(os.path.join(d, f)).st_mtime
              for d, _, files in os.walk(TREE) for f in files}
    result = bazel_examples.bazel("build", *BAZEL_BUILD, "//examples/executorch_tree:mlp",
                                  "//examples/executorch_tree:resnet_ours_over_tree")
    assert result.returncode == 0, result.stderr[-5000:]
    out = bazel_examples.out / "executorch_tree"
    run = run_model(out / "mlp", MLP, tmp_path / "mlp")
    assert run.returncode == 0, run.stderr
    assert_matches_torch(MLP, tmp_path / "mlp")
    run_real_model(out / "resnet_ours_over_tree", "resnet", tmp_path / "resnet")
    assert_real_model_matches_torch("resnet", tmp_path / "resnet")
    assert {os.path.join(d, f): os.stat(os.path.join(d, f)).st_mtime
            for d, _, files in os.walk(TREE) for f in files} == before, "the build wrote into the tree"


def test_a_tree_that_is_not_one_fails_the_fetch_clearly(bazel_examples, tmp_path):
    result = bazel_examples.bazel("build", *BAZEL_BUILD, f"--repo_env=EXECUTORCH_ROOT={tmp_path}",
                                  "//examples/executorch_tree:mlp")
    assert result.returncode != 0
    assert (f"@executorch: {tmp_path} is not an ExecuTorch source tree: it has no kernels/portable/functions.yaml"
            in result.stderr), result.stderr[-3000:]


# -- delegated models ---------------------------------------------------------------------


def test_a_delegated_model_builds_with_its_backend_library_and_runs_like_torch(bazel_examples, tmp_path):
    """Under Bazel 4 the backend library is named (backend_deps): linked as given;
    without it, the same model stops the build naming the model, method and backend."""
    import numpy as np

    result = bazel_examples.bazel("build", *BAZEL_BUILD, "//examples/delegated:resnet_named_backend")
    assert result.returncode == 0, result.stderr[-5000:]
    model = REPO / "tests" / "models" / "delegated" / "resnet"
    run = subprocess.run([str(bazel_examples.out / "delegated" / "resnet_named_backend"), "--model",
                          str(model / "resnet.pte"), "--inputs", str(model / "forward.input_0.npy"),
                          "--output-dir", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    np.testing.assert_allclose(np.load(tmp_path / "output_0.npy"), np.load(model / "forward.output_0.npy"),
                               rtol=0, atol=1e-4)
    result = bazel_examples.bazel("build", *BAZEL_BUILD, "//examples/delegated:resnet")
    assert result.returncode != 0
    assert ("resnet.pte (method 'forward'): error: needs backend 'XnnpackBackend', which no backend library of "
            "this build provides") in result.stderr, result.stderr[-5000:]


def test_generated_files_are_the_drivers_byte_for_byte(bazel_examples, driver_mlp_generated):
    """The same selection, registration source and headers from Bazel 4 as from etsb's driver
    (tests/test_bazel7.py checks Bazel 7 the same way)."""
    from helpers import MLP_GENERATED

    for generated in MLP_GENERATED:
        ours = (driver_mlp_generated / generated).read_bytes()
        assert (bazel_examples.out / "mlp" / generated).read_bytes() == ours, generated


def test_the_declared_interpreter_has_every_package_the_tools_import():
    """`@etsb_python` declares the packages of `TOOL_PACKAGES` (bazel/private/python_repositories.bzl)
    as the actions' only site-packages: exactly those outside the standard
    library that etsb's tools import (a missing one would fail every action)."""
    import ast
    import re

    text = (REPO / "bazel" / "private" / "python_repositories.bzl").read_text()
    declared = ast.literal_eval(re.search(r"^TOOL_PACKAGES = (\[.*?\])$", text, re.MULTILINE).group(1))
    imported = set()
    for path in (REPO / "tools" / "selective_build").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    outside = imported - set(sys.stdlib_module_names) - {"selective_build", "__future__"}
    assert sorted(declared) == sorted(outside)


def test_no_action_names_a_path_of_this_machine(bazel_examples):
    """Every action of the examples' binaries (etsb's tools, compiles, links)
    names its inputs relative to the execution root: neither the checkout, nor
    its virtual environment, nor the wheel appears in a command line, so the
    actions' cache keys are the same in any checkout (and a remote executor
    can run them: test_remote_execution.py)."""
    import executorch

    from front_end_helpers import Driver

    query = bazel_examples.bazel("aquery", *BAZEL_BUILD, "--output=text",
                                 f"deps({' + '.join(Driver.LABELS)})")
    assert query.returncode == 0, query.stderr[-3000:]
    # Command lines span several lines: the whole report (arguments, inputs, outputs) is searched.
    assert query.stdout.count("Command Line:") > 20 and "selective_build/__main__.py" in query.stdout
    # The checkout (its .venv included), the wheel, and the interpreter @etsb_python links to.
    for path in {str(REPO), sys.prefix, os.path.realpath(executorch.__path__[0]),
                 os.path.realpath(getattr(sys, "_base_executable", sys.executable))}:
        assert path not in query.stdout, path


def test_the_tools_actions_declare_etsbs_kernel_yamls(bazel_examples):
    """Every action running etsb's tool has its sources target among its inputs, and that
    holds etsb's own kernel yamls, so that a missing kernel's error can name the library of
    etsb's that provides it under Bazel too (its sandbox holds only declared inputs)."""
    sources = bazel_examples.bazel("query", "labels(srcs, //tools/selective_build:sources)")
    assert sources.returncode == 0, sources.stderr[-3000:]
    for yaml in ("//kernels/portable:functions.yaml", "//kernels/quantized:quantized.yaml",
                 "//kernels/llm:functions.yaml"):
        assert yaml in sources.stdout.split(), yaml
    query = bazel_examples.bazel("aquery", *BAZEL_BUILD, "--output=text",
                                 'mnemonic("Genrule", deps(//examples/mlp:bin))')
    assert query.returncode == 0, query.stderr[-3000:]
    actions = [a for a in query.stdout.split("\naction ") if "selective_build/__main__.py" in a]
    assert len(actions) >= 4
    # Bazel 4 names a filegroup's files through one "middleman" input.
    assert all("tools_Sselective_Ubuild_Csources" in action for action in actions)


# -- the LLM decoders ---------------------------------------------------------------------


def test_bazel_builds_both_llm_decoders_and_they_generate_torchs_tokens(bazel_examples):
    """examples/llm/BUILD under real Bazel, on the shared output base (what the
    other examples built there, the runner and CMSIS-NN among them, is not
    built again): both binaries generate torch's 16 tokens (tests/test_llm.py
    checks the same two with etsb's driver and with CMake)."""
    result = bazel_examples.bazel("build", *BAZEL_BUILD, "//examples/llm:custom", "//examples/llm:plain")
    assert result.returncode == 0, result.stderr[-5000:]
    for model in ("custom", "plain"):
        assert_generates_torchs_tokens(bazel_examples.out / "llm" / model, model)


# -- ExecuTorch's own call sites ----------------------------------------------------------


@pytest.mark.tree
def test_executorchs_prim_op_call_sites_build_under_bazel(bazel_examples, tmp_path):
    """ExecuTorch's targets.bzl, its loads changed to etsb's: its prim-op example
    (`define_selective_build_prim_ops_example`) loads, its Buck2 visibility spellings
    (`//executorch/...`, `PUBLIC`) translated, and its libraries build, each prim-op
    selection with its own selected_prim_ops.h. ExecuTorch's labels name packages at its
    paths holding etsb's portable kernels (the library as `operators`). Its
    `define_common_targets` calls `native.read_config`, which Bazel has not."""
    from macros_helpers import executorch_targets_bzl

    portable = tmp_path / "executorch" / "kernels" / "portable"
    shutil.copytree(REPO / "kernels" / "portable", portable, ignore=shutil.ignore_patterns("test"))
    text = (portable / "BUILD").read_text()
    (portable / "BUILD").write_text(text.replace('name = "kernels"', 'name = "operators"'))
    package = tmp_path / "executorch" / "examples" / "selective_build"
    package.mkdir(parents=True)
    (package / "targets.bzl").write_text(executorch_targets_bzl())
    (package / "BUILD").write_text('load(":targets.bzl", "define_selective_build_prim_ops_example")\n\n'
                                   'define_selective_build_prim_ops_example()\n')
    labels = [f"//executorch/examples/selective_build:{name}" for name in
              ("library_with_combined_prim_ops", "library_with_combined_prim_ops_2", "library_with_all_prim_ops")]
    result = bazel_examples.bazel("build", *BAZEL_BUILD, f"--package_path=%workspace%:{tmp_path}", *labels)
    assert result.returncode == 0, result.stderr[-5000:]
    header = bazel_examples.out.parent / "executorch" / "examples" / "selective_build" / \
        "library_with_combined_prim_ops" / "selected_prim_ops.h"
    assert "#define INCLUDE_EXECUTORCH_PRIM_ET_VIEW_DEFAULT" in header.read_text()
    (package / "BUILD").write_text('load(":targets.bzl", "define_common_targets")\n\ndefine_common_targets()\n')
    result = bazel_examples.bazel("query", f"--package_path=%workspace%:{tmp_path}",
                                  "//executorch/examples/selective_build:all")
    assert result.returncode != 0 and "read_config" in result.stderr, result.stderr[-3000:]
