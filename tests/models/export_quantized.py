"""Export the int8-quantized model corpus (tests/models/quantized/).

Run in the export environment (``.venv-export``: torch 2.13, executorch 1.5.1,
torchao); ``scripts/export_quantized_models.sh`` does it.  Three programs,
quantized with PyTorch 2 Export quantization (``prepare_pt2e`` /
``convert_pt2e`` from torchao, with ExecuTorch's ``XNNPACKQuantizer``,
symmetric, weights per output channel):

==================  ==========================================================
cnn_int8            static int8 CNN (two convolutions, ReLU, a linear head):
                    calibrated activation scales, lowered without a delegate,
                    so the program calls ``quantized_decomposed::
                    quantize_per_tensor`` / ``dequantize_per_tensor`` /
                    ``dequantize_per_channel`` around float operators
mlp_dynamic_int8    dynamic int8 MLP (two linears, ReLU): activations get
                    their scale at run time (``choose_qparams.Tensor_out``,
                    then ``quantize/dequantize_per_tensor.Tensor_out``),
                    weights per channel; no delegate
cnn_int8_xnnpack    cnn_int8's quantized module, fully delegated to XNNPACK
                    (``XnnpackPartitioner``): XNNPACK runs int8 arithmetic
embedding_int8_int4 weight-only quantized embedding tables, as ExecuTorch's
                    LLM export writes them: an 8-bit table with a scale per
                    row (``embedding_byte.dtype_out``) and a packed 4-bit one
                    with a scale per group of 8 values
                    (``embedding_4bit.dtype_out``), looked up by token ids and
                    summed; no PT2E, no delegate
==================  ==========================================================

Per model, under ``tests/models/quantized/NAME/``: ``NAME.pte``,
``forward.input_<i>.npy`` and ``forward.output_<i>.npy``, the outputs of the
*quantized* torch module (the ``convert_pt2e`` result run eagerly), which is
the reference: a runtime computing the same graph matches it up to a float
rounding that moves a value across a rounding boundary of a quantize step.

The quantization step
---------------------
``quantized/manifest.json`` records, per model, ``quant_step``: how far one
quantization step moves an output.

* static (``cnn_int8`` and its XNNPACK twin): the output is dequantized from
  int8, so one step is the scale of the last ``quantize_per_tensor``;
* dynamic (``mlp_dynamic_int8``): the output is a float linear of a
  dynamically quantized activation ``x`` (scale ``s`` chosen at run time on
  this input); moving one element of ``x`` by one step moves an output by at
  most ``s * max|W|``, which is recorded (``s`` read from the reference run);
* weight-only (``embedding_int8_int4``): an output is the sum of one value of
  each table, so one step of both is the largest scale of each, summed.

Tests assert ``max |runtime - reference| <= quant_step`` (plus a float
rounding allowance).  Each manifest entry also lists the program's operators,
its delegates (``backends``, ``delegate_calls``), every scale of the graph
(``scales``), and ``max_abs_diff_reference_vs_runtime_in_steps``: ExecuTorch's
own pybindings runtime (its portable and quantized kernels, or XNNPACK) on
the same program, which must be within one step or the export fails.

Determinism: seeded weights, calibration data and inputs, one thread; a
second run writes byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from real_export.checking import program_delegates, program_operators, run_executorch
from real_export.files import sha256, significant, tensor_entries, write_atomic

ROOT = Path(__file__).resolve().parent
OUT_DIR = ROOT / "quantized"
MANIFEST_VERSION = 1
CALIBRATION_PASSES = 8
SEED = 20261126


class SmallCnn(nn.Module):
    """Two 3x3 convolutions with ReLU, then a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.head = nn.Linear(16 * 8 * 8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        return self.head(x.flatten(1))


class QuantizedEmbeddings(nn.Module):
    """Two weight-only quantized embedding tables (8-bit per row, 4-bit per
    group), looked up by the same token ids and summed."""

    VOCAB, DIM, GROUP = 32, 16, 8

    def __init__(self) -> None:
        super().__init__()
        table = torch.randn(self.VOCAB, self.DIM)
        scales = table.abs().amax(dim=1) / 127
        self.register_buffer("table8", torch.round(table / scales[:, None]).clamp(-128, 127).to(torch.int8))
        self.register_buffer("scales8", scales)
        # Two 4-bit values a byte (stored plus 8), a scale per group of GROUP values.
        self.register_buffer("table4", torch.randint(0, 256, (self.VOCAB, self.DIM // 2), dtype=torch.uint8))
        self.register_buffer("scales4", torch.rand(self.VOCAB, self.DIM // self.GROUP) * 0.05 + 0.01)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        ops = torch.ops.quantized_decomposed
        byte = ops.embedding_byte.dtype(self.table8, self.scales8, None, -128, 127, tokens, dtype=torch.float32)
        nibble = ops.embedding_4bit.dtype(self.table4, self.scales4, None, -8, 7, tokens, dtype=torch.float32)
        return byte + nibble

    def step(self) -> float:
        """One quantization step of an output: the largest scale of each table."""
        return float(self.scales8.max() + self.scales4.max())


class SmallMlp(nn.Module):
    """Two linears with ReLU between."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


@dataclass(frozen=True)
class QuantizedSpec:
    """One model of the corpus: how to build it, its input, and how it is quantized."""

    name: str
    description: str
    build: Callable[[], nn.Module]
    input_shape: tuple[int, ...]
    quantization: str  # "static", "dynamic" (both PT2E) or "weight_only" (the module's own)
    delegate: str | None = None

    def make_input(self) -> torch.Tensor:
        """A seeded input: token ids for weight-only embeddings, else normal floats."""
        if self.quantization == "weight_only":
            return torch.randint(0, QuantizedEmbeddings.VOCAB, self.input_shape, dtype=torch.int64)
        return torch.randn(*self.input_shape)


MODELS = (
    QuantizedSpec("cnn_int8", "static int8 CNN: conv 3->8, conv 8->16 stride 2, ReLU, linear 1024->10; "
                  "per-tensor activations, per-channel weights; no delegate",
                  SmallCnn, (1, 3, 16, 16), "static"),
    QuantizedSpec("mlp_dynamic_int8", "dynamic int8 MLP: linear 16->32, ReLU, linear 32->10; activations "
                  "quantized at run time (choose_qparams), per-channel weights; no delegate",
                  SmallMlp, (2, 16), "dynamic"),
    QuantizedSpec("cnn_int8_xnnpack", "cnn_int8's quantized module fully delegated to XNNPACK",
                  SmallCnn, (1, 3, 16, 16), "static", delegate="xnnpack"),
    QuantizedSpec("embedding_int8_int4", "weight-only quantized embeddings: an 8-bit table (32x16, a scale per "
                  "row) and a 4-bit one (a scale per 8 values) looked up by 2x5 token ids and summed; no delegate",
                  QuantizedEmbeddings, (2, 5), "weight_only"),
)


def quantize(spec: QuantizedSpec) -> tuple[torch.fx.GraphModule, tuple[torch.Tensor, ...]]:
    """The ``convert_pt2e`` module of the spec's model (a weight-only model is
    its own), and its seeded input.

    The seed depends on the architecture only, so ``cnn_int8_xnnpack`` is the
    very module ``cnn_int8`` is."""
    import executorch.kernels.quantized  # noqa: F401 - the quantized_decomposed operators
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(SEED + spec.input_shape[-1])
    model = spec.build().eval()
    inputs = (spec.make_input(),)
    if spec.quantization == "weight_only":
        return model, inputs
    config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=spec.quantization == "dynamic")
    prepared = prepare_pt2e(torch.export.export(model, inputs).module(),
                            XNNPACKQuantizer().set_global(config))
    with torch.no_grad():
        for _ in range(CALIBRATION_PASSES):
            prepared(spec.make_input())
        prepared(*inputs)
    return convert_pt2e(prepared), inputs


class _ScaleRecorder(torch.fx.Interpreter):
    """Runs a graph module and keeps the scale every (de)quantize node used."""

    def __init__(self, module: torch.fx.GraphModule) -> None:
        super().__init__(module)
        self.quantize_scales: list[float] = []
        self.last_linear_input_scale: float | None = None

    def call_function(self, target, args, kwargs):
        result = super().call_function(target, args, kwargs)
        name = str(target)
        if "quantize_per_tensor" in name and "dequantize" not in name:
            self.quantize_scales.append(float(args[1]))
        if "aten.linear" in name:
            self.last_linear_input_scale = self.quantize_scales[-1] if self.quantize_scales else None
        return result


def reference_and_steps(module: torch.fx.GraphModule, inputs, spec: QuantizedSpec):
    """The quantized module's eager outputs, every activation scale used, and
    the size of one quantization step at the output (module docstring)."""
    if spec.quantization == "weight_only":
        with torch.no_grad():
            return (module(*inputs).detach().clone(),), [], module.step()
    recorder = _ScaleRecorder(module)
    with torch.no_grad():
        outputs = recorder.run(*inputs)
    outputs = tuple(o.detach().clone() for o in (outputs if isinstance(outputs, (tuple, list)) else (outputs,)))
    scales = recorder.quantize_scales
    if spec.quantization == "static":
        return outputs, scales, scales[-1]
    last_weight = [p for n, p in module.named_buffers() if n.startswith("_frozen_param")]
    weight_scale = [p for n, p in module.named_buffers() if n.startswith("_scale_")][-1]
    max_weight = float((last_weight[-1].float().abs().amax(dim=1) * weight_scale).max())
    return outputs, scales, recorder.last_linear_input_scale * max_weight


def lower(module: torch.fx.GraphModule, inputs, delegate: str | None):
    """Edge lowering and ExecuTorch emission, with XNNPACK's partitioner or none.

    Importing ``executorch.kernels.quantized`` registers the ``.out`` variants
    of the ``quantized_decomposed`` operators that emission needs."""
    import executorch.kernels.quantized  # noqa: F401
    from executorch.exir import to_edge_transform_and_lower

    exported = torch.export.export(module, inputs)
    if delegate is None:
        return to_edge_transform_and_lower(exported).to_executorch()
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    return to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch()


def _steps(expected, got, step: float, name: str) -> float:
    """Largest |expected - got| in quantization steps; fail above one step."""
    worst = max(float((e.double() - g.double()).abs().max()) for e, g in zip(expected, got, strict=True))
    if worst > step * 1.001:
        raise SystemExit(f"{name}: ExecuTorch's runtime is {worst / step:.3g} steps from the quantized module")
    return worst / step


def export_model(spec: QuantizedSpec, out_dir: Path) -> dict:
    """Quantize, lower, check against ExecuTorch's runtime and write one model."""
    module, inputs = quantize(spec)
    outputs, scales, step = reference_and_steps(module, inputs, spec)
    program = lower(module, inputs, spec.delegate)
    buffer = program.buffer
    in_steps = _steps(outputs, run_executorch(buffer, inputs), step, spec.name)
    backends, delegate_calls = program_delegates(program)
    if (spec.delegate is None) != (delegate_calls == 0):
        raise SystemExit(f"{spec.name}: {delegate_calls} delegate calls with delegate {spec.delegate!r}")
    files: dict[str, bytes] = {f"{spec.name}.pte": buffer}
    entry = {
        "description": spec.description,
        "pte": f"{spec.name}/{spec.name}.pte",
        "pte_size": len(buffer),
        "pte_sha256": sha256(buffer),
        "quantization": spec.quantization,
        "inputs": tensor_entries("input", inputs, files),
        "outputs": tensor_entries("output", outputs, files),
        "operators": program_operators(program),
        "backends": backends,
        "delegate_calls": delegate_calls,
        "scales": [float(s) for s in scales],
        "quant_step": float(step),
        "max_abs_output": significant(max(float(o.abs().max()) for o in outputs)),
        "max_abs_diff_reference_vs_runtime_in_steps": significant(in_steps),
    }
    for file_name, data in files.items():
        write_atomic(out_dir / spec.name / file_name, data)
    return entry


def main(argv: list[str] | None = None) -> int:
    """Export the models named on the command line (default: all)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="models to export (default: all)")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="output directory")
    args = parser.parse_args(argv)
    known = {spec.name: spec for spec in MODELS}
    unknown = [name for name in args.models if name not in known]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(known)}")
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    manifest_path = args.out / "manifest.json"
    manifest = {"version": MANIFEST_VERSION, "models": {}}
    if args.models and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    from executorch.version import __version__ as executorch_version
    import torchao

    manifest["generator"] = {name: version.split("+")[0] for name, version in (
        ("torch", torch.__version__), ("executorch", executorch_version), ("torchao", torchao.__version__))}
    for name in args.models or known:
        entry = export_model(known[name], args.out)
        manifest["models"][name] = entry
        print(f"{name:18s} {entry['pte_size']:>7d} B  {len(entry['operators']):2d} ops  "
              f"{entry['delegate_calls']} delegate calls  step {entry['quant_step']:.3g}  "
              f"runtime {entry['max_abs_diff_reference_vs_runtime_in_steps']:.3g} steps",
              file=sys.stderr, flush=True)
    manifest["models"] = dict(sorted(manifest["models"].items()))
    write_atomic(manifest_path, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
