"""Export a corpus of real neural-network architectures, with random weights.

Run in the export environment (torch==2.13.0, the full executorch==1.5.1,
torchvision==0.28.0 and timm==1.0.31), which ``scripts/setup.sh --export-env``
creates; ``scripts/export_real_models.sh`` does both.  With no arguments every
model is exported; otherwise the ones named.  The models are in
``real_models/`` (the table in its ``__init__.py``; ``vision`` and ``sequence``
build them), how they are prepared, checked and written in ``real_export/``;
this script is the command line and the loop over models.  For every model
NAME this writes, under ``tests/models/real/NAME/``:

* ``NAME.pte``: the ExecuTorch program, portable ATen operators only (no
  partitioner, so no delegate);
* ``forward.input_<i>.npy``: the sample inputs, exactly as fed to the program;
* ``forward.output_<i>.npy``: torch eager's float32 outputs on them;

and one ``tests/models/real/manifest.json`` describing each model: its
architecture and sizes, input and output shapes and dtypes, the operators the
program calls (``aten::name.overload``, read from the emitted execution plan),
the ``.pte`` size and hash, the largest difference between eager and
ExecuTorch's own pybindings runtime, and the float32-vs-float64 eager gap.

With ``--delegate xnnpack`` the same models (the same seeds, weights, inputs
and eager outputs) are lowered to the XNNPACK backend instead; see "Delegated
mode" below.  ``scripts/export_delegated_models.sh`` runs that.

The models
----------
Real architecture classes, constructed directly at reduced widths, depths and
image sizes so that each program stays under about 3 MB:

==================  ===========================================================
resnet              torchvision ResNet, Bottleneck blocks [1,1,1,1], 64 px
mobilenet_v2        torchvision MobileNetV2, width 0.25, 64 px
mobilenet_v3_small  torchvision MobileNetV3 (small config, width 0.5, reduced
                    tail), 64 px
efficientnet        torchvision EfficientNet (B0 config, width 0.25, depth
                    0.34), 64 px
squeezenet          torchvision SqueezeNet 1.1, 10 classes, 64 px
shufflenet_v2       torchvision ShuffleNetV2, stages [2,2,2], 64 px
densenet            torchvision DenseNet, growth 8, blocks (2,2), 32 px
vit                 torchvision VisionTransformer, 2 layers, dim 32, 32 px
swin                torchvision SwinTransformer (v1), dim 16, depths [2,2], 32 px
convnext            torchvision ConvNeXt, dims 16/32, 32 px
lstm                torch.nn.LSTM, 2 layers, hidden 24, batch_first
gru                 torch.nn.GRU, 2 layers, hidden 24, batch_first
bert_encoder        nn.Embedding + nn.TransformerEncoder (d_model 32, 2 heads,
                    2 layers) + pooler, with a key-padding mask input
gpt_decoder         embedding, causal self-attention blocks (SDPA, is_causal),
                    LM head
audio_m5            M5-style 1-D conv net (Conv1d/BatchNorm1d/ReLU/MaxPool1d)
                    on a 4000-sample waveform
timm_resnet_d       timm ResNet with a deep stem and average-pool downsampling
                    (ResNet-D), BasicBlock, channels 16..128
timm_efficientvit   timm EfficientViT (MIT), ReLU linear attention, tiny widths
timm_mobilevit      timm MobileViT (ByobNet config), tiny widths
==================  ===========================================================

Why the weights are touched after construction
----------------------------------------------
With random initialisation many outputs are degenerate, so that any kernel
"matches" at a loose tolerance: torchvision zero-initialises some heads (the
ViT output is exactly 0), and through many eval-mode batch norms whose running
statistics are still mean 0 / variance 1 the MobileNet and EfficientNet
outputs come out at 1e-14..1e-5.  So every model is, before export:

1. seeded with ``torch.manual_seed`` from a hash of its name (reproducible);
2. given small random values (normal, std 0.02) in every parameter that is
   all zero (biases, class tokens, heads);
3. calibrated: batch-norm running statistics are reset and set from a few
   training-mode forward passes on random data with ``momentum=None`` (a
   cumulative average), then the model is put in ``eval()``.  The batch-norm
   affine weights are not randomised beyond step 2: doing so made some models
   ill-conditioned (float32 and float64 eager far apart).

Constructor arguments that would make a block an identity at random init are
avoided too: ConvNeXt's layer scale is 0.5 (not 1e-6) and timm's ResNet does
not zero its last batch norm per block.  Each output must then have a max |y|
between 1e-3 and 1e3 and must not be constant, or the export fails.

The float32-vs-float64 gap (the same model and input in float64 eager) is
recorded so that tests can choose a tolerance above it.

Delegated mode
--------------
``--delegate xnnpack`` lowers with ExecuTorch's ``XnnpackPartitioner()``
(``to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])``,
which needs ``torchao``; ``scripts/setup.sh --export-env`` installs it) and
writes to ``tests/models/delegated/`` by default, with a manifest of its own.
The weights of delegated subgraphs live in the delegate blobs inside the
``.pte``.  The program must contain at least one delegate, or the export
fails.  Each manifest entry has, besides the fields above:

* ``delegate``: ``"xnnpack"``;
* ``backends``: the sorted, distinct backend ids the program's delegates name
  (``execution_plan[0].delegates[i].id``, i.e. ``XnnpackBackend``);
* ``delegate_calls``: the number of ``DelegateCall`` instructions in the plan;
* ``operators``: only the operators left outside the delegates (the plan's
  operator table; may be empty when the whole graph is delegated);
* ``tolerance``: the absolute tolerance a test comparing a runtime's outputs
  with ``forward.output_<i>.npy`` should use, by the rule
  ``max(10 * max_abs_diff_eager_vs_runtime, 1e-4 * max_abs_output, 1e-5)``
  (``DELEGATED_TOLERANCE_*``), rounded up to 3 significant digits.

The top-level ``delegate`` key names the backend too, and ``generator``
includes torchao's version.

XNNPACK does not compute what eager does bit for bit: its GEMM, convolution
and reduction microkernels accumulate in a different order (blocked, vectorised
across output tiles), may use fused multiply-add where eager rounds twice,
fuse operators (convolution with batch norm and a following activation, for
one) and evaluate transcendental functions with their own polynomial
approximations.  Moreover, in ExecuTorch 1.5.1 the XNNPACK backend ignores
``gelu``'s ``approximate="tanh"`` argument and computes the exact (erf) GELU,
which is up to 4.7e-4 away (fixed upstream later: pytorch/executorch pull
request 22851); ``gpt_decoder`` uses tanh-GELU, so its delegated outputs are
about 1e-4 away from eager, some 200 times its portable-runtime difference.
Eager remains the reference (``forward.output_<i>.npy`` are eager's), so the
runtime check uses ``DELEGATED_RUNTIME_RTOL`` (looser than ``RUNTIME_RTOL``)
and the recorded tolerance leaves a margin of 10 over the measured
difference, which depends on the microkernels the machine's CPU selects
(AVX2, AVX-512, ...): the ``.pte`` and ``.npy`` files are the same on every
machine, the measured difference and so the tolerance may not be.

torchvision
-----------
The only torchvision 0.28.0 wheel reachable here is a CUDA build whose C
extension cannot load: ``import torchvision`` fails registering fakes for
``torchvision::nms``/``qnms``.  ``_import_torchvision`` first defines those two
operator schemas in a library kept alive for the whole run.  No model here
calls a torchvision C++ operator.  torchvision and timm are installed with
``--no-deps`` (keeping the pinned torch), plus pillow, which ``import
torchvision`` needs; timm's huggingface_hub and safetensors are optional and
absent: nothing is downloaded, every weight is random.

Checks and determinism
----------------------
Before anything is written, each program is run once with ExecuTorch's own
pybindings runtime (``executorch.runtime``, whose full wheel includes the
XNNPACK backend) and its outputs must match eager within ``RUNTIME_RTOL`` of
the largest output magnitude (``DELEGATED_RUNTIME_RTOL`` for delegated
exports).  Eager runs on one thread, so a second run writes byte-identical
files (``.pte`` included, delegated ones too).

Dropped
-------
Nothing: every architecture listed above exports with
``to_edge_transform_and_lower`` (no partitioner) and runs on the pybindings
runtime.  Two were adapted rather than dropped: torchvision's ``ResNet`` fixes
its stage widths at 64..512 (a Bottleneck ResNet is over 10 MB even at depth
[1,1,1,1]), so its stem and stages are rebuilt narrower with the class's own
``_make_layer``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import torch

from real_export.checking import (
    DELEGATED_RUNTIME_RTOL,
    RUNTIME_RTOL,
    check_outputs_healthy,
    compare_runtime,
    export_program,
    float64_gap,
    program_delegates,
    program_operators,
    run_eager,
    run_executorch,
)
from real_export.files import delegated_tolerance, sha256, significant, tensor_entries, write_atomic
from real_export.preparing import model_seed, prepare_model
from real_models import MODELS, ModelSpec
from real_models.vision import import_timm, import_torchvision

ROOT = Path(__file__).resolve().parent
OUT_DIR = ROOT / "real"
DELEGATED_OUT_DIR = ROOT / "delegated"
DELEGATES = ("xnnpack",)
MANIFEST_VERSION = 1


def export_model(spec: ModelSpec, out_dir: Path,
                 delegate: str | None = None) -> tuple[dict, float]:
    """Export (lowered to ``delegate``'s backend, if any), check and write one
    model; return its manifest entry and the seconds it took."""
    start = time.monotonic()
    torch.manual_seed(model_seed(spec.name))
    model = prepare_model(spec)
    inputs = spec.make_inputs(spec.batch)
    outputs = run_eager(model, inputs)
    check_outputs_healthy(spec.name, outputs)
    gap = float64_gap(model, inputs, outputs)

    program = export_program(model, inputs, delegate)
    buffer = program.buffer
    rtol = RUNTIME_RTOL if delegate is None else DELEGATED_RUNTIME_RTOL
    runtime_diff = compare_runtime(spec.name, outputs, run_executorch(buffer, inputs), rtol)
    operators = program_operators(program)
    max_abs_output = max(float(o.abs().max()) for o in outputs)

    files: dict[str, bytes] = {f"{spec.name}.pte": buffer}
    entry = {
        "description": spec.description,
        "pte": f"{spec.name}/{spec.name}.pte",
        "pte_size": len(buffer),
        "pte_sha256": sha256(buffer),
        "parameters": sum(p.numel() for p in model.parameters()),
        "inputs": tensor_entries("input", inputs, files),
        "outputs": tensor_entries("output", outputs, files),
        "operators": operators,
        "max_abs_output": significant(max_abs_output),
        "max_abs_diff_eager_vs_runtime": significant(runtime_diff),
        "max_abs_diff_fp32_vs_fp64": significant(gap),
    }
    if delegate is not None:
        backends, delegate_calls = program_delegates(program)
        if not backends or not delegate_calls:
            raise SystemExit(f"{spec.name}: the {delegate} partitioner delegated nothing")
        entry.update({"delegate": delegate, "backends": backends,
                      "delegate_calls": delegate_calls,
                      "tolerance": delegated_tolerance(runtime_diff, max_abs_output)})
    for file_name, data in files.items():
        write_atomic(out_dir / spec.name / file_name, data)
    return entry, time.monotonic() - start


def _versions(delegate: str | None = None) -> dict[str, str]:
    from executorch.version import __version__ as executorch_version

    torchvision = import_torchvision()
    timm = import_timm()
    versions = [("torch", torch.__version__), ("executorch", executorch_version),
                ("torchvision", torchvision.__version__), ("timm", timm.__version__)]
    if delegate is not None:
        import torchao

        versions.append(("torchao", torchao.__version__))
    return {name: version.split("+")[0] for name, version in versions}


def _quiet_known_warnings() -> None:
    """Silence two harmless warnings that would bury the per-model summary:
    ExecuTorch's use of a deprecated pytree API, and torch.export's note that
    ``nn.LSTM``/``nn.GRU`` reassign ``_flat_weights`` while being traced."""
    warnings.filterwarnings("ignore", message=r".*isinstance\(treespec, LeafSpec\)",
                            category=FutureWarning)
    warnings.filterwarnings("ignore", message=r"The tensor attributes self\.rnn\._flat_weights",
                            category=UserWarning)


def main(argv: list[str] | None = None) -> int:
    """Export the models named on the command line (default: all)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="models to export (default: all)")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"output directory (default: {OUT_DIR.relative_to(ROOT.parent.parent)}, "
                        f"or {DELEGATED_OUT_DIR.relative_to(ROOT.parent.parent)} with --delegate)")
    parser.add_argument("--delegate", choices=DELEGATES, default=None,
                        help="lower to this backend with its partitioner (default: none)")
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = OUT_DIR if args.delegate is None else DELEGATED_OUT_DIR

    known = {spec.name: spec for spec in MODELS}
    unknown = [name for name in args.models if name not in known]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(known)}")
    # Reproducible eager outputs regardless of the machine's core count.
    torch.set_num_threads(1)
    _quiet_known_warnings()

    manifest_path = args.out / "manifest.json"
    manifest = {"version": MANIFEST_VERSION, "models": {}}
    if args.models and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    if manifest.get("delegate") != args.delegate and manifest["models"]:
        parser.error(f"{manifest_path} holds delegate {manifest.get('delegate')!r} exports, "
                     f"not {args.delegate!r}")
    if args.delegate is not None:
        manifest["delegate"] = args.delegate
    manifest["generator"] = _versions(args.delegate)
    for name in args.models or known:
        entry, seconds = export_model(known[name], args.out, args.delegate)
        manifest["models"][name] = entry
        delegated = ("" if args.delegate is None else
                     f"{entry['delegate_calls']:3d} delegate calls  "
                     f"tolerance {entry['tolerance']:<9.3g} ")
        print(f"{name:20s} {entry['pte_size']:>9d} B  {len(entry['operators']):3d} ops  "
              f"{delegated}runtime diff {entry['max_abs_diff_eager_vs_runtime']:<9.3g} "
              f"fp64 gap {entry['max_abs_diff_fp32_vs_fp64']:<9.3g} {seconds:6.1f} s",
              file=sys.stderr, flush=True)
    manifest["models"] = dict(sorted(manifest["models"].items()))
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    write_atomic(manifest_path, text.encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
