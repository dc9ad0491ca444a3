"""etsb as users get it: a wheel built from the checkout, installed into a
fresh virtual environment beside the executorch wheel, and used from a
workspace outside the checkout, by the driver (`@etsb//` loads) and by CMake
(`find_package(etsb)`); the wheel carries everything etsb needs at run time,
and builds its BUILD file evaluator on first use."""

from __future__ import annotations

import os
import zipfile

import pytest

from conftest import MODELS_DIR, REPO
from helpers import assert_matches_torch, cmake_build, cmake_configure, run_model
from selective_build.driver.layout import ninja_file
from selective_build.driver.platforms import output_dir

pytestmark = pytest.mark.build


def test_the_wheel_carries_what_etsb_needs_at_run_time(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for part in ("rules/executorch.bzl", "rules/private/shim.bzl", "rules/cmake/etsbConfig.cmake",
                 "rules/cmake/toolchains/aarch64-linux-gnu.cmake",
                 "rules/executorch_tree/kernels/portable/BUILD.overlay", "rules/executorch_tree/BUILD.overlay",
                 "kernels/portable/functions.yaml",
                 "kernels/portable/cpu/op_add.cpp", "kernels/quantized/quantized.yaml",
                 "kernels/quantized/cpu/op_quantize.cpp", "rules/executorch_tree/kernels/quantized/BUILD.overlay",
                 "runtime/BUILD", "tools/runner/runner.cpp",
                 "platforms/cortex_m/BUILD", "platforms/cortex_m/an547.ld", "platforms/cortex_m/startup.cpp",
                 "tools/starlark/main.go", "tools/selective_build/BUILD", "tools/selective_build/__main__.py",
                 "tools/selective_build/data/aten_ops.yaml"):
        assert f"selective_build/_root/{part}" in names, part
    # Package data the driver reads beside its modules: the ATen schemas, the dyndep program.
    assert {"selective_build/data/aten_ops.yaml", "selective_build/driver/dyndep.awk"} <= names
    assert not [n for n in names if "__pycache__" in n or "/fuzz/" in n or n.startswith("tests/")]


def test_doctor_finds_every_part_in_the_installed_package(installed, tmp_path):
    result = installed.etsb("doctor", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"ok       etsb's files: {installed.venv}" in result.stdout, result.stdout
    assert "built on first use" in result.stdout or "etsb-starlark" in result.stdout


def test_a_two_line_build_file_outside_the_checkout_builds_a_binary_that_matches_torch(installed, tmp_path):
    workspace = tmp_path / "ws"
    (workspace / "app").mkdir(parents=True)
    (workspace / "MODULE.bazel").write_text("")
    (workspace / "app" / "mlp.pte").write_bytes((MODELS_DIR / "mlp" / "mlp.pte").read_bytes())
    (workspace / "app" / "BUILD").write_text('load("@etsb//rules:executorch.bzl", "et_model_binary")\n'
                                             'et_model_binary(name = "bin", model = "mlp.pte")\n')
    result = installed.etsb("build", "//app:bin", cwd=workspace)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    run = run_model(workspace / "etsb-out" / "bin" / "app" / "bin", "mlp", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert_matches_torch("mlp", tmp_path / "out")
    # Everything came from the installed package, nothing from this checkout.
    assert str(REPO) not in (workspace / ninja_file(output_dir({}))).read_text()
    assert os.readlink(workspace / "etsb-out" / "external" / "etsb").startswith(str(installed.venv))


def test_find_package_from_the_installed_package_builds_the_seeds_snippet(installed, tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "mlp.pte").write_bytes((MODELS_DIR / "mlp" / "mlp.pte").read_bytes())
    (source / "CMakeLists.txt").write_text("""\
cmake_minimum_required(VERSION 3.20)
project(app LANGUAGES CXX)
find_package(etsb CONFIG REQUIRED)
et_model_binary(NAME bin MODEL mlp.pte)
gen_selected_ops("" "aten::addmm.out,aten::relu.out,aten::permute_copy.out" "")
generate_bindings_for_kernels(${EXECUTORCH_ROOT}/kernels/portable/functions.yaml "")
gen_operators_lib("generated_lib" portable_kernels executorch)
add_executable(executorch_binary ${ETSB_RUNNER_SOURCE})
target_link_libraries(executorch_binary generated_lib)
""")
    cmakedir = installed.etsb("--cmakedir", cwd=tmp_path).stdout.strip()
    assert cmakedir.startswith(str(installed.venv)), cmakedir
    build = tmp_path / "build"
    result = cmake_configure(source, build, f"-Detsb_DIR={cmakedir}")
    assert result.returncode == 0, result.stdout + result.stderr
    # The Python it runs etsb with is the installed one's.
    assert f"ETSB_PYTHON:FILEPATH={installed.venv}/bin/python" in (build / "CMakeCache.txt").read_text()
    result = cmake_build(build)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for binary in ("bin", "executorch_binary"):
        run = run_model(build / binary, "mlp", tmp_path / binary)
        assert run.returncode == 0, run.stderr
        assert_matches_torch("mlp", tmp_path / binary)


def test_without_go_the_first_build_says_what_to_install(installed, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MODULE.bazel").write_text("")
    (workspace / "BUILD").write_text("")
    result = installed.etsb("query", "//...", cwd=workspace, PATH=str(installed.venv / "bin"),
                            XDG_CACHE_HOME=str(tmp_path / "empty_cache"))
    assert result.returncode == 2, result.stdout + result.stderr
    assert ("etsb's BUILD file evaluator is not built yet, and there is no Go toolchain to build it: "
            "apt install golang-go golang-starlark-dev") in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
