"""Export the single-operator programs that `bench/bench_models.py --set ops` times: one
mid-size case per operator (convolutions, matrix products, elementwise ops,
reductions, pooling, copies), each a tiny module lowered to a ``.pte``.

Run in the export environment (torch + executorch; the benchmark itself never imports torch):

    .venv-export/bin/python bench/export_op_bench.py [--cases a,b,...]

Writes under bench/.data/ops (ignored by git), per case NAME, NAME/NAME.pte
(`torch.export`, then `to_edge_transform_and_lower` with no partitioner, as
tests/models/export_real.py), NAME/input_<i>.npy and NAME/output_<i>.npy
(torch eager's float32 outputs), and manifest.json: per case its description,
the operators its plan calls (its own and only those EXTRA_OK allows), its
files and the float32-vs-float64 gap (the benchmark's tolerance is 10x it).
Inputs come from a generator seeded by the case's name: a re-export writes the same arrays.
"""

from __future__ import annotations

import copy
import json
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from lib.timing import choose, listed, parser

OUTPUT = Path(__file__).resolve().parent / ".data" / "ops"


@dataclass(frozen=True)
class Case:
    """One operator case: its module, input shapes, and the operator it must call."""

    name: str
    description: str
    operator: str                     # the kernel call the case is about, as the plan names it
    build: Callable[[], nn.Module]
    shapes: tuple[tuple[int, ...], ...]


class Call(nn.Module):
    """forward(*inputs) = function(*inputs, *parameters)."""

    def __init__(self, function: Callable, *parameters: torch.Tensor) -> None:
        super().__init__()
        self.function = function
        self.weights = nn.ParameterList([nn.Parameter(p, requires_grad=False) for p in parameters])

    def forward(self, *inputs: torch.Tensor):
        """The function of the inputs and parameters."""
        return self.function(*inputs, *self.weights)


def conv(cin: int, cout: int, kernel: int, stride: int, groups: int = 1) -> Callable[[], nn.Module]:
    """A padded Conv2d with bias."""
    return lambda: nn.Conv2d(cin, cout, kernel, stride=stride, padding=kernel // 2, groups=groups, bias=True)


def addmm(k: int, n: int) -> Callable[[], nn.Module]:
    """bias + x @ W, W already [k, n] (a constant): addmm alone, no permute of the weight."""
    return lambda: Call(lambda x, bias, weight: torch.ops.aten.addmm(bias, x, weight),
                        torch.randn(n) * 0.1, torch.randn(k, n) / k ** 0.5)


def layer_norm(features: int) -> Callable[[], nn.Module]:
    """A LayerNorm with weights and bias drawn away from 1 and 0."""
    def make() -> nn.Module:
        module = nn.LayerNorm(features)
        with torch.no_grad():
            module.weight.normal_(1.0, 0.1)
            module.bias.normal_(0.0, 0.1)
        return module
    return make


CONV, ADDMM, OWN = "aten::convolution.out", "aten::addmm.out", ""   # OWN: "aten::NAME.out" of the case's name
CASES = [Case(name, what, own or f"aten::{name}.out", *rest) for name, what, own, *rest in (
    ("conv3x3_s1", "conv 3x3 stride 1, 64->64 ch, 56x56", CONV, conv(64, 64, 3, 1), ((1, 64, 56, 56),)),
    ("conv3x3_s2", "conv 3x3 stride 2, 64->128 ch, 56x56 -> 28x28", CONV, conv(64, 128, 3, 2), ((1, 64, 56, 56),)),
    ("conv1x1", "pointwise conv 1x1, 128->256 ch, 28x28", CONV, conv(128, 256, 1, 1), ((1, 128, 28, 28),)),
    ("conv_dw3x3", "depthwise conv 3x3 stride 1, 128 ch, 56x56", CONV, conv(128, 128, 3, 1, groups=128),
     ((1, 128, 56, 56),)),
    ("addmm", "addmm: [256,512] @ [512,512] + bias (weight already transposed)", ADDMM, addmm(512, 512),
     ((256, 512),)),
    ("linear", "nn.Linear 512->512 on [256,512] (permute_copy of the weight + addmm)", ADDMM,
     lambda: nn.Linear(512, 512), ((256, 512),)),
    ("mm", "mm: [256,512] @ [512,256]", OWN, lambda: Call(torch.mm), ((256, 512), (512, 256))),
    ("bmm", "bmm: [16,128,64] @ [16,64,128] (attention scores)", OWN, lambda: Call(torch.bmm),
     ((16, 128, 64), (16, 64, 128))),
    ("add_broadcast", "add [32,128,256] + [256]", "aten::add.out", lambda: Call(torch.add), ((32, 128, 256), (256,))),
    ("gelu", "gelu (erf) on [32,128,256]", OWN, lambda: nn.GELU(), ((32, 128, 256),)),
    ("sigmoid", "sigmoid on [32,128,256]", OWN, lambda: nn.Sigmoid(), ((32, 128, 256),)),
    ("softmax", "softmax over the last dim of [8,8,128,128]", "aten::_softmax.out", lambda: nn.Softmax(dim=-1),
     ((8, 8, 128, 128),)),
    ("layer_norm", "layer_norm over 768 of [512,768], affine", "aten::native_layer_norm.out", layer_norm(768),
     ((512, 768),)),
    ("mean", "mean over H,W of [1,256,56,56] (global average pool), keepdim", OWN,
     lambda: Call(lambda x: x.mean(dim=(2, 3), keepdim=True)), ((1, 256, 56, 56),)),
    ("max_pool2d", "max_pool2d 3x3 stride 2 pad 1 on [1,64,112,112]", "aten::max_pool2d_with_indices.out",
     lambda: nn.MaxPool2d(3, stride=2, padding=1), ((1, 64, 112, 112),)),
    ("avg_pool2d", "avg_pool2d 2x2 stride 2 on [1,128,56,56]", OWN, lambda: nn.AvgPool2d(2, stride=2),
     ((1, 128, 56, 56),)),
    ("cat", "cat of two [1,64,56,56] along channels", OWN, lambda: Call(lambda a, b: torch.cat([a, b], dim=1)),
     ((1, 64, 56, 56), (1, 64, 56, 56))),
    ("permute_copy", "permute NCHW -> NHWC of [1,128,56,56]", OWN, lambda: Call(lambda x: x.permute(0, 2, 3, 1)),
     ((1, 128, 56, 56),)))]

# Kernel calls a case may make besides its own operator (the lowering's own choices).
EXTRA_OK = {"linear": {"aten::permute_copy.out"}}


def as_tuple(result) -> tuple[torch.Tensor, ...]:
    """A module's result as a tuple of tensors."""
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def export_case(case: Case, out_dir: Path) -> dict:
    """Export one case; its manifest entry."""
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    torch.manual_seed(zlib.crc32(case.name.encode()))
    module = case.build().eval()
    inputs = tuple(torch.randn(shape) for shape in case.shapes)
    with torch.no_grad():
        outputs = tuple(t.detach().clone() for t in as_tuple(module(*inputs)))
        outputs64 = as_tuple(copy.deepcopy(module).double()(*(t.double() for t in inputs)))
    gap = max(float((a.double() - b).abs().max()) for a, b in zip(outputs, outputs64))
    program = to_edge_transform_and_lower(torch.export.export(module, inputs)).to_executorch()
    plan = program.executorch_program.execution_plan[0]
    operators = sorted({f"{op.name}.{op.overload}" if op.overload else op.name for op in plan.operators})
    unexpected = set(operators) - {case.operator} - EXTRA_OK.get(case.name, set())
    if case.operator not in operators or unexpected:
        raise SystemExit(f"{case.name}: the program calls {operators}, expected {case.operator}")
    got = as_tuple(Runtime.get().load_program(program.buffer).load_method("forward").execute(list(inputs)))
    runtime_diff = max(float((a.double() - b.double()).abs().max()) for a, b in zip(outputs, got))

    directory = out_dir / case.name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{case.name}.pte").write_bytes(program.buffer)
    for prefix, tensors in (("input", inputs), ("output", outputs)):
        for index, tensor in enumerate(tensors):
            np.save(directory / f"{prefix}_{index}.npy", tensor.numpy(), allow_pickle=False)
    return {"description": case.description, "operator": case.operator, "operators": operators,
            "pte": f"{case.name}/{case.name}.pte", "inputs": [f"{case.name}/input_{i}.npy" for i in range(len(inputs))],
            "outputs": [f"{case.name}/output_{i}.npy" for i in range(len(outputs))],
            "input_shapes": [list(s) for s in case.shapes], "max_abs_diff_fp32_vs_fp64": gap,
            "max_abs_diff_eager_vs_runtime": runtime_diff,
            "max_abs_output": max(float(t.abs().max()) for t in outputs)}


def main() -> int:
    """Export the cases asked for, merged into the manifest."""
    options = parser(__doc__, cases=(listed, None, "comma-separated case names (default: all)")).parse_args()
    torch.set_num_threads(1)
    known = {c.name: c for c in CASES}
    wanted = choose("cases", options.cases, known)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    manifest_path = OUTPUT / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"cases": {}}
    for name in wanted:
        start = time.perf_counter()
        manifest["cases"][name] = export_case(known[name], OUTPUT)
        entry = manifest["cases"][name]
        print(f"{name}: {', '.join(entry['operators'])} ({time.perf_counter() - start:.1f} s, "
              f"fp64 gap {entry['max_abs_diff_fp32_vs_fp64']:.1e})", flush=True)
    manifest["cases"] = {n: manifest["cases"][n] for n in known if n in manifest["cases"]}
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {len(wanted)} cases to {OUTPUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
