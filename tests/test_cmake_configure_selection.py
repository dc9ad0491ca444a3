"""The selection made when CMake configures (rules/private/etsb_configure_selection.cmake).

A model file that exists when configuring is selected then: a generated
library compiles only the kernel sources its kernels need (not an empty
wrapper for every other source) and links no kernel library it needs nothing
of, so CMSIS-NN is compiled only for a program choosing a cortex_m:: kernel.
An edited model configures again; a model the build makes, or one that is
bad when configuring, leaves the selection to the build, as before.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, REPO, TREE
from helpers import assert_matches_torch, cmake_build, cmake_configure, method_meta

pytestmark = pytest.mark.build

RULES = REPO / "rules" / "etsb.cmake"
PROJECT = """cmake_minimum_required(VERSION 3.20)
project(app LANGUAGES CXX)
include({rules})
{model_rule}
et_model_binary(NAME bin MODEL {model})
"""
# A model the build makes: copied from the source folder by a custom command.
MADE_BY_THE_BUILD = """add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/model.pte
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_SOURCE_DIR}/source.pte ${CMAKE_CURRENT_BINARY_DIR}/model.pte
  DEPENDS source.pte)"""


def project(tmp_path: Path, model: str, made_by_the_build: bool = False) -> Path:
    """A project building `bin` for a copy of the corpus' ``model`` (model.pte or, made by the build, source.pte)."""
    source = tmp_path / "src"
    source.mkdir()
    shutil.copy(MODELS_DIR / model / f"{model}.pte", source / ("source.pte" if made_by_the_build else "model.pte"))
    (source / "CMakeLists.txt").write_text(PROJECT.format(
        rules=RULES, model_rule=MADE_BY_THE_BUILD if made_by_the_build else "",
        model="${CMAKE_CURRENT_BINARY_DIR}/model.pte" if made_by_the_build else "model.pte"))
    return source


def kernel_objects(result: subprocess.CompletedProcess) -> list[str]:
    """The kernel sources a build compiled for `bin`'s library: each source
    itself when the selection was made when configuring, else its wrapper
    (`bin_lib/kernels/<library>/<n>_<source>`), named `wrapper <library>/<n>_<source>`."""
    objects = re.findall(r"Building CXX object CMakeFiles/bin_lib_kernels_\w+\.dir/(\S+)\.o\b", result.stdout)
    return sorted(re.sub(r"^bin_lib/kernels/(?=\d+/\d+_)", "wrapper ", o) if o.startswith("bin_lib/kernels/")
                  else o.rsplit("/", 1)[1] for o in objects)


def assert_runs(build_dir: Path, model_file: Path, model: str, tmp_path: Path) -> None:
    """`bin` runs ``model_file`` (the corpus' ``model``) on its inputs and matches torch."""
    out = tmp_path / f"out_{model}"
    inputs = ",".join(str(MODELS_DIR / model / i["file"]) for i in method_meta(model)["inputs"])
    run = subprocess.run([str(build_dir / "bin"), "--model", str(model_file), "--inputs", inputs,
                          "--output-dir", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert_matches_torch(model, out)


def test_only_the_needed_sources_compile_and_an_edited_model_configures_again(tmp_path):
    source, build_dir = project(tmp_path, "mlp"), tmp_path / "build"
    assert cmake_configure(source, build_dir).returncode == 0
    first = cmake_build(build_dir, "bin")
    assert first.returncode == 0, first.stdout + first.stderr
    assert kernel_objects(first) == sorted(["op_addmm.cpp", "op_permute_copy.cpp", "op_relu.cpp"])
    assert_runs(build_dir, source / "model.pte", "mlp", tmp_path)
    assert "ninja: no work to do." in cmake_build(build_dir, "bin").stdout

    # Another program in its place: CMake configures again and compiles what it needs.
    shutil.copy(MODELS_DIR / "cnn" / "cnn.pte", source / "model.pte")
    second = cmake_build(build_dir, "bin")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Re-running CMake" in second.stdout
    assert kernel_objects(second) == sorted(["op_convolution.cpp", "op_max_pool2d_with_indices.cpp"])
    assert_runs(build_dir, source / "model.pte", "cnn", tmp_path)


def test_a_bad_model_when_configuring_is_reported_by_the_build_and_a_mended_one_selected(tmp_path):
    source, build_dir = project(tmp_path, "mlp"), tmp_path / "build"
    (source / "model.pte").write_bytes(b"not a program")
    configured = cmake_configure(source, build_dir)
    assert configured.returncode == 0, configured.stdout + configured.stderr
    failed = cmake_build(build_dir, "bin")
    assert failed.returncode != 0
    assert "model.pte: error: not a .pte file" in failed.stdout + failed.stderr
    assert "CMake Error" not in failed.stdout + failed.stderr

    shutil.copy(MODELS_DIR / "mlp" / "mlp.pte", source / "model.pte")
    mended = cmake_build(build_dir, "bin")
    assert mended.returncode == 0, mended.stdout + mended.stderr
    assert "Re-running CMake" in mended.stdout
    assert len(kernel_objects(mended)) == 3, kernel_objects(mended)
    assert_runs(build_dir, source / "model.pte", "mlp", tmp_path)


def test_a_model_the_build_makes_is_selected_when_building(tmp_path):
    source, build_dir = project(tmp_path, "mlp", made_by_the_build=True), tmp_path / "build"
    assert cmake_configure(source, build_dir).returncode == 0
    built = cmake_build(build_dir, "bin")
    assert built.returncode == 0, built.stdout + built.stderr
    # Every source of etsb's kernel libraries gets its wrapper: the selection is not known yet.
    wrappers = kernel_objects(built)
    assert len(wrappers) > 100 and all(w.startswith("wrapper ") for w in wrappers), wrappers[:5]
    assert_runs(build_dir, build_dir / "model.pte", "mlp", tmp_path)


@pytest.mark.tree
def test_a_float_model_compiles_neither_the_cortex_m_kernels_nor_cmsis_nn(tmp_path):
    source, build_dir = project(tmp_path, "mlp"), tmp_path / "build"
    configured = cmake_configure(source, build_dir, f"-DEXECUTORCH_ROOT={TREE}")
    assert configured.returncode == 0, configured.stdout + configured.stderr
    assert "no executorch_cortex_m_kernels" not in configured.stdout  # the catalogue holds them
    built = cmake_build(build_dir, "bin")
    assert built.returncode == 0, built.stdout + built.stderr
    assert "etsb_cmsis_nn" not in built.stdout and "kernels_executorch_cortex_m_kernels" not in built.stdout
    assert len(kernel_objects(built)) == 3, kernel_objects(built)
    assert_runs(build_dir, source / "model.pte", "mlp", tmp_path)
