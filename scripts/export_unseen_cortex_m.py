"""Export int8 programs etsb's tests have never seen through ExecuTorch's Cortex-M flow, once per
core, and compare what a board printed with the reference: the campaign of docs/cortex_m.md
("Programs the project never saw"), and a template for exporting a model of one's own.

Run in the export environment (torch 2.13, executorch 1.5.1, torchao, tosa-tools:
``scripts/setup.sh --export-env`` makes ``.venv-export``)::

    .venv-export/bin/python scripts/export_unseen_cortex_m.py export OUT [MODEL ...] [--core cortex-m4 ...]
    python scripts/export_unseen_cortex_m.py compare OUT CORE RUN_DIR [MODEL ...]

``export`` writes ``OUT/<core>/<model>/`` with ``model.pte``, ``forward.input_0.npy``,
``forward.output_0.npy`` (the reference: the lowered program run in Python, by ExecuTorch's
reference implementations of the ``cortex_m`` operators, before ``to_executorch()``) and
``info.json`` (operators, shapes, ``quant_step``: the scale of the last dequantize, one
quantization step of the output). A core is ``cortex-m55`` (Helium), ``cortex-m4`` or
``cortex-m33`` (the DSP extension), or ``host`` (CMSIS-NN's plain C). Seeded: a second run
writes the same files.

``compare`` needs numpy only: it reads ``RUN_DIR/<model>/output_0.npy`` (what ``etsb run
--platform CORE //...:MODEL -- --model ... --inputs ... --output-dir RUN_DIR/<model>`` wrote)
and prints each model's largest difference in quantization steps; it fails above one step.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

CALIBRATION_PASSES = 8
SEED = 1234
CORES = ("cortex-m55", "cortex-m4", "cortex-m33")


def _models():
    """The campaign's modules by name (each with its input ``shape``); torch is imported here only."""
    import torch
    from torch import nn

    class ResCnn(nn.Module):
        """Stride-2 convolutions, padding, a residual add, max pooling, odd channels, a non-square input."""
        shape = (1, 3, 20, 28)

        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 7, 3, stride=2, padding=1)
            self.body = nn.Conv2d(7, 7, 3, padding=1)
            self.pool = nn.MaxPool2d(2)
            self.down = nn.Conv2d(7, 13, 3, stride=2, padding=1)
            self.head = nn.Linear(13 * 3 * 4, 5)

        def forward(self, x):
            x = torch.relu(self.stem(x))
            x = torch.relu(x + self.body(x))
            x = torch.relu(self.down(self.pool(x)))
            return self.head(torch.flatten(x, 1))

    class DwsRelu6(nn.Module):
        """Depthwise-separable blocks with ReLU6, average pooling, a linear head."""
        shape = (1, 3, 24, 16)

        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.dw1, self.pw1 = nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.Conv2d(8, 13, 1)
            self.dw2, self.pw2 = nn.Conv2d(13, 13, 3, stride=2, padding=1, groups=13), nn.Conv2d(13, 16, 1)
            self.pool, self.head = nn.AvgPool2d((6, 4)), nn.Linear(16, 4)

        def forward(self, x):
            relu6 = nn.functional.relu6
            x = relu6(self.stem(x))
            x = relu6(self.pw1(relu6(self.dw1(x))))
            x = relu6(self.pw2(relu6(self.dw2(x))))
            return self.head(torch.flatten(self.pool(x), 1))

    class PoolLinear(nn.Module):
        """Average pooling then a linear layer."""
        shape = (1, 7, 10, 6)

        def __init__(self):
            super().__init__()
            self.pool, self.fc = nn.AvgPool2d(2), nn.Linear(7 * 5 * 3, 9)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(x), 1))

    class Mlp(nn.Module):
        """A pure MLP of odd widths."""
        shape = (1, 13)

        def __init__(self):
            super().__init__()
            self.fc1, self.fc2, self.fc3 = nn.Linear(13, 31), nn.Linear(31, 7), nn.Linear(7, 3)

        def forward(self, x):
            return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))

    class GatedConv(nn.Module):
        """Two branches multiplied (quantized_mul), 5x3 and 1x1 kernels, strides (2, 3)."""
        shape = (1, 5, 9, 11)

        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Conv2d(5, 6, (5, 3), padding=(2, 1)), nn.Conv2d(5, 6, 1)
            self.out = nn.Conv2d(6, 3, 3, stride=(2, 3))

        def forward(self, x):
            return self.out(self.a(x) * torch.relu(self.b(x)))

    class TconvSigmoid(nn.Module):
        """A transposed convolution (upsampling by 2), a sigmoid (quantized_activation), a 1x1 convolution."""
        shape = (1, 4, 5, 7)

        def __init__(self):
            super().__init__()
            self.up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)
            self.mix = nn.Conv2d(3, 2, 1)

        def forward(self, x):
            return self.mix(torch.sigmoid(self.up(x)))

    class MinMaxTanh(nn.Module):
        """The elementwise maximum and minimum of two branches, a tanh."""
        shape = (1, 10)

        def __init__(self):
            super().__init__()
            self.a, self.b, self.c = nn.Linear(10, 11), nn.Linear(10, 11), nn.Linear(11, 4)

        def forward(self, x):
            a, b = self.a(x), self.b(x)
            return self.c(torch.tanh(torch.maximum(a, b) - torch.minimum(a, b) * 0.5))

    def mlp_of(hidden: int, description: str):
        class WideMlp(nn.Module):
            __doc__ = description
            shape = (1, 2048)

            def __init__(self):
                super().__init__()
                self.fc1, self.fc2 = nn.Linear(2048, hidden), nn.Linear(hidden, 10)

            def forward(self, x):
                return self.fc2(torch.relu(self.fc1(x)))
        return WideMlp

    return {"res_cnn": ResCnn, "dws_relu6": DwsRelu6, "pool_linear": PoolLinear, "mlp": Mlp,
            "gated_conv": GatedConv, "tconv_sigmoid": TconvSigmoid, "minmax_tanh": MinMaxTanh,
            "big_mlp": mlp_of(2560, "5.3 MB of weights: more than a 4 MiB board's flash or RAM, less than 8 MiB"),
            "edge_mlp": mlp_of(2016, "4.16 MB of weights: less than 4 MiB of flash, not with the code beside it")}


# Not exported unless named: programs too large for some boards, built to see the build refuse them.
LARGE = ("big_mlp", "edge_mlp")


def _target(core: str):
    from executorch.backends.cortex_m.library import cmsis_nn
    from executorch.backends.cortex_m.target_config import CortexM, CortexMTargetConfig

    if core == "host":
        return CortexMTargetConfig(cpu=CortexM.M55, isa=cmsis_nn.Backend.SCALAR)
    return CortexMTargetConfig.from_target_string(core)


def _write(path: Path, data: bytes) -> None:
    """``data`` to ``path`` whole or not at all (a temporary file renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.replace(temporary, path)


def _npy(array) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def export(name: str, module_class, core: str, out: Path) -> dict:
    """Quantize, lower and write one model for one core; its info."""
    import torch
    from executorch.backends.cortex_m.edge_compile_config import cortex_m_edge_compile_config
    from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
    from executorch.backends.cortex_m.quantizer.quantizer import CortexMQuantizer
    from executorch.exir import EdgeProgramManager, to_edge
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    def channels_last(tensor):
        return tensor.to(memory_format=torch.channels_last) if tensor.dim() == 4 else tensor

    torch.manual_seed(SEED + len(name))
    model = module_class().eval().to(memory_format=torch.channels_last)
    example = channels_last(torch.randn(*module_class.shape))
    # The quantizer's passes refuse the guard call a strict export adds.
    graph = torch.export.export(model, (example,), strict=True).module(check_guards=False)
    prepared = prepare_pt2e(graph, CortexMQuantizer())
    with torch.no_grad():
        for _ in range(CALIBRATION_PASSES):
            prepared(channels_last(torch.randn(*module_class.shape)))
        prepared(example)
    config = cortex_m_edge_compile_config()
    edge = to_edge(torch.export.export(convert_pt2e(prepared), (example,), strict=True), compile_config=config)
    lowered = CortexMPassManager(edge.exported_program(), target_config=_target(core)).transform()
    with torch.no_grad():
        reference = lowered.module()(example)
    nodes = [node for node in lowered.graph_module.graph.nodes if node.op == "call_function"]
    scales = [float(node.args[1]) for node in nodes if "dequantize_per_tensor" in str(node.target)]
    program = EdgeProgramManager({"forward": lowered}, compile_config=config).to_executorch()
    info = {"model": name, "core": core, "input_shape": list(module_class.shape),
            "output_shape": list(reference.shape), "pte_bytes": len(program.buffer),
            "operators": sorted({node.target._schema.name for node in nodes if hasattr(node.target, "_schema")}),
            "quant_step": scales[-1] if scales else None}
    directory = out / core / name
    _write(directory / "model.pte", program.buffer)
    _write(directory / "forward.input_0.npy", _npy(example.contiguous().numpy()))
    _write(directory / "forward.output_0.npy", _npy(reference.contiguous().numpy()))
    _write(directory / "info.json", (json.dumps(info, indent=1, sort_keys=True) + "\n").encode())
    return info


def compare(out: Path, core: str, runs: Path, names: list[str]) -> int:
    """Print each model's largest difference from its reference; 1 if one is above a quantization step."""
    status = 0
    for name in names or sorted(path.name for path in (out / core).iterdir()):
        directory = out / core / name
        info = json.loads((directory / "info.json").read_text())
        expected = np.load(directory / "forward.output_0.npy")
        produced = runs / name / "output_0.npy"
        if not produced.is_file():
            print(f"{core} {name}: no output ({produced})")
            status = 1
            continue
        got = np.load(produced)
        if got.shape != expected.shape:
            print(f"{core} {name}: shape {list(got.shape)}, expected {list(expected.shape)}")
            status = 1
            continue
        difference = float(np.abs(got.astype(np.float64) - expected).max())
        steps = difference / info["quant_step"]
        verdict = "match" if steps <= 1 + 1e-6 else "MISMATCH"
        status |= verdict != "match"
        print(f"{core} {name}: max |diff| {difference:.3g} = {steps:.2f} quantization steps "
              f"(step {info['quant_step']:.3g}): {verdict}")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    exporting = commands.add_parser("export", help="lower the models for each core")
    exporting.add_argument("out", type=Path)
    exporting.add_argument("models", nargs="*", help="models (default: all but " + ", ".join(LARGE) + ")")
    exporting.add_argument("--core", action="append", choices=(*CORES, "host"), help="cores (default: the three)")
    comparing = commands.add_parser("compare", help="compare a board's outputs with the references")
    comparing.add_argument("out", type=Path)
    comparing.add_argument("core")
    comparing.add_argument("runs", type=Path)
    comparing.add_argument("models", nargs="*")
    args = parser.parse_args(argv)
    if args.command == "compare":
        return compare(args.out, args.core, args.runs, args.models)
    import torch

    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    models = _models()
    unknown = sorted(set(args.models) - set(models))
    if unknown:
        parser.error(f"unknown model {', '.join(unknown)}; one of {', '.join(models)}")
    for core in args.core or CORES:
        for name in args.models or [name for name in models if name not in LARGE]:
            info = export(name, models[name], core, args.out)
            print(f"{core} {name}: {info['pte_bytes']:,} bytes, {' '.join(info['operators'])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
