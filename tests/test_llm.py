"""LLM decoders with a KV cache (tests/models/llm: ExecuTorch's Llama
Transformer, tiny and random, exported with ATen operators only and as
ExecuTorch's LLM export does it: 8-bit weight-only embedding and linears, its
LLM custom operators) built by etsb's driver from
examples/llm/BUILD and run token by token in one process (the runner's
--steps: the cache lives in the program's mutable buffers), each step's
logits matched with torch's and its greedy token with torch's; and etsb's
LLM kernels (kernels/llm) checked directly, under ASan and UBSan."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import MODELS_DIR, REPO, TREE
from helpers import ET, cmake_build, cmake_configure, cxx, etsb, new_workspace
from llm_helpers import LLM, MANIFEST, assert_generates_torchs_tokens
from selective_build.__main__ import main

pytestmark = pytest.mark.build

OUT = REPO / "etsb-out" / "bin" / "examples" / "llm"
# Torch's own float32 runs and ExecuTorch's runtime agree to ~7e-7 on these
# logits (|logit| < 2.4); a kernel that attends to one wrong key is off by 1e-2.
TOLERANCE = 1e-5


LLM_KERNELS = REPO / "kernels" / "llm"


def test_llm_kernel_checks_pass_under_sanitizers(tmp_path):
    """tests/kernels/llm_checks.cpp against the kernels' sources, the
    declarations generated from kernels/llm/functions.yaml and its
    registration linked in (the yaml, the wrappers and the definitions
    agree), under ASan and UBSan: values match a double-precision
    reference and every bad argument fails the context, writing nothing."""
    assert main(["gen-bindings", "--custom-ops-yaml-path", str(LLM_KERNELS / "functions.yaml"), "--output-dir",
                 str(tmp_path), "--lib-name", "llm", "--manual-registration"]) == 0
    binary = tmp_path / "llm_checks"
    sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-g"]
    built = subprocess.run([*cxx("-O1"), *sanitize, "-Wall", "-Wextra", "-Werror", f"-I{tmp_path}",
                            str(REPO / "tests" / "kernels" / "llm_checks.cpp"),
                            *map(str, sorted((LLM_KERNELS / "cpu").glob("op_*.cpp"))),
                            str(tmp_path / "register_kernels.cpp"),
                            f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}", "-o", str(binary)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120,
                            env={"ASAN_OPTIONS": "detect_leaks=0"})
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    checks, _, rest = result.stdout.splitlines()[-1].partition(" checks, ")
    assert rest == "0 failed" and int(checks) >= 40
    assert "Check failed" in result.stderr  # the refusals went through the context, logged


def write_steps(model: str, directory: Path) -> int:
    """directory/step_<k>/input_0.npy (the token, [1, 1] int64) and
    input_1.npy (its position, [1] int64) for every step of `model`; the
    number of steps."""
    tokens = np.load(LLM / model / "tokens.npy")
    for position, token in enumerate(tokens):
        step = directory / f"step_{position}"
        step.mkdir(parents=True)
        np.save(step / "input_0.npy", np.array([[token]], dtype=np.int64))
        np.save(step / "input_1.npy", np.array([position], dtype=np.int64))
    return len(tokens)


def run_steps(binary: Path, model: str, tmp_path: Path) -> np.ndarray:
    """`binary` stepped over `model`'s tokens in one process: the [steps,
    vocab] logits it wrote."""
    steps = write_steps(model, tmp_path / "in")
    result = subprocess.run([str(binary), "--model", str(LLM / model / f"{model}.pte"), "--steps", str(tmp_path / "in"),
                             "--output-dir", str(tmp_path / "out")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == f"steps: {steps}"
    return np.stack([np.load(tmp_path / "out" / f"step_{k}" / "output_0.npy").reshape(-1) for k in range(steps)])


def assert_matches_torch(model: str, logits: np.ndarray) -> None:
    """Every step's logits within TOLERANCE of torch's, and the greedy token
    of every step torch's: the prompt's continuation, token for token."""
    expected = np.load(LLM / model / "logits.npy")
    assert logits.shape == expected.shape
    gaps = np.abs(logits - expected).max(axis=1)
    assert gaps.max() < TOLERANCE, list(gaps)
    tokens = MANIFEST["models"][model]["tokens"]
    prompt = len(MANIFEST["prompt"])
    assert [int(t) for t in logits.argmax(axis=1)[prompt - 1:-1]] == tokens[prompt:]


@pytest.fixture(scope="module")
def built() -> subprocess.CompletedProcess:
    result = etsb("build", "//examples/llm/...")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_the_manifest_records_both_exports_with_the_same_tokens():
    models = MANIFEST["models"]
    assert sorted(models) == ["custom", "plain"]
    assert models["custom"]["tokens"] == models["plain"]["tokens"]
    assert len(models["custom"]["tokens"]) == len(MANIFEST["prompt"]) + MANIFEST["new_tokens"] == 24
    assert {"llama::custom_sdpa.out", "llama::update_cache.out", "quantized_decomposed::embedding_byte.dtype_out",
            "dim_order_ops::_to_dim_order_copy.out"} <= set(models["custom"]["operators"])
    # The embedding is quantized: no float table looked up by aten::embedding.
    assert "aten::embedding.out" not in models["custom"]["operators"]
    assert models["custom"]["quantization"].startswith("8-bit weight-only")
    assert not any(op.startswith("llama::") for op in models["plain"]["operators"])
    assert "aten::index_put.out" in models["plain"]["operators"]


def test_the_custom_op_export_runs_token_by_token_with_our_kernels_and_matches_torch(built, tmp_path):
    assert_matches_torch("custom", run_steps(OUT / "custom", "custom", tmp_path))
    kernels = subprocess.run([str(OUT / "custom"), "--list-kernels"], capture_output=True, text=True, check=True)
    registered = {line for line in kernels.stdout.splitlines()
                  if not line.startswith(("executorch_prim::", "aten::sym_", "aten::_local_scalar_dense"))}
    expected = {op for op in MANIFEST["models"]["custom"]["operators"] if op != "aten::_local_scalar_dense"}
    assert registered == expected


def test_the_plain_export_runs_token_by_token_with_our_portable_kernels_and_matches_torch(built, tmp_path):
    """Attention and cache updates as ATen operators (index_put into the
    cache buffers, copy_ writing them back), from the rules' default kernels."""
    assert_matches_torch("plain", run_steps(OUT / "plain", "plain", tmp_path))
    kernels = subprocess.run([str(OUT / "plain"), "--list-kernels"], capture_output=True, text=True, check=True)
    registered = {line for line in kernels.stdout.splitlines()
                  if not line.startswith(("executorch_prim::", "aten::sym_", "aten::_local_scalar_dense"))}
    assert registered == set(MANIFEST["models"]["plain"]["operators"])


def test_a_step_sees_the_cache_the_earlier_steps_wrote(built, tmp_path):
    """The last step alone, in a fresh process, attends to an empty cache:
    its logits differ from the ones it has after the steps before it."""
    logits = run_steps(OUT / "custom", "custom", tmp_path / "all")
    last = len(logits) - 1
    alone = tmp_path / "alone"
    (alone / "in" / "step_0").mkdir(parents=True)
    tokens = np.load(LLM / "custom" / "tokens.npy")
    np.save(alone / "in" / "step_0" / "input_0.npy", np.array([[tokens[last]]], dtype=np.int64))
    np.save(alone / "in" / "step_0" / "input_1.npy", np.array([last], dtype=np.int64))
    result = subprocess.run([str(OUT / "custom"), "--model", str(LLM / "custom" / "custom.pte"), "--steps",
                             str(alone / "in"), "--output-dir", str(alone / "out")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert np.abs(np.load(alone / "out" / "step_0" / "output_0.npy").reshape(-1) - logits[last]).max() > 1e-2


@pytest.mark.parametrize("model", ["custom", "plain"])
def test_generation_in_one_process_gives_torchs_tokens(built, model):
    """--prompt 8 ids --generate 16: the decoder stepped in one process, the
    16 greedy tokens torch's, printed after the prompt on one line."""
    assert_generates_torchs_tokens(OUT / model, model)


@pytest.fixture(scope="module")
def built_tree() -> subprocess.CompletedProcess:
    result = etsb("build", "--executorch-root", str(TREE), "//examples/llm_tree/...")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


@pytest.mark.tree
@pytest.mark.parametrize("model", ["custom", "plain"])
def test_both_decoders_with_the_trees_kernels_match_torch_and_generate_its_tokens(built_tree, model, tmp_path):
    """examples/llm_tree: ExecuTorch's portable kernels (and its quantized
    embedding for the custom export) from the tree, etsb's llama:: kernels:
    every step's logits like torch's, and torch's 16 new tokens."""
    binary = REPO / "etsb-out" / "bin" / "examples" / "llm_tree" / model
    assert_matches_torch(model, run_steps(binary, model, tmp_path))
    assert_generates_torchs_tokens(binary, model)
    symbols = subprocess.run(["nm", "-C", str(binary)], capture_output=True, text=True, check=True).stdout
    # The matrix product is the tree's kernel (with its utilities), and no
    # kernel of etsb's portable library (whose helpers live in etsb::kernels) is linked.
    assert "torch::executor::check_mm_args(" in symbols
    assert "etsb::kernels::" not in symbols


def test_generation_refuses_bad_arguments_in_one_line(built, tmp_path):
    """Bad --prompt and --generate values and combinations (2), a method
    that is not a decoder, a prompt id outside the vocabulary and a
    generation past the cache (1): each named on the last line, nothing
    printed on stdout."""
    binary, pte = OUT / "custom", LLM / "custom" / "custom.pte"
    mlp = MODELS_DIR / "mlp" / "mlp.pte"
    cases = [
        (["--prompt", "1,,2", "--generate", "1"], 2, "error: --prompt takes token ids from 0 to 2147483647"),
        (["--prompt", "-1", "--generate", "1"], 2, "error: --prompt takes token ids"),
        (["--prompt", "2147483648", "--generate", "1"], 2, "error: --prompt takes token ids"),
        (["--prompt", "1"], 2, "error: --prompt and --generate go together"),
        (["--generate", "3"], 2, "error: --prompt and --generate go together"),
        (["--prompt", "1", "--generate", "x"], 2, "error: --generate takes a whole number from 0 to 1000000, not 'x'"),
        (["--prompt", "1", "--generate", "1000001"], 2, "error: --generate takes a whole number"),
        (["--prompt", "1", "--generate", "1", "--output-dir", str(tmp_path)], 2,
         "error: --prompt feeds the method its own inputs and prints the tokens"),
        (["--prompt", "1", "--generate", "1", "--steps", str(tmp_path)], 2, "error: --prompt feeds the method"),
        (["--prompt", "400", "--generate", "1"], 1, "error: step 0 failed"),
        (["--prompt", "5,17", "--generate", "40"], 1, "error: step 32 failed"),
    ]
    for argv, status, message in cases:
        result = subprocess.run([str(binary), "--model", str(pte), *argv], capture_output=True, text=True)
        assert result.returncode == status and result.stdout == "", (argv, result.stdout, result.stderr)
        assert result.stderr.splitlines()[-1].startswith(message), (argv, result.stderr)
    # A method that is not a decoder (the MLP, in the binary of its own kernels).
    examples = REPO / "etsb-out" / "bin" / "examples"
    built_mlp = etsb("build", "//examples/mlp:bin")
    assert built_mlp.returncode == 0, built_mlp.stderr[-2000:]
    result = subprocess.run([str(examples / "mlp" / "bin"), "--model", str(mlp), "--prompt", "1", "--generate", "1"],
                            capture_output=True, text=True)
    assert result.returncode == 1 and result.stderr.splitlines()[-1] == (
        "error: --prompt needs a method forward(tokens [1, 1] int64, input_pos [1] int64) -> logits (Float, the "
        "last dim the vocabulary); 'forward' is not one"), result.stderr


# A decoder's signature with a 0-dim Float output: the sum of the token's embedding.
ZERO_DIM_EXPORT = """import sys
import torch
from executorch.exir import to_edge

class Scalar(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Embedding(16, 4)

    def forward(self, tokens, input_pos):
        return self.table(tokens).sum() + input_pos.float().sum()

torch.manual_seed(0)
args = (torch.tensor([[1]], dtype=torch.long), torch.tensor([0], dtype=torch.long))
program = to_edge(torch.export.export(Scalar().eval(), args)).to_executorch()
open(sys.argv[1], "wb").write(program.buffer)
"""


def test_generation_refuses_a_0_dim_output_as_logits(tmp_path, export_python):
    """A method of the decoder's inputs whose output 0 is a 0-dim Float tensor
    has no vocabulary dim: refused before the first step (its sizes were read
    at dim() - 1, before the array), as the runner's own build of it shows."""
    root = new_workspace(tmp_path / "ws")
    exported = subprocess.run([str(export_python), "-c", ZERO_DIM_EXPORT, str(root / "scalar.pte")],
                              capture_output=True, text=True, timeout=600)
    assert exported.returncode == 0, exported.stderr[-3000:]
    (root / "BUILD").write_text('load("//rules:executorch.bzl", "et_model_binary")\n'
                                'et_model_binary(name = "bin", model = "scalar.pte")\n')
    result = etsb("build", "//:bin", cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    binary = str(root / "etsb-out" / "bin" / "bin")
    generated = subprocess.run([binary, "--model", str(root / "scalar.pte"), "--prompt", "1,2", "--generate", "3"],
                               capture_output=True, text=True, timeout=60)
    assert generated.returncode == 1 and generated.stdout == "", (generated.returncode, generated.stderr)
    assert generated.stderr.splitlines()[-1] == (
        "error: --prompt needs a method forward(tokens [1, 1] int64, input_pos [1] int64) -> logits (Float, the "
        "last dim the vocabulary); 'forward' is not one"), generated.stderr


CMAKE_PROJECT = """\
cmake_minimum_required(VERSION 3.20)
project(llm LANGUAGES CXX)
include({repo}/rules/etsb.cmake)
et_model_binary(NAME custom MODEL {llm}/custom/custom.pte)
et_model_binary(NAME plain MODEL {llm}/plain/plain.pte)
"""


def test_cmake_builds_both_decoders_and_they_generate_torchs_tokens(tmp_path):
    """The same two programs from CMake (rules/etsb.cmake), two lines each: the
    catalogue takes etsb's LLM kernels (etsb_llm_kernels) for the KV-cache
    decoder's llama:: operators, and says so; both generate torch's 16
    tokens in one process."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(CMAKE_PROJECT.format(repo=REPO, llm=LLM))
    configured = cmake_configure(source, tmp_path / "build")
    assert configured.returncode == 0, configured.stdout[-3000:] + configured.stderr[-3000:]
    built = cmake_build(tmp_path / "build", "custom", "plain")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert "etsb: etsb_llm_kernels serves llama::" in built.stdout + built.stderr
    for model in ("custom", "plain"):
        assert_generates_torchs_tokens(tmp_path / "build" / model, model)
