"""Real architectures (tests/models/real: torchvision and timm networks with
reduced widths, LSTM, GRU, a BERT-like encoder, a GPT-like decoder, a 1-D
conv audio net; random weights) built by etsb's driver from
examples/real_models/BUILD with ExecuTorch's own portable kernels from the
workspace's ExecuTorch tree (.etsbrc names the snapshot), and again with
etsb's portable kernels merged over them; run, and compared with torch's
outputs recorded at export time."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO
from helpers import etsb, members_pulled_in, stripped_size

REAL = REPO / "tests" / "models" / "real"
MANIFEST = json.loads((REAL / "manifest.json").read_text())["models"]
OUT = REPO / "etsb-out" / "bin" / "examples" / "real_models"
DTYPE_SELECTIVE = ("bert_encoder", "gpt_decoder", "lstm", "mobilenet_v2", "resnet", "vit")


@pytest.fixture(scope="module")
def built() -> subprocess.CompletedProcess:
    result = etsb("build", "//examples/real_models/...")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def run(binary: Path, model: str, out: Path) -> None:
    """Run ``binary`` on ``model``'s sample inputs; its outputs are in ``out``."""
    info = MANIFEST[model]
    inputs = ",".join(str(REAL / model / i["file"]) for i in info["inputs"])
    result = subprocess.run([str(binary), "--model", str(REAL / info["pte"]), "--inputs", inputs,
                             "--output-dir", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def assert_matches_torch(model: str, out: Path) -> None:
    """Within what separates torch's own float32 and float64 runs (and ExecuTorch's own
    runtime from torch), scaled to the output's magnitude."""
    info = MANIFEST[model]
    tolerance = 10 * max(info["max_abs_diff_fp32_vs_fp64"], info["max_abs_diff_eager_vs_runtime"], 1e-7)
    for index, output in enumerate(info["outputs"]):
        expected = np.load(REAL / model / output["file"])
        got = np.load(out / f"output_{index}.npy")
        assert got.dtype == expected.dtype and got.shape == expected.shape, (model, index)
        if np.issubdtype(expected.dtype, np.floating):
            np.testing.assert_allclose(got, expected, rtol=1e-4, atol=tolerance, err_msg=f"{model}[{index}]")
        else:
            np.testing.assert_array_equal(got, expected, err_msg=f"{model}[{index}]")


def test_the_corpus_has_a_dozen_architectures_or_more():
    assert len(MANIFEST) >= 12


@pytest.mark.parametrize("model", sorted(MANIFEST))
def test_each_real_model_runs_in_its_trimmed_binary_and_matches_torch(built, model, tmp_path):
    run(OUT / model, model, tmp_path)
    assert_matches_torch(model, tmp_path)
    # Only the sources the model's kernels need were compiled into its kernel archive.
    listed = (OUT / f"{model}_lib" / "kernel_sources.txt").read_text().splitlines()
    members = (OUT / f"lib{model}_lib_kernels.a.objects").read_text().splitlines()
    assert 0 < len(listed) == len(members) < 80


@pytest.mark.parametrize("model", DTYPE_SELECTIVE)
def test_the_dtype_selective_binary_runs_and_is_never_larger(built, model, tmp_path):
    name = f"{model}_dtype_selective"
    run(OUT / f"{name}_smallest" / name, model, tmp_path)
    assert_matches_torch(model, tmp_path)
    dtype_selective = stripped_size(OUT / f"{name}_dtype_selective", tmp_path)
    op_selective = stripped_size(OUT / f"{name}_op_selective", tmp_path)
    assert stripped_size(OUT / f"{name}_smallest" / name, tmp_path) == min(dtype_selective, op_selective)
    assert dtype_selective < op_selective, (dtype_selective, op_selective)


def our_kernel_functions() -> set[str]:
    """The C++ functions etsb's portable yaml names (``add_out``)."""
    text = (REPO / "kernels" / "portable" / "functions.yaml").read_text()
    return set(re.findall(r"kernel_name:\s*[\w:]*::(\w+)", text))


@pytest.mark.parametrize("model", sorted(MANIFEST))
def test_our_kernels_merged_over_the_trees_run_each_operator_they_implement(built, model, tmp_path):
    """merge_yaml with etsb's portable yaml over the tree's, and both libraries
    in kernel_deps: every kernel the registration calls is linked from etsb's
    library if etsb's yaml names it, else from the tree's (read off the link
    map's archive members); the binary matches torch."""
    name = f"{model}_ours_over_tree"
    run(OUT / name, model, tmp_path)
    assert_matches_torch(model, tmp_path)
    ours = our_kernel_functions()
    providers = {}
    for symbol, member in members_pulled_in((OUT / f"{name}.map").read_text()).items():
        match = re.match(r"torch::executor::native::(\w+)\(", symbol)
        if match and "register_kernels" not in member:
            providers[match.group(1)] = member
    assert providers, "no kernel in the link map"
    for function, member in providers.items():
        from_ours = "(kernels__portable__cpu__" in member
        from_tree = "(etsb-out__external__executorch__kernels__portable__cpu__" in member
        assert (from_ours, from_tree) == (function in ours, function not in ours), (function, member)
