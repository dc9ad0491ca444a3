"""Export a tiny Llama-style decoder with a KV cache, twice, token by token.

Run in the export environment (``.venv-export``: torch 2.13, executorch 1.5.1
with ``executorch.examples.models.llama`` and ``executorch.extension.llm``).
For each export NAME this writes, under ``tests/models/llm/NAME/``:

* ``NAME.pte``: the program, whose ``forward(tokens[1,1] int64,
  input_pos[1] int64)`` returns the next token's logits ``[1, vocab]`` and
  keeps the keys and values of every layer in mutable buffers (the cache);
* ``tokens.npy``: the ``[steps]`` int64 token fed at each step (the prompt,
  then torch's greedy continuation), the step's position being its index;
* ``logits.npy``: torch eager's ``[steps, vocab]`` float32 logits, step by step;

and ``tests/models/llm/manifest.json`` describing both: the model's sizes,
the prompt, the operators each program calls (read from its execution plan),
its size and hash, and the largest difference between eager and ExecuTorch's
pybindings runtime over the steps (for the plain export; the wheel's runtime
registers no ``llama::`` kernels out of ``custom_ops``'s AOT library).

The exports
-----------
Both start from ExecuTorch's own ``Transformer`` (``examples/models/llama``:
RMSNorm, RoPE, grouped-query attention, SwiGLU feed-forward) with a static KV
cache, random weights seeded by ``SEED``:

=========  ==================================================================
plain      attention and cache updates as ordinary ATen operators
           (``index_put`` into the cache buffers, a causal mask sliced by
           position, ``bmm``/``softmax``)
custom     ExecuTorch's LLM source transforms applied first, as its
           ``export_llama`` applies them for ``--embedding-quantize 8,0
           -qmode int8 --use_sdpa_with_kv_cache`` and in its order: the
           embedding table 8-bit per row (``EmbeddingQuantHandler``, HQQ
           scales as by default: ``quantized_decomposed::embedding_byte``),
           every linear 8-bit weight-only per output channel
           (``WeightOnlyInt8QuantHandler``: the int8 weight converted to
           float, ``mm``, times bfloat16 scales), ``replace_sdpa_with_custom_op``
           (``llama::custom_sdpa``) and ``replace_kv_cache_with_custom_kv_cache``
           (``llama::update_cache``). Torch's reference runs the same
           quantized module that is exported.
=========  ==================================================================

ExecuTorch's ``quantize.py`` imports its LLM export builder, which imports
``pytorch_tokenizers`` (a dependency of the executorch wheel that the export
environment lacks; only GPTQ calibration uses it): a placeholder module that
refuses to load a tokenizer stands in for it when it is missing. The
embedding path needs torchao (0.18 in the export environment).

Usage: ``.venv-export/bin/python tests/models/export_llm.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
import types
from pathlib import Path

import numpy as np
import torch

from executorch.examples.models.llama.llama_transformer import construct_transformer
from executorch.examples.models.llama.model_args import ModelArgs
from executorch.examples.models.llama.source_transformation.custom_kv_cache import (
    replace_kv_cache_with_custom_kv_cache)
from executorch.examples.models.llama.source_transformation.sdpa import replace_sdpa_with_custom_op
from executorch.exir import EdgeCompileConfig, to_edge


def _tokenizer_placeholder() -> None:
    """Registers a stand-in ``pytorch_tokenizers`` when it is not installed
    (ExecuTorch's quantize.py imports it through its export builder; the
    transforms used here never load a tokenizer)."""
    try:
        import pytorch_tokenizers  # noqa: F401
    except ModuleNotFoundError:
        placeholder = types.ModuleType("pytorch_tokenizers")

        def get_tokenizer(*_args, **_kwargs):
            raise RuntimeError("pytorch_tokenizers is not installed: no tokenizer here")

        placeholder.get_tokenizer = get_tokenizer
        sys.modules["pytorch_tokenizers"] = placeholder


_tokenizer_placeholder()
from executorch.examples.models.llama.source_transformation.quantize import (  # noqa: E402
    get_quant_embedding_transform, get_quant_weight_transform)

OUT = Path(__file__).resolve().parent / "llm"
SEED = 20260
PROMPT = (5, 17, 3, 250, 42, 7, 199, 88)
NEW_TOKENS = 16
# What the custom export's quantization is (export_llama's --embedding-quantize 8,0 -qmode int8).
QUANTIZATION = "8-bit weight-only: the embedding per row, every linear per output channel"
ARGS = dict(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=320, hidden_dim=128, max_batch_size=1,
            max_seq_len=32, max_context_len=32, use_kv_cache=True, generate_full_logits=False,
            enable_dynamic_shape=False)


class Decoder(torch.nn.Module):
    """ExecuTorch's Transformer with the (tokens, input_pos) signature its
    runner calls: one token and its position a step."""

    def __init__(self, transformer: torch.nn.Module) -> None:
        super().__init__()
        self.transformer = transformer

    def forward(self, tokens: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        return self.transformer(tokens, {"input_pos": input_pos})


def build(custom: bool) -> Decoder:
    """The decoder with the seeded weights; ExecuTorch's LLM transforms
    (8-bit embedding and linears, then its custom operators) applied when
    `custom`."""
    torch.manual_seed(SEED)
    transformer = construct_transformer(ModelArgs(**ARGS)).eval()
    for name, parameter in transformer.named_parameters():
        if "norm" in name:  # RMSNorm weights start at one: make them matter
            with torch.no_grad():
                parameter.uniform_(0.5, 1.5)
    if custom:
        # export_llama's order: the embedding, then the linears, then attention and the cache.
        for transform in (get_quant_embedding_transform("8,0", quantize_with_hqq=True),
                          get_quant_weight_transform("int8"), replace_sdpa_with_custom_op,
                          replace_kv_cache_with_custom_kv_cache):
            transformer = transform(transformer)
    return Decoder(transformer).eval()


def step_inputs(token: int, position: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One step's inputs: the token [1, 1] and its position [1], int64."""
    return torch.tensor([[token]], dtype=torch.int64), torch.tensor([position], dtype=torch.int64)


def generate(model: Decoder) -> tuple[list[int], np.ndarray]:
    """The prompt fed a token at a time, then greedy steps: every step's token
    and logits, torch eager (the cache starts zeroed)."""
    tokens, logits = list(PROMPT), []
    with torch.no_grad():
        for position in range(len(PROMPT) + NEW_TOKENS):
            out = model(*step_inputs(tokens[position], position))
            logits.append(out.reshape(-1).numpy().copy())
            if position + 1 >= len(tokens) and position + 1 < len(PROMPT) + NEW_TOKENS:
                tokens.append(int(out.argmax()))
    return tokens, np.stack(logits).astype(np.float32)


def export(model: Decoder):
    """The ExecuTorch program of `model` (the cache as mutable buffers)."""
    with torch.no_grad(), torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]):
        exported = torch.export.export(model, step_inputs(0, 0), strict=True)
    edge = to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    return edge.to_executorch()


def program_operators(program) -> list[str]:
    """Sorted ``namespace::name.overload`` names from the execution plan."""
    plan = program.executorch_program.execution_plan[0]
    return sorted({f"{op.name}.{op.overload}" if op.overload else op.name for op in plan.operators})


def runtime_gap(buffer: bytes, tokens: list[int], logits: np.ndarray) -> float:
    """Max |eager - pybindings| over every step, one method loaded once."""
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(buffer).load_method("forward")
    gap = 0.0
    for position, token in enumerate(tokens):
        out = method.execute(list(step_inputs(token, position)))[0].numpy().reshape(-1)
        gap = max(gap, float(np.abs(out - logits[position]).max()))
    return gap


def export_one(name: str, custom: bool) -> dict:
    """Writes NAME's program, tokens and logits; its manifest entry."""
    model = build(custom)
    tokens, logits = generate(model)
    program = export(build(custom))  # fresh buffers: generation filled the eager cache
    folder = OUT / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.pte").write_bytes(program.buffer)
    np.save(folder / "tokens.npy", np.array(tokens, dtype=np.int64))
    np.save(folder / "logits.npy", logits)
    entry = {"custom_ops": custom, "operators": program_operators(program), "steps": len(tokens),
             "tokens": tokens, "pte_bytes": len(program.buffer),
             "pte_sha256": hashlib.sha256(program.buffer).hexdigest(),
             "max_abs_logit": round(float(np.abs(logits).max()), 4)}
    if custom:
        entry["quantization"] = QUANTIZATION
    else:
        entry["max_abs_diff_eager_vs_runtime"] = float(f"{runtime_gap(program.buffer, tokens, logits):.3g}")
    return entry


def main() -> None:
    """Exports both programs and writes the manifest."""
    models = {name: export_one(name, custom) for name, custom in (("plain", False), ("custom", True))}
    assert models["plain"]["tokens"] == models["custom"]["tokens"], "the two exports generate different tokens"
    manifest = {"generator": {"torch": torch.__version__.split("+")[0], "executorch": "1.5.1"},
                "model": dict(ARGS, seed=SEED), "prompt": list(PROMPT), "new_tokens": NEW_TOKENS,
                "models": models}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
