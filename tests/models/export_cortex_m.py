"""Export int8 programs through ExecuTorch's Cortex-M flow (tests/models/cortex_m/).

Run in the export environment (``.venv-export``: torch 2.13, executorch 1.5.1,
torchao, tosa-tools); ``scripts/export_cortex_m_models.sh`` does it. Each of
MLPerf Tiny's architectures (tests/models/mlperf_tiny.py), channels-last, is
quantized with ExecuTorch's ``CortexMQuantizer`` (``prepare_pt2e``, calibration,
``convert_pt2e``), exported again, taken to the edge dialect with
``cortex_m_edge_compile_config()`` and lowered by ``CortexMPassManager`` to
``cortex_m::`` operators, whose kernels call Arm's CMSIS-NN.

The lowering depends on the core's instruction set (its ``target_config``): for
Helium (MVE) it folds a linear layer's bias into a precomputed kernel sum that
only CMSIS-NN's Helium code reads. So each program is exported once per
instruction set, into ``cortex_m/<isa>/<model>/``:

========  ================================================================
scalar    CMSIS-NN's plain C: the host (tests) and cores without DSP or MVE
dsp       the DSP extension: Cortex-M4, Cortex-M33
mve       Helium: Cortex-M55
portable  not the Cortex-M flow: ExecuTorch's portable int8 path for the same
          architecture (``XNNPACKQuantizer``, symmetric, weights per channel,
          no delegate), whose ``quantized_decomposed::`` operators surround
          float kernels; any core; the reference is the quantized module
========  ================================================================

Per program: ``<model>.pte``, ``forward.input_0.npy`` and
``forward.output_0.npy``, the reference: the lowered program run in Python
(ExecuTorch's reference implementations of the ``cortex_m`` operators)
before ``to_executorch()``. ``manifest.json`` records each program's
operators, sizes and ``quant_step`` (the scale of the last dequantize: one
quantization step of an output). Seeded weights, calibration data and
inputs: a second run writes byte-identical files.

``--scale reference --out DIR`` writes MLPerf Tiny's own sizes elsewhere (the
bench exports them; they are not committed).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import torch

from mlperf_tiny import ARCHITECTURES
from real_export.files import sha256, significant, tensor_entries, write_atomic

ROOT = Path(__file__).resolve().parent
OUT_DIR = ROOT / "cortex_m"
MANIFEST_VERSION = 1
CALIBRATION_PASSES = 8
SEED = 20261129
ISAS = ("scalar", "dsp", "mve", "portable")


def _channels_last(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.to(memory_format=torch.channels_last) if tensor.dim() == 4 else tensor


def _settle_batch_norm(model: torch.nn.Module, shape: tuple[int, ...]) -> None:
    """Running statistics from a few training-mode passes on random data
    (cumulative averages), so that random weights give outputs of a healthy range."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if not norms:
        return
    for norm in norms:
        norm.momentum = None
        norm.reset_running_stats()
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(_channels_last(torch.randn(4, *shape[1:])))
    model.eval()


def target_config(isa: str):
    """ExecuTorch's Cortex-M target for an instruction set of :data:`ISAS`."""
    from executorch.backends.cortex_m.library import cmsis_nn
    from executorch.backends.cortex_m.target_config import CortexM, CortexMTargetConfig

    backend = {"scalar": cmsis_nn.Backend.SCALAR, "dsp": cmsis_nn.Backend.DSP, "mve": cmsis_nn.Backend.MVE}[isa]
    return CortexMTargetConfig(cpu=CortexM.M55, isa=backend)


def lower_portable(name: str, scale: str):
    """(program bytes, input, reference output, edge program) of one architecture through the
    portable int8 path: PT2E with ExecuTorch's XNNPACKQuantizer and no delegate, row-major."""
    import executorch.kernels.quantized  # noqa: F401 - the quantized_decomposed operators' out variants
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    architecture = ARCHITECTURES[name]
    shape = architecture.input_shape(scale)
    torch.manual_seed(SEED + len(name))
    model = architecture.module(scale)
    _settle_batch_norm(model, shape)
    example = torch.randn(*shape)
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(torch.export.export(model, (example,)).module(), quantizer)
    with torch.no_grad():
        for _ in range(CALIBRATION_PASSES):
            prepared(torch.randn(*shape))
        prepared(example)
    quantized = convert_pt2e(prepared)
    with torch.no_grad():
        reference = quantized(example)
    edge = to_edge_transform_and_lower(torch.export.export(quantized, (example,)))
    lowered = edge.exported_program()
    return edge.to_executorch().buffer, example, reference, lowered


def lower(name: str, scale: str, isa: str):
    """(program bytes, input, reference output, lowered edge program) of one architecture."""
    if isa == "portable":
        return lower_portable(name, scale)
    from executorch.backends.cortex_m.edge_compile_config import cortex_m_edge_compile_config
    from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
    from executorch.backends.cortex_m.quantizer.quantizer import CortexMQuantizer
    from executorch.exir import EdgeProgramManager, to_edge
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    architecture = ARCHITECTURES[name]
    shape = architecture.input_shape(scale)
    torch.manual_seed(SEED + len(name))
    model = architecture.module(scale)
    _settle_batch_norm(model, shape)
    model = model.to(memory_format=torch.channels_last)
    example = _channels_last(torch.randn(*shape))
    # The quantizer's passes refuse the guard call a strict export adds.
    graph = torch.export.export(model, (example,), strict=True).module(check_guards=False)
    prepared = prepare_pt2e(graph, CortexMQuantizer())
    with torch.no_grad():
        for _ in range(CALIBRATION_PASSES):
            prepared(_channels_last(torch.randn(*shape)))
        prepared(example)
    quantized = convert_pt2e(prepared)
    config = cortex_m_edge_compile_config()
    edge = to_edge(torch.export.export(quantized, (example,), strict=True), compile_config=config)
    lowered = CortexMPassManager(edge.exported_program(), target_config=target_config(isa)).transform()
    with torch.no_grad():
        reference = lowered.module()(example)
    program = EdgeProgramManager({"forward": lowered}, compile_config=config).to_executorch()
    return program.buffer, example.contiguous(), reference.contiguous(), lowered


def _operators(lowered) -> list[str]:
    """The ``namespace::name.overload`` of every operator the lowered graph calls."""
    found = set()
    for node in lowered.graph_module.graph.nodes:
        if node.op == "call_function" and hasattr(node.target, "_schema"):
            schema = node.target._schema
            found.add(f"{schema.name}.{schema.overload_name or 'default'}")
    return sorted(found)


def _last_scale(lowered) -> float:
    """The scale of the program's last dequantize: one quantization step of its output."""
    scale = None
    for node in lowered.graph_module.graph.nodes:
        if node.op == "call_function" and "dequantize_per_tensor" in str(node.target):
            scale = float(node.args[1])
    if scale is None:
        raise SystemExit("the lowered program dequantizes nothing: not a Cortex-M int8 program")
    return scale


def export_model(name: str, scale: str, isa: str, out_dir: Path) -> dict:
    """Lower and write one architecture for one instruction set; its manifest entry."""
    buffer, example, reference, lowered = lower(name, scale, isa)
    files: dict[str, bytes] = {f"{name}.pte": buffer}
    entry = {
        "description": ARCHITECTURES[name].description,
        "scale": scale,
        "isa": isa,
        "pte": f"{isa}/{name}/{name}.pte",
        "pte_size": len(buffer),
        "pte_sha256": sha256(buffer),
        "inputs": tensor_entries("input", [example], files),
        "outputs": tensor_entries("output", [reference], files),
        "operators": _operators(lowered),
        "quant_step": _last_scale(lowered),
        "max_abs_output": significant(float(reference.abs().max())),
    }
    for file_name, data in files.items():
        write_atomic(out_dir / isa / name / file_name, data)
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", choices=[[], *ARCHITECTURES], help="architectures (default: all)")
    parser.add_argument("--isa", action="append", choices=ISAS, help="instruction sets (default: all)")
    parser.add_argument("--scale", choices=("small", "reference"), default="small")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    manifest_path = args.out / "manifest.json"
    manifest = {"version": MANIFEST_VERSION, "models": {}}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    for isa in args.isa or ISAS:
        for name in args.models or ARCHITECTURES:
            print(f"{isa}/{name}", file=sys.stderr)
            manifest["models"][f"{isa}/{name}"] = export_model(name, args.scale, isa, args.out)
    from importlib.metadata import version

    manifest["generator"] = {package: version(package).split("+")[0]
                             for package in ("torch", "executorch", "torchao", "tosa-tools")}
    manifest["models"] = dict(sorted(manifest["models"].items()))
    write_atomic(manifest_path, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
