"""Real architectures (tests/models/real: torchvision and timm networks with
reduced widths, LSTM, GRU, a BERT-like encoder, a GPT-like decoder, a 1-D
conv audio net; random weights) built by etsb's driver from
examples/real_models/BUILD with ExecuTorch's own portable kernels from the
workspace's ExecuTorch tree (.etsbrc names the snapshot), again with
etsb's portable kernels merged over them, and again with etsb's kernels
alone; run, and compared with torch's outputs recorded at export time."""

from __future__ import annotations

import subprocess

import pytest

from conftest import REPO
from helpers import REAL_MANIFEST as MANIFEST
from helpers import (assert_kernels_from_ours_or_tree, assert_real_model_matches_torch, etsb, run_real_model,
                     stripped_size)

pytestmark = pytest.mark.build

OUT = REPO / "etsb-out" / "bin" / "examples" / "real_models"
# The ones examples/real_models/BUILD builds by pattern (the others only when named).
DTYPE_SELECTIVE = ("bert_encoder", "resnet")


@pytest.fixture(scope="module")
def built() -> subprocess.CompletedProcess:
    result = etsb("build", "//examples/real_models/...")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_the_corpus_has_a_dozen_architectures_or_more():
    assert len(MANIFEST) >= 12


@pytest.mark.tree
@pytest.mark.parametrize("model", sorted(MANIFEST))
def test_each_real_model_runs_in_its_trimmed_binary_and_matches_torch(built, model, tmp_path):
    run_real_model(OUT / model, model, tmp_path)
    assert_real_model_matches_torch(model, tmp_path)
    # Only the sources the model's kernels need were compiled into its kernel archive.
    listed = (OUT / f"{model}_lib" / "kernel_sources.txt").read_text().splitlines()
    members = (OUT / f"lib{model}_lib_kernels.a.objects").read_text().splitlines()
    assert 0 < len(listed) == len(members) < 80


@pytest.mark.tree
@pytest.mark.parametrize("model", DTYPE_SELECTIVE)
def test_the_dtype_selective_binary_runs_and_is_never_larger(built, model, tmp_path):
    name = f"{model}_dtype_selective"
    run_real_model(OUT / f"{name}_smallest" / name, model, tmp_path)
    assert_real_model_matches_torch(model, tmp_path)
    dtype_selective = stripped_size(OUT / f"{name}_dtype_selective", tmp_path)
    op_selective = stripped_size(OUT / f"{name}_op_selective", tmp_path)
    assert stripped_size(OUT / f"{name}_smallest" / name, tmp_path) == min(dtype_selective, op_selective)
    assert dtype_selective < op_selective, (dtype_selective, op_selective)


@pytest.mark.tree
@pytest.mark.parametrize("model", sorted(MANIFEST))
def test_our_kernels_merged_over_the_trees_run_each_operator_they_implement(built, model, tmp_path):
    """merge_yaml with etsb's portable yaml over the tree's, and both libraries
    in kernel_deps: every kernel the binary keeps is linked from etsb's library
    where etsb's yaml names it (unless a tree source compiled for another
    kernel defines it too), else from the tree's, by the link map; the binary
    matches torch."""
    name = f"{model}_ours_over_tree"
    run_real_model(OUT / name, model, tmp_path)
    assert_real_model_matches_torch(model, tmp_path)
    assert_kernels_from_ours_or_tree((OUT / f"{name}.map").read_text(),
                                     (OUT / f"{name}_lib" / "kernel_sources.txt").read_text().splitlines(),
                                     "(kernels__portable__cpu__", "(etsb-out__external__executorch__kernels__portable__cpu__")


@pytest.mark.parametrize("model", sorted(MANIFEST))
def test_each_real_model_runs_with_our_kernels_alone(built, model, tmp_path):
    """etsb's portable library covers every operator of every real model: the
    binary built with the rules' default kernels registers exactly the
    model's operators (beside the runtime's own prim ops) and matches torch."""
    name = f"{model}_ours"
    run_real_model(OUT / name, model, tmp_path)
    assert_real_model_matches_torch(model, tmp_path)
    kernels = subprocess.run([str(OUT / name), "--list-kernels"], capture_output=True, text=True, check=True)
    registered = {line for line in kernels.stdout.splitlines() if not line.startswith(("executorch_prim::", "aten::sym_",
                                                                                       "aten::_local_scalar_dense"))}
    assert registered == set(MANIFEST[model]["operators"])
    # Only the kernel sources its operators need were compiled into its archive.
    listed = (OUT / f"{name}_lib" / "kernel_sources.txt").read_text().splitlines()
    members = (OUT / f"lib{name}_lib_kernels.a.objects").read_text().splitlines()
    assert 0 < len(listed) == len(members) <= len(MANIFEST[model]["operators"])
