"""The int8-quantized models (tests/models/quantized) under Bazel 4, on the
shared output base of test_bazel.py (conftest.py's bazel_examples): with
etsb's quantized kernels beside its portable ones, and with the tree's
through the overlay's @executorch//kernels/quantized; each run must match the
quantized torch module within one quantization step, as the driver's and
CMake's builds of test_quantized.py must (a file of its own so that those,
which need no Bazel, run in a process of their own: conftest.py's GROUPS)."""

from __future__ import annotations

import pytest

from helpers import BAZEL_BUILD
from test_quantized import UNDELEGATED, assert_within_one_step

pytestmark = pytest.mark.build


def test_bazel_builds_the_undelegated_models_with_etsbs_quantized_kernels(bazel_examples, tmp_path):
    result = bazel_examples.bazel("build", *BAZEL_BUILD, *(f"//examples/quantized:{m}" for m in UNDELEGATED))
    assert result.returncode == 0, result.stderr[-5000:]
    for model in UNDELEGATED:
        assert_within_one_step(bazel_examples.out / "quantized" / model, model, tmp_path / model)


@pytest.mark.tree
def test_bazel_builds_the_static_cnn_with_the_trees_quantized_kernels(bazel_examples, tmp_path):
    """//examples/quantized_tree under Bazel: the overlay's @executorch//kernels/quantized, as in the driver."""
    result = bazel_examples.bazel("build", *BAZEL_BUILD, "//examples/quantized_tree:cnn_int8")
    assert result.returncode == 0, result.stderr[-5000:]
    assert_within_one_step(bazel_examples.out / "quantized_tree" / "cnn_int8", "cnn_int8", tmp_path)
