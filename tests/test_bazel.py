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

from pathlib import Path

from helpers import BAZEL_BUILD

MLP = "mlp"


def test_the_chosen_dtype_selective_binary_has_the_runtime_beside_it(bazel_examples):
    """pick-smaller copies the chosen binary one directory down, without link
    maps under Bazel, and libexecutorch.so beside it (test_front_ends.py runs
    the directory from elsewhere)."""
    binary = bazel_examples.binary("dtype_selective")
    assert sorted(p.name for p in binary.parent.iterdir()) == sorted([binary.name, "libexecutorch.so"])


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
