"""Prim ops selected as operators are, from CMake: `executorch_generated_lib(...
INCLUDE_ALL_PRIM_OPS OFF)` (ExecuTorch's `include_all_prim_ops = False`).

The shape of tests/test_prim_op_selection.py (the driver's), as a CMake
project on the ExecuTorch tree: operator lists naming prim ops beside ATen
operators, three generated libraries (the prim ops named, none named, every
one kept), each linked into etsb's runner with the tree's runtime (without its
prim ops, or with them), and each binary's `--list-kernels` read. A call the
rules cannot serve (the wheel's runtime, no tree, a value that is no switch)
fails the configuration at its line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import REPO, TREE
from helpers import assert_call_fails_configuration, cmake, cmake_configure

RULES = REPO / "rules" / "etsb.cmake"

PROJECT = f'''cmake_minimum_required(VERSION 3.20)
project(prim LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
include({RULES})
et_executorch_tree(ROOT {TREE})

et_operator_library(NAME model_a_ops OPS aten::add.out aten::mul.out executorch_prim::et_view.default
                    aten::sym_size.int)
et_operator_library(NAME extra_prim_ops OPS executorch_prim::mul.Scalar executorch_prim::sym_max.Scalar)
et_operator_library(NAME no_prim_ops OPS aten::add.out)

executorch_generated_lib(NAME selected_lib DEPS model_a_ops extra_prim_ops INCLUDE_ALL_PRIM_OPS OFF
  FUNCTIONS_YAML_TARGET ${{ETSB_PORTABLE_FUNCTIONS_YAML}} KERNEL_DEPS etsb_portable_kernels
  MANUAL_REGISTRATION MODEL_ENTRY)
executorch_generated_lib(NAME none_named_lib DEPS no_prim_ops INCLUDE_ALL_PRIM_OPS OFF RUNTIME static
  FUNCTIONS_YAML_TARGET ${{ETSB_PORTABLE_FUNCTIONS_YAML}} KERNEL_DEPS etsb_portable_kernels
  MANUAL_REGISTRATION MODEL_ENTRY)
executorch_generated_lib(NAME every_lib DEPS model_a_ops INCLUDE_ALL_PRIM_OPS ON RUNTIME static
  FUNCTIONS_YAML_TARGET ${{ETSB_PORTABLE_FUNCTIONS_YAML}} KERNEL_DEPS etsb_portable_kernels
  MANUAL_REGISTRATION MODEL_ENTRY)

foreach(entry "selected;etsb_tree_runtime_without_prim_ops" "none_named;etsb_tree_runtime_without_prim_ops"
              "every;etsb_tree_runtime")
  list(POP_FRONT entry binary runtime)
  add_executable(${{binary}} ${{ETSB_RUNNER_SOURCE}})
  target_compile_definitions(${{binary}} PRIVATE ETSB_MODEL_ENTRY)
  target_link_libraries(${{binary}} PRIVATE ${{binary}}_lib ${{runtime}})
endforeach()
'''

# The prim ops the selected library's operator lists name.
SELECTED_PRIM_OPS = ["aten::sym_size.int", "executorch_prim::et_view.default", "executorch_prim::mul.Scalar",
                     "executorch_prim::sym_max.Scalar"]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cmake_prim")
    (root / "src").mkdir()
    (root / "src" / "CMakeLists.txt").write_text(PROJECT)
    build = root / "build"
    result = cmake_configure(root / "src", build)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    result = cmake("--build", build, "-j", "1")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return build


def registered(build: Path, name: str) -> list[str]:
    run = subprocess.run([str(build / name), "--list-kernels"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return sorted(run.stdout.split())


@pytest.mark.build
@pytest.mark.tree
def test_only_the_prim_ops_named_are_registered(project):
    assert registered(project, "selected") == sorted(["aten::add.out", "aten::mul.out", *SELECTED_PRIM_OPS])
    header = (project / "selected_lib" / "selected_prim_ops.h").read_text()
    assert "#define INCLUDE_EXECUTORCH_PRIM_MUL_SCALAR" in header


@pytest.mark.build
@pytest.mark.tree
def test_a_selection_naming_none_keeps_every_prim_op_as_executorch_does(project):
    everything = registered(project, "every")
    prim_ops = [name for name in everything if name not in ("aten::add.out", "aten::mul.out")]
    assert len(prim_ops) > len(SELECTED_PRIM_OPS) and set(SELECTED_PRIM_OPS) <= set(prim_ops)
    assert registered(project, "none_named") == sorted(["aten::add.out", *prim_ops])
    assert not (project / "every_lib" / "selected_prim_ops.h").exists()


PREAMBLE = f"cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES CXX)\ninclude({RULES})\n"
LIB = "executorch_generated_lib(NAME lib FUNCTIONS_YAML_TARGET k.yaml KERNEL_DEPS etsb_portable_kernels "
BAD_CALLS = {
    "shared_runtime": (f"et_executorch_tree(ROOT {TREE})\n" + LIB + "INCLUDE_ALL_PRIM_OPS OFF RUNTIME shared)",
                       "executorch_generated_lib 'lib': INCLUDE_ALL_PRIM_OPS OFF registers only the selected prim "
                       "ops, which the wheel's runtime (RUNTIME shared) cannot: it registers every prim op itself "
                       "when it loads. Give RUNTIME static"),
    "no_tree": (LIB + "INCLUDE_ALL_PRIM_OPS OFF)",
                "executorch_generated_lib 'lib': INCLUDE_ALL_PRIM_OPS OFF compiles ExecuTorch's prim ops and "
                "runtime from an ExecuTorch source tree, and this build has none"),
    "not_a_switch": (LIB + "INCLUDE_ALL_PRIM_OPS some)",
                     "executorch_generated_lib 'lib': INCLUDE_ALL_PRIM_OPS must be ON (every prim op) or OFF "
                     "(only those the selection names), not 'some'"),
}


@pytest.mark.build
@pytest.mark.tree
@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_a_prim_op_selection_that_cannot_be_built_fails_at_its_line(case, tmp_path, monkeypatch):
    monkeypatch.delenv("EXECUTORCH_ROOT", raising=False)
    call, message = BAD_CALLS[case]
    source = tmp_path / "src"
    source.mkdir()
    (source / "k.yaml").write_text("")
    assert_call_fails_configuration(tmp_path, PREAMBLE, call, "executorch_generated_lib", message)
