"""ExecuTorch's own selective-build call sites built by etsb's driver.

`examples/selective_build/targets.bzl` of the ExecuTorch tree, its two loads
changed to etsb's and nothing else (tests/macros_helpers.py's
`executorch_targets_bzl`), in a package whose BUILD file calls
`define_common_targets()` as ExecuTorch's BUCK file does. ExecuTorch's labels
are mapped to etsb's by packages at ExecuTorch's paths:
`//executorch/kernels/portable` holds etsb's portable kernels (its
`functions.yaml`, and the library as `operators`), and
`//executorch/examples/portable/executor_runner:executor_runner_lib` is empty
(a source-less `cxx_binary` gets etsb's runner as its `main`). Binaries beside
the call sites link its libraries; each registers what ExecuTorch's macros
would: the operators selected, and ExecuTorch's prim ops (all of them, from the
runtime, unless a library selects them)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import TREE
from helpers import etsb, new_workspace
from macros_helpers import executorch_targets_bzl

pytestmark = [pytest.mark.build, pytest.mark.tree]

PACKAGE = "executorch/examples/selective_build"
BUILD = '''load(":targets.bzl", "define_common_targets")

define_common_targets()

cxx_binary(
    name = "list_bin",
    deps = [":select_ops_in_list_lib"],
)

cxx_binary(
    name = "dict_bin",
    deps = [":select_ops_in_dict_lib"],
)
'''


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = new_workspace(tmp_path_factory.mktemp("etcalls") / "ws")
    portable = root / "executorch" / "kernels" / "portable"
    shutil.copytree(root / "kernels" / "portable", portable)
    text = (portable / "BUILD").read_text()
    assert text.count('name = "kernels"') == 1
    (portable / "BUILD").write_text(text.replace('name = "kernels"', 'name = "operators"'))
    runner = root / "executorch" / "examples" / "portable" / "executor_runner"
    runner.mkdir(parents=True)
    (runner / "BUILD").write_text('cxx_library(name = "executor_runner_lib")\n')
    (root / PACKAGE).mkdir(parents=True)
    (root / PACKAGE / "targets.bzl").write_text(executorch_targets_bzl())
    (root / PACKAGE / "BUILD").write_text(BUILD)
    result = etsb("build", "--executorch-root", str(TREE), f"//{PACKAGE}:list_bin", f"//{PACKAGE}:dict_bin",
                  f"//{PACKAGE}:library_with_combined_prim_ops", f"//{PACKAGE}:library_with_combined_prim_ops_2",
                  cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def registered(workspace: Path, name: str) -> list[str]:
    run = subprocess.run([str(workspace / "etsb-out" / "bin" / PACKAGE / name), "--list-kernels"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


@pytest.mark.parametrize("binary", ["list_bin", "dict_bin"])
def test_the_call_sites_binaries_register_the_selected_operators_and_every_prim_op(workspace, binary):
    names = registered(workspace, binary)
    operators = sorted({name for name in names if name.endswith(".out")})
    assert operators == ["aten::add.out", "aten::mm.out"]
    # The wheel's runtime registers ExecuTorch's prim ops itself, as its prim-op registry does.
    assert {"executorch_prim::et_view.default", "aten::sym_size.int"} <= set(names)


def test_the_prim_op_libraries_compile_only_the_prim_ops_they_name(workspace):
    """library_with_combined_prim_ops names four prim ops (one, aten::sym_numel.int, is no
    prim op ExecuTorch's registry has), library_with_combined_prim_ops_2 none: all of them."""
    out = workspace / "etsb-out" / "bin" / PACKAGE
    header = (out / "library_with_combined_prim_ops" / "selected_prim_ops.h").read_text()
    assert [line.split()[1] for line in header.splitlines() if line.startswith("#define INCLUDE_")] == [
        "INCLUDE_ATEN_SYM_NUMEL_INT", "INCLUDE_ATEN_SYM_SIZE_INT", "INCLUDE_EXECUTORCH_PRIM_ADD_SCALAR",
        "INCLUDE_EXECUTORCH_PRIM_ET_VIEW_DEFAULT", "INCLUDE_EXECUTORCH_PRIM_MUL_SCALAR",
        "INCLUDE_EXECUTORCH_PRIM_SYM_MAX_SCALAR"]
    assert "INCLUDE_" not in (out / "library_with_combined_prim_ops_2" / "selected_prim_ops.h").read_text()
