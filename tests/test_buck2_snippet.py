"""The kernel registration docs' Buck2 example (examples/buck2_snippet: the
snippet as pasted, with its add.cpp kernel and functions.yaml) under etsb's
driver: its prelude (rules/prelude.bzl) gives the BUILD file `export_file`,
`cxx_library`, `cxx_binary` and etsb's rules without a load;
executorch_generated_lib takes the kernel library among its `deps`; the
source-less `cxx_binary` gets etsb's runner as its main, and the binary
registers exactly the yaml's operator (beside the runtime's own prim ops)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from helpers import etsb, new_workspace

pytestmark = pytest.mark.build

SNIPPET = REPO / "examples" / "buck2_snippet"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """The example's package, and beside it a source-less binary with no
    generated library: what the runtime registers by itself."""
    root = new_workspace(tmp_path_factory.mktemp("buck2") / "ws")
    shutil.copytree(SNIPPET, root / "app")
    (root / "runtime_only").mkdir()
    (root / "runtime_only" / "BUILD").write_text('cxx_binary(name = "bin")\n')
    result = etsb("build", "//app:executorch_bin", "//runtime_only:bin", cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def registered(binary: Path) -> list[str]:
    run = subprocess.run([str(binary), "--list-kernels"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


def test_the_snippet_registers_exactly_its_yamls_operator(workspace):
    ours = registered(workspace / "etsb-out" / "bin" / "app" / "executorch_bin")
    runtime = registered(workspace / "etsb-out" / "bin" / "runtime_only" / "bin")
    assert runtime and all(name in ours for name in runtime)
    assert [name for name in ours if name not in runtime] == ["aten::add.out"]


def test_the_kernel_library_in_deps_is_linked_not_selected(workspace):
    """add_kernel went to the link (its add_out is in the binary), all_ops to the selection."""
    symbols = subprocess.run(["nm", "-C", str(workspace / "etsb-out" / "bin" / "app" / "executorch_bin")],
                             capture_output=True, text=True, check=True).stdout
    assert "custom::native::add_out(" in symbols
    selection = (workspace / "etsb-out" / "bin" / "app" / "generated_lib_selected_operators" /
                 "selected_operators.yaml").read_text()
    assert "include_all_operators: true" in selection


def test_a_plain_library_cannot_be_recompiled_for_dtypes(workspace):
    package = workspace / "bad"
    package.mkdir(exist_ok=True)
    shutil.copy(SNIPPET / "add.cpp", package)
    shutil.copy(SNIPPET / "functions.yaml", package)
    (package / "BUILD").write_text(
        'cxx_library(name = "add_kernel", srcs = ["add.cpp"])\n'
        'et_operator_library(name = "ops", ops = ["aten::add.out"])\n'
        'executorch_generated_lib(name = "lib", functions_yaml_target = "functions.yaml", '
        'deps = [":ops", ":add_kernel"], dtype_selective_build = True)\n')
    result = etsb("build", "//bad:lib", cwd=workspace)
    assert result.returncode != 0
    assert "bad/BUILD:3" in result.stderr, result.stderr
    assert ("dtype_selective_build recompiles the kernels, which it cannot do for :add_kernel: make it an "
            "et_kernel_library") in result.stderr, result.stderr
