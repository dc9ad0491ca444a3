"""Prim ops selected as operators are (ExecuTorch's `include_all_prim_ops = False`).

ExecuTorch's own prim-op example (`examples/selective_build/targets.bzl`,
`define_selective_build_prim_ops_example`) names prim ops in operator lists
(`executorch_prim::et_view.default`, `aten::sym_size.int`,
`executorch_prim::mul.Scalar`) beside ATen operators; its macro registers
those prim ops alone. Here the same shape, built by etsb's driver against the
runtime compiled from the ExecuTorch tree, and each binary's `--list-kernels`
read: the kernels of its ATen operators, and the prim ops it named (all of
them when it named none, or kept every one)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import TREE
from helpers import etsb, new_workspace

pytestmark = [pytest.mark.build, pytest.mark.tree]

BUILD = '''load("//rules:executorch.bzl", "et_operator_library", "etsb_cxx_binary", "executorch_generated_lib")

et_operator_library(
    name = "model_a_ops",
    ops = [
        "aten::add.out",
        "aten::mul.out",
        "executorch_prim::et_view.default",
        "aten::sym_size.int",
    ],
)

et_operator_library(
    name = "extra_prim_ops",
    ops = [
        "executorch_prim::mul.Scalar",
        "executorch_prim::sym_max.Scalar",
    ],
)

et_operator_library(
    name = "no_prim_ops",
    ops = ["aten::add.out"],
)

[executorch_generated_lib(
    name = name + "_lib",
    deps = deps,
    functions_yaml_target = "//kernels/portable:functions.yaml",
    include_all_prim_ops = include_all_prim_ops,
    kernel_deps = ["//kernels/portable:kernels"],
    manual_registration = True,
    model_entry = True,
    runtime = "static",
) for name, deps, include_all_prim_ops in (
    ("selected", [":model_a_ops", ":extra_prim_ops"], False),
    ("none_named", [":no_prim_ops"], False),
    ("all", [":model_a_ops"], True),
)]

[etsb_cxx_binary(
    name = name,
    deps = ["//tools/runner:runner_tree", ":%s_lib" % name, runtime],
) for name, runtime in (
    ("selected", "@executorch//:runtime_without_prim_ops"),
    ("none_named", "@executorch//:runtime_without_prim_ops"),
    ("all", "@executorch//:runtime"),
)]
'''

# Every prim op ExecuTorch's runtime registers (its register_prim_ops.cpp).
SELECTED_PRIM_OPS = ["aten::sym_size.int", "executorch_prim::et_view.default", "executorch_prim::mul.Scalar",
                     "executorch_prim::sym_max.Scalar"]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = new_workspace(tmp_path_factory.mktemp("prim") / "ws")
    (root / "app").mkdir()
    (root / "app" / "BUILD").write_text(BUILD)
    result = etsb("build", "--executorch-root", str(TREE), "//app:selected", "//app:none_named", "//app:all",
                  cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def registered(workspace: Path, name: str) -> list[str]:
    run = subprocess.run([str(workspace / "etsb-out" / "bin" / "app" / name), "--list-kernels"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return sorted(run.stdout.split())


def test_only_the_prim_ops_named_are_registered(workspace):
    assert registered(workspace, "selected") == sorted(["aten::add.out", "aten::mul.out", *SELECTED_PRIM_OPS])
    header = (workspace / "etsb-out" / "bin" / "app" / "selected_lib" / "selected_prim_ops.h").read_text()
    assert "#define INCLUDE_EXECUTORCH_PRIM_MUL_SCALAR" in header


def test_a_selection_naming_none_keeps_every_prim_op_as_executorch_does(workspace):
    everything = registered(workspace, "all")
    prim_ops = [name for name in everything if name not in ("aten::add.out", "aten::mul.out")]
    assert len(prim_ops) > len(SELECTED_PRIM_OPS) and set(SELECTED_PRIM_OPS) <= set(prim_ops)
    assert registered(workspace, "none_named") == sorted(["aten::add.out", *prim_ops])
