"""etsb from a Bazel project of its own under Bazel 4 (Debian's 4.2.3, WORKSPACE):
examples/bazel_consumer, built on an output base of its own (so not in
test_bazel.py's process group: conftest.py's GROUPS); test_bazel7.py builds
the same project as a bazel_dep under Bazel 7."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from conftest import REPO, TREE
from bazel_options import BAZEL_JVM
from helpers import BAZEL_BUILD, Bazel

pytestmark = pytest.mark.build

CONSUMER = REPO / "examples" / "bazel_consumer"


def test_a_project_of_its_own_builds_with_etsb_as_a_local_repository(tmp_path):
    """examples/bazel_consumer's WORKSPACE names etsb with local_repository; its
    BUILD file loads @etsb//rules:executorch.bzl, whose labels (Label(...))
    still reach etsb's tools, runtime and kernels from there; and the
    registration docs' Buck2 snippet (buck2_style/, with a load line) builds
    with cxx_library and cxx_binary mapped to cc_library and cc_binary."""
    bazel = Bazel(tmp_path / "output_base")
    try:
        result = subprocess.run([bazel.binary, f"--output_base={bazel.output_base}", *BAZEL_JVM,
                                 "--max_idle_secs=60", "build", *BAZEL_BUILD, "//:bin", "//buck2_style:executorch_bin"],
                                cwd=CONSUMER,
                                capture_output=True, text=True, timeout=1200)
        assert result.returncode == 0, result.stderr[-5000:]
        binary = next((bazel.output_base / "execroot" / "etsb_consumer").glob("bazel-out/*/bin/bin"))
        run = subprocess.run([str(binary), "--model", str(CONSUMER / "model.pte"), "--inputs",
                              str(REPO / "tests/models/cnn/forward.input_0.npy"), "--output-dir", str(tmp_path / "out")],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        np.testing.assert_allclose(np.load(tmp_path / "out" / "output_0.npy"),
                                   np.load(REPO / "tests/models/cnn/forward.output_0.npy"), rtol=1e-5, atol=1e-6)
        snippet = binary.parent / "buck2_style" / "executorch_bin"
        kernels = subprocess.run([str(snippet), "--list-kernels"], capture_output=True, text=True, check=True)
        assert [k for k in kernels.stdout.split() if not k.startswith("executorch_prim::")
                and k not in ("aten::sym_size.int", "aten::sym_numel", "aten::_local_scalar_dense")] == ["aten::add.out"]
    finally:
        subprocess.run([bazel.binary, f"--output_base={bazel.output_base}", "clean", "--expunge"], cwd=CONSUMER,
                       capture_output=True, timeout=300)


def test_a_relative_executorch_root_is_the_callers_not_etsbs(tmp_path):
    """etsb_repositories(executorch_root = "third_party/executorch") in a
    project's WORKSPACE.bazel names the tree under that project, wherever
    Bazel runs in it (here from a subfolder): @executorch's packages load.
    (It was once taken relative to etsb's repository.)"""
    project = tmp_path / "project"
    (project / "third_party").mkdir(parents=True)
    (project / "third_party" / "executorch").symlink_to(TREE)
    (project / "sub").mkdir()
    (project / "BUILD").write_text("")
    (project / "sub" / "BUILD").write_text("")
    (project / "WORKSPACE.bazel").write_text(
        f'workspace(name = "project")\nlocal_repository(name = "etsb", path = "{REPO}")\n'
        'load("@etsb//bazel:repositories.bzl", "etsb_repositories")\n'
        'etsb_repositories(executorch_root = "third_party/executorch")\n')
    bazel = Bazel(tmp_path / "output_base")
    startup = [bazel.binary, f"--output_base={bazel.output_base}", *BAZEL_JVM, "--max_idle_secs=60"]
    try:
        result = subprocess.run([*startup, "query", "@executorch//kernels/portable:all"], cwd=project / "sub",
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr[-3000:]
        assert "@executorch//kernels/portable:kernels\n" in result.stdout
    finally:
        subprocess.run([*startup, "clean", "--expunge"], cwd=project, capture_output=True, timeout=300)
