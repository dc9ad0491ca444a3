"""ExecuTorch's own portable kernels, from the source snapshot at
../shared/third_party/executorch (what a user's EXECUTORCH_ROOT checkout holds),
built by etsb's driver as `@executorch//kernels/portable`.

The tree's kernels compile against the installed runtime's headers (the tree
only on the include path after them, every runtime header from the wheel).
etsb's registration covers every entry of the tree's portable yaml in one
binary; a binary compiles, of the tree's 195 files, only what `etsb
kernel-sources` lists for its selection (each kernel's defining file and the
utility sources its headers need), and those objects are shared between
binaries. Each corpus model builds and runs like torch; nothing is written
into the tree. How etsb finds each kernel's defining source is
tests/test_kernel_sources.py's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, PORTABLE_OPERATORS, REPO, TREE
from conftest import TREE_PORTABLE_YAML as PORTABLE_YAML

from helpers import assert_matches_torch, etsb, new_workspace, run_model, stripped_size
from selective_build.driver.platforms import output_dir
from selective_build.emit.kernel_sources import PLAIN_MARK

pytestmark = [pytest.mark.build, pytest.mark.tree]

MODELS = ("mlp", "cnn", "attention", "embedding", "mixed_dtypes", "two_methods", "caller_outputs")
TREE_KERNELS = ('functions_yaml_target = "@executorch//kernels/portable:functions.yaml", '
                'kernel_deps = ["@executorch//kernels/portable:kernels"]')


def tree_files() -> dict[str, float]:
    """Every file of the tree with its modification time: what a build must leave as it is."""
    found = {}
    for directory, _, files in os.walk(TREE):
        for name in files:
            path = os.path.join(directory, name)
            found[path] = os.stat(path).st_mtime
    return found


def build(workspace: Path, *targets: str) -> subprocess.CompletedProcess:
    """``etsb build`` in ``workspace`` with the snapshot as its ExecuTorch tree."""
    return etsb("build", "--executorch-root", str(TREE), *targets, cwd=workspace)


def compiled(result: subprocess.CompletedProcess) -> list[str]:
    """The sources a build compiled, from its progress lines."""
    return re.findall(r"CXX (\S+) \(", result.stdout)


PACKAGE = "//tests/executorch_tree"
# The dtype-selective MLP is the example's (test_examples builds //examples/... in this
# workspace too): one build of its own kernels, checked here.
DTYPE_SELECTIVE = "//examples/executorch_tree:mlp_dtype_selective"
DTYPE_SELECTIVE_OUT = "etsb-out/bin/examples/executorch_tree"
TARGETS = [*(f"{PACKAGE}:{name}" for name in (*MODELS, "list_kernels")), DTYPE_SELECTIVE]


@pytest.fixture(scope="module")
def tree_workspace() -> tuple[Path, subprocess.CompletedProcess]:
    """The corpus models on the tree's kernels and the registry lister
    (tests/executorch_tree/BUILD), built in the checkout workspace: the whole
    portable library compiles once there (the lister needs all of it), shared by
    every binary, the examples and ExecuTorch's kernel test suite."""
    before = tree_files()
    result = build(REPO, *TARGETS)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert tree_files() == before, "the build wrote into the tree"
    return REPO, result


def yaml_operators() -> set[str]:
    names = set()
    for line in PORTABLE_YAML.read_text().splitlines():
        match = re.match(r"- (?:op|func): ([\w.:]+)", line)
        if match:
            name = match.group(1)
            names.add(name if "::" in name else f"aten::{name}")
    return names


def test_every_portable_yaml_entry_registers_in_one_binary(tree_workspace):
    """Single and several out tensors, tensor lists, void returns, defaults,
    optionals: each of the yaml's entries is registered and listed by the runtime."""
    workspace, _ = tree_workspace
    listed = subprocess.run([str(workspace / "etsb-out/bin/tests/executorch_tree/list_kernels")], capture_output=True, text=True,
                            check=True).stdout.split()
    expected = yaml_operators()
    assert len(expected) == PORTABLE_OPERATORS
    # Each once; the rest of the registry is the runtime's own (its prim ops).
    assert expected <= set(listed) and len(set(listed)) == len(listed)
    assert all(name.startswith(("executorch_prim::", "aten::sym_", "aten::_local_scalar_dense"))
               for name in set(listed) - expected), sorted(set(listed) - expected)


def test_each_tree_source_compiled_once_for_every_binary(tree_workspace):
    """The tree's objects belong to its library: every binary links the library's
    own objects, none its own copy (but the dtype-selective binary, which compiles
    its own of the sources whose switches its dtype selection reaches); and the
    library's objects are those of the sources the whole library's registration needs."""
    workspace, _ = tree_workspace
    out = workspace / "etsb-out/bin/tests/executorch_tree"
    shared = workspace / output_dir({}) / "obj/external/executorch/kernels/portable/kernels"
    everything = (out / "everything/kernel_sources.txt").read_text().splitlines()
    members = (out / "libeverything_kernels.a.objects").read_text().splitlines()
    assert len(members) == len(set(members)) == len(everything)
    for model in (*MODELS, "everything"):
        objects = (out / f"lib{model}{'' if model == 'everything' else '_lib'}_kernels.a.objects").read_text()
        assert all(Path(line).parent == shared.relative_to(workspace) for line in objects.splitlines()), model
    selective = workspace / DTYPE_SELECTIVE_OUT
    own = (selective / "libmlp_dtype_selective_dtype_selective_lib_kernels.a.objects").read_text().splitlines()
    listed = (selective / "mlp_dtype_selective_dtype_selective_lib/kernel_sources.txt").read_text().splitlines()
    # Its sources that name no dtype switch (kernel-sources --mark-plain) link the library's objects.
    plain = {line[len(PLAIN_MARK):].replace("/", "__") + ".o" for line in listed if line.startswith(PLAIN_MARK)}
    taken = {Path(line).name for line in own if Path(line).parent == shared.relative_to(workspace)}
    assert len(own) == len(listed) == 9 and 0 < len(taken) < len(own) and taken == plain, (own, listed)


@pytest.mark.parametrize("model", MODELS)
def test_each_corpus_model_builds_from_the_tree_and_matches_torch(model, tree_workspace, tmp_path):
    """Each binary holds only the objects its listed sources make (a missing
    utility would be an undefined reference), and runs like torch."""
    workspace, _ = tree_workspace
    out = workspace / "etsb-out/bin/tests/executorch_tree"
    listed = (out / f"{model}_lib/kernel_sources.txt").read_text().splitlines()
    members = (out / f"lib{model}_lib_kernels.a.objects").read_text().splitlines()
    assert 0 < len(listed) == len(members) < 25
    for method in ("forward", "scale") if model == "two_methods" else ("forward",):
        result = run_model(out / model, model, tmp_path / method, method=method)
        assert result.returncode == 0, result.stderr
        assert_matches_torch(model, tmp_path / method, method)


def test_a_dtype_selective_tree_build_is_smaller_and_runs(tree_workspace, tmp_path):
    workspace, _ = tree_workspace
    out = workspace / DTYPE_SELECTIVE_OUT
    dtype_selective = stripped_size(out / "mlp_dtype_selective_dtype_selective", tmp_path)
    op_selective = stripped_size(out / "mlp_dtype_selective_op_selective", tmp_path)
    assert dtype_selective < 0.8 * op_selective, (dtype_selective, op_selective)
    result = run_model(out / "mlp_dtype_selective_smallest/mlp_dtype_selective", "mlp", tmp_path / "o")
    assert result.returncode == 0, result.stderr
    assert_matches_torch("mlp", tmp_path / "o")


@pytest.fixture()
def small_workspace(tmp_path) -> Path:
    workspace = new_workspace(tmp_path / "ws")
    (workspace / "m").mkdir()
    for model in ("mlp", "cnn"):
        shutil.copy(MODELS_DIR / model / f"{model}.pte", workspace / "m")
    (workspace / "m" / "BUILD").write_text(
        'load("//rules:executorch.bzl", "et_model_binary")\n'
        f'et_model_binary(name = "mlp", model = "mlp.pte", {TREE_KERNELS})\n'
        f'et_model_binary(name = "cnn", model = "cnn.pte", {TREE_KERNELS})\n')
    return workspace


def test_a_binary_compiles_only_the_sources_its_operators_need(small_workspace):
    """The MLP: 9 of the tree's 195 files; the CNN next: only what the MLP did not compile."""
    first = build(small_workspace, "//m:mlp")
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    tree = sorted(s.split("/kernels/portable/cpu/")[1] for s in compiled(first) if "/external/executorch/" in s)
    assert tree == ["op_addmm.cpp", "op_permute_copy.cpp", "op_relu.cpp", "util/broadcast_util.cpp",
                    "util/copy_ops_util.cpp", "util/delinearize_index.cpp", "util/dtype_util.cpp",
                    "util/matmul_ops_util.cpp", "util/repeat_util.cpp"]
    second = build(small_workspace, "//m:cnn")
    assert second.returncode == 0, second.stdout[-2000:] + second.stderr[-2000:]
    again = [s for s in compiled(second) if "/external/executorch/" in s]
    assert again and not set(again) & set(compiled(first)), again


def test_labels_of_the_tree_without_a_tree_say_how_to_give_one(small_workspace):
    result = etsb("build", "//m:mlp", cwd=small_workspace)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert ("m/BUILD:2:1: error:" in result.stderr and "names the repository '@executorch', which this build does "
            "not have" in result.stderr and "--executorch-root DIR, EXECUTORCH_ROOT" in result.stderr), result.stderr
    missing = etsb("build", "--executorch-root", str(small_workspace / "nowhere"), "//m:mlp", cwd=small_workspace)
    assert "is not a directory" in missing.stderr and "Traceback" not in missing.stderr, missing.stderr


def test_the_workspace_gives_its_tree_once_in_etsbrc(small_workspace):
    (small_workspace / ".etsbrc").write_text(f"# the tree\ncommon --executorch-root={os.path.relpath(TREE, small_workspace)}\n")
    result = etsb("build", "//m:mlp", cwd=small_workspace / "m")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (small_workspace / ".etsbrc").write_text("\n\nbuidl --executorch-root=x\n")
    result = etsb("build", "//m:mlp", cwd=small_workspace)
    assert result.returncode == 2 and ".etsbrc:3: 'buidl' is not a command" in result.stderr, result.stderr


def test_a_kernel_no_tree_source_defines_fails_the_build_naming_the_operator(small_workspace):
    (small_workspace / "m" / "vendor.yaml").write_text(
        "- op: relu.out\n  kernels:\n    - arg_meta: null\n      kernel_name: torch::executor::no_such_relu_out\n")
    (small_workspace / "m" / "BUILD").write_text(
        'load("//rules:executorch.bzl", "et_model_binary")\n'
        'et_model_binary(name = "mlp", model = "mlp.pte", functions_yaml_target = "vendor.yaml",\n'
        '    fallback_yaml_target = "@executorch//kernels/portable:functions.yaml",\n'
        '    kernel_deps = ["@executorch//kernels/portable:kernels"])\n')
    result = build(small_workspace, "//m:mlp")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert ("operator aten::relu.out: kernel 'torch::executor::no_such_relu_out': no source of its kernel "
            "libraries" in result.stderr + result.stdout), result.stdout[-2000:] + result.stderr[-2000:]


def test_a_tree_of_another_release_than_the_runtime_is_warned_about(small_workspace, tmp_path):
    other = tmp_path / "old_tree"
    (other / "kernels" / "portable" / "cpu").mkdir(parents=True)
    (other / "kernels" / "portable" / "functions.yaml").write_text("")
    (other / "kernels" / "portable" / "cpu" / "op_x.cpp").write_text("")
    (other / "version.txt").write_text("0.7.0\n")
    result = etsb("query", "--executorch-root", str(other), "//m:all", cwd=small_workspace)
    assert result.returncode == 0, result.stderr
    assert (f"etsb: warning: the ExecuTorch tree {other} is version 0.7, the installed runtime 1.5" in result.stderr
            ), result.stderr
    (other / "version.txt").unlink()
    result = etsb("query", "--executorch-root", str(other), "//m:all", cwd=small_workspace)
    assert "cannot tell the version of the ExecuTorch tree" in result.stderr, result.stderr
    # The snapshot is of the runtime's release: no warning.
    result = etsb("query", "--executorch-root", str(TREE), "//m:all", cwd=small_workspace)
    assert "warning" not in result.stderr, result.stderr


# PyTorch's C++ headers, which ExecuTorch's optimized kernels include (ATen's vectorization):
# the export environment's torch, which the test command sets up.
TORCH_INCLUDE = REPO / ".venv-export" / "lib" / "python3.11" / "site-packages" / "torch" / "include"


@pytest.mark.parametrize("model", ["attention", "mixed_dtypes"])
def test_the_optimized_kernels_merged_over_the_portable_ones(small_workspace, model, tmp_path):
    """ExecuTorch's optimized yaml over its portable one, as the seeds merge them: each operator
    runs the optimized kernel where there is one (by symbol in the link map), the portable one
    elsewhere, and an optimized kernel's call into a portable one (opt_sum_dim_out ->
    sum_dim_out) links; the outputs match torch."""
    assert TORCH_INCLUDE.is_dir(), f"no torch headers at {TORCH_INCLUDE} (run scripts/setup.sh --export-env)"
    shutil.copy(MODELS_DIR / model / f"{model}.pte", small_workspace / "m")
    (small_workspace / "m" / "BUILD").write_text(
        'load("//rules:executorch.bzl", "et_model_binary")\n'
        f'et_model_binary(name = "bin", model = "{model}.pte",\n'
        '    functions_yaml_target = "@executorch//kernels/optimized:functions.yaml",\n'
        '    fallback_yaml_target = "@executorch//kernels/portable:functions.yaml",\n'
        '    kernel_deps = ["@executorch//kernels/optimized:kernels", "@executorch//kernels/portable:kernels"])\n')
    result = etsb("build", "--executorch-root", str(TREE), "--define", f"TORCH_INCLUDE={TORCH_INCLUDE}", "//m:bin",
                  cwd=small_workspace)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    binary = small_workspace / "etsb-out/bin/m/bin"
    symbols = subprocess.run(["nm", "-C", str(binary)], capture_output=True, text=True, check=True).stdout
    expected = {"attention": ["opt_add_out", "opt_bmm_out", "opt_native_layer_norm_out"],
                "mixed_dtypes": ["opt_add_out", "opt_mul_out", "opt_sum_dim_out", "sum_dim_out("]}[model]
    for name in expected:
        assert f"torch::executor::native::{name}" in symbols, name
    run = run_model(binary, model, tmp_path)
    assert run.returncode == 0, run.stderr
    assert_matches_torch(model, tmp_path)
