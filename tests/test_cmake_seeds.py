"""The seeds' CMake snippet (examples/cmake_seeds), as pasted, on
find_package(etsb): with EXECUTORCH_ROOT the snapshot of ExecuTorch's tree,
portable_kernels is the tree's portable library, compiled only as far as each
generated library needs; without it, etsb's own. Both spellings the seeds use
(positional, keyword), a dtype-selective library, and merge_yaml(... OUTPUT_DIR)
with etsb's kernels over the tree's; the binaries run and match torch; a
mistake in a call fails the configuration at its line."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import REPO, TREE
from helpers import (assert_call_fails_configuration, assert_kernels_from_ours_or_tree, assert_matches_torch,
                     assert_real_model_matches_torch, cmake, cmake_build, cmake_configure, etsb, run_model,
                     run_real_model, symbols)

pytestmark = pytest.mark.build

EXAMPLE = REPO / "examples" / "cmake_seeds"
CONFIG_DIR = REPO / "rules" / "cmake"
# PyTorch's C++ headers (the export environment's torch), for the tree's optimized kernels.
TORCH_INCLUDE = REPO / ".venv-export" / "lib" / "python3.11" / "site-packages" / "torch" / "include"


def tree_state() -> dict[str, float]:
    """Every file of the tree with its modification time."""
    return {os.path.join(d, f): os.stat(os.path.join(d, f)).st_mtime for d, _, files in os.walk(TREE) for f in files}


@pytest.fixture(scope="module")
def with_tree(tmp_path_factory) -> Path:
    """The example configured with the tree and built."""
    out = tmp_path_factory.mktemp("seeds_tree")
    before = tree_state()
    assert TORCH_INCLUDE.is_dir(), f"no torch headers at {TORCH_INCLUDE} (run scripts/setup.sh --export-env)"
    result = cmake_configure(EXAMPLE, out, f"-Detsb_DIR={CONFIG_DIR}", f"-DEXECUTORCH_ROOT={TREE}",
                             f"-DETSB_TORCH_INCLUDE={TORCH_INCLUDE}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in result.stderr.lower(), result.stderr
    result = cmake_build(out)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert tree_state() == before, "the build wrote into the tree"
    return out


@pytest.mark.tree
@pytest.mark.parametrize("binary", ["executorch_binary", "model_binary"])
def test_the_snippet_with_the_tree_runs_the_mlp_like_torch(with_tree, binary, tmp_path):
    result = run_model(with_tree / binary, "mlp", tmp_path)
    assert result.returncode == 0, result.stderr
    assert_matches_torch("mlp", tmp_path)


@pytest.mark.tree
@pytest.mark.parametrize("lib", ["generated_lib", "model_lib"])
def test_only_the_tree_sources_the_selection_needs_are_compiled(with_tree, lib):
    listed = (with_tree / lib / "kernel_sources.txt").read_text().splitlines()
    wrappers = sorted((with_tree / lib / "kernels" / "0").iterdir())
    including = [w for w in wrappers if "#include" in w.read_text()]
    assert all("/etsb_external/executorch/kernels/portable/cpu/" in path for path in listed), listed
    assert {p.rsplit("/", 1)[1] for p in listed} == {re.sub(r"^\d+_", "", w.name) for w in including}
    assert 3 <= len(including) <= 12 < 150 < len(wrappers)
    # Only those are compiled (the model is a file when CMake configures: the selection is made then):
    # op-selective, each source itself (its compile the same in every library, which ccache shares);
    # dtype-selective, its wrapper (which includes the library's selected_op_variants.h first).
    objects = list((with_tree / "CMakeFiles" / f"{lib}_kernels_executorch_portable_kernels.dir").rglob("*.o"))
    assert sorted(re.sub(r"^\d+_", "", o.name.removesuffix(".o")) for o in objects) == \
        sorted(re.sub(r"^\d+_", "", w.name) for w in including)
    assert {"/etsb_external/executorch/kernels/portable/cpu/" in o.as_posix() for o in objects} == \
        {lib == "generated_lib"}
    assert all(o.stat().st_size > 2000 for o in objects)


@pytest.mark.tree
def test_the_dtype_selective_library_keeps_only_the_models_dtypes(with_tree):
    header = (with_tree / "model_lib" / "selected_op_variants.h").read_text()
    assert 'if (same_name(operator_name, "relu.out")) {\n    return scalar_type == ScalarType::Float;' in header


@pytest.mark.tree
def test_etsbs_kernels_merged_over_the_trees_serve_each_their_own_operators(with_tree, tmp_path):
    run_real_model(with_tree / "merged_binary", "resnet", tmp_path)
    assert_real_model_matches_torch("resnet", tmp_path)
    assert_kernels_from_ours_or_tree((with_tree / "merged_binary.map").read_text(),
                                     (with_tree / "merged_lib" / "kernel_sources.txt").read_text().splitlines(),
                                     "libmerged_lib_kernels_etsb_portable_kernels.a(",
                                     "libmerged_lib_kernels_executorch_portable_kernels.a(")


@pytest.mark.tree
def test_the_trees_optimized_kernels_merged_over_its_portable_ones(with_tree, tmp_path):
    """optimized_kernels (the tree with ETSB_TORCH_INCLUDE) and the optimized yaml
    merged over the portable one: attention runs opt_add/opt_bmm/opt_native_layer_norm
    and the portable kernels elsewhere, like torch; the left-out FFT operators are
    not in the yaml."""
    run = run_model(with_tree / "optimized_binary", "attention", tmp_path)
    assert run.returncode == 0, run.stderr
    assert_matches_torch("attention", tmp_path)
    names = symbols(with_tree / "optimized_binary")
    for kernel in ("opt_add_out", "opt_bmm_out", "opt_native_layer_norm_out", "softmax_out"):
        assert f"torch::executor::native::{kernel}(" in names, kernel
    yaml = (with_tree / "etsb_external" / "optimized" / "functions.yaml").read_text()
    assert "- op: add.out" in yaml and "_fft_r2c" not in yaml and "_fft_c2r" not in yaml


def test_without_a_tree_the_snippet_uses_etsbs_portable_kernels(tmp_path):
    out = tmp_path / "build"
    result = cmake_configure(EXAMPLE, out, f"-Detsb_DIR={CONFIG_DIR}")
    assert result.returncode == 0, result.stdout + result.stderr
    result = cmake_build(out, "executorch_binary")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "etsb_external" not in result.stdout
    run = run_model(out / "executorch_binary", "mlp", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert_matches_torch("mlp", tmp_path / "out")


PREAMBLE = "cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES CXX)\nfind_package(etsb CONFIG REQUIRED)\n"
FUNCTIONS = '${EXECUTORCH_ROOT}/kernels/portable/functions.yaml'
BAD_CALLS = {
    "no_kernel_library": (f'gen_selected_ops("" "aten::relu.out" "")\ngenerate_bindings_for_kernels({FUNCTIONS} "")\n'
                          'gen_operators_lib("generated_lib" ${_kernel_lib} executorch)',
                          "gen_operators_lib", "'generated_lib' has no kernel library"),
    "no_bindings": ('gen_selected_ops("" "aten::relu.out" "")\ngen_operators_lib("lib" portable_kernels executorch)',
                    "gen_operators_lib", "call generate_bindings_for_kernels() first"),
    "no_selection": (f'generate_bindings_for_kernels({FUNCTIONS} "")\ngen_operators_lib("lib" portable_kernels executorch)',
                     "gen_operators_lib", "call gen_selected_ops() first"),
    "selects_nothing": ('gen_selected_ops("" "" "")', "gen_selected_ops", "selects nothing"),
    "unknown_keyword": ('gen_selected_ops(LIB_NAME x ROOT_OPZ aten::relu.out)', "gen_selected_ops",
                        "unknown argument 'ROOT_OPZ'"),
    "bad_operator": ('gen_selected_ops("" "aten::relu.out,not an op" "")', "gen_selected_ops",
                     "OPS: 'not an op' is not an operator name"),
    "unknown_dep": (f'gen_selected_ops("" "aten::relu.out" "")\ngenerate_bindings_for_kernels({FUNCTIONS} "")\n'
                    'gen_operators_lib("lib" portable_kernels no_such_target)',
                    "gen_operators_lib", "DEPS names 'no_such_target', which is not a target"),
    "merge_both_forms": ('merge_yaml(NAME m FUNCTIONS_YAML a.yaml FALLBACK_YAML b.yaml OUTPUT_DIR out)', "merge_yaml",
                         "give NAME (output in the target's folder) or OUTPUT_DIR, not both"),
}


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_a_bad_seed_call_fails_the_configuration_at_its_line(case, tmp_path):
    call, function, message = BAD_CALLS[case]
    assert_call_fails_configuration(tmp_path, PREAMBLE, call, function, message, f"-Detsb_DIR={CONFIG_DIR}")


def test_an_executorch_root_that_is_no_tree_fails_the_configuration(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(PREAMBLE)
    result = cmake_configure(source, tmp_path / "build", f"-Detsb_DIR={CONFIG_DIR}", f"-DEXECUTORCH_ROOT={tmp_path}")
    assert result.returncode != 0
    assert f"EXECUTORCH_ROOT '{tmp_path}' is not an ExecuTorch source tree" in " ".join(result.stderr.split())


def test_etsb_cmakedir_names_the_folder_find_package_reads():
    result = etsb("--cmakedir")
    assert result.returncode == 0 and Path(result.stdout.strip()) == CONFIG_DIR, result
    assert (CONFIG_DIR / "etsbConfig.cmake").is_file() and (CONFIG_DIR / "etsbConfigVersion.cmake").is_file()


@pytest.mark.tree
def test_the_snippet_with_the_tree_builds_with_makefiles_too(tmp_path):
    """The wrappers that select the tree's sources are ordinary generated
    sources: CMake's Makefile generator builds them as Ninja does."""
    out = tmp_path / "build"
    result = cmake("-G", "Unix Makefiles", "-S", EXAMPLE, "-B", out, f"-Detsb_DIR={CONFIG_DIR}",
                   f"-DEXECUTORCH_ROOT={TREE}")
    assert result.returncode == 0, result.stdout + result.stderr
    result = cmake_build(out, "executorch_binary")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    run = run_model(out / "executorch_binary", "mlp", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert_matches_torch("mlp", tmp_path / "out")
