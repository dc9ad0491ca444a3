"""Export the etsb test model corpus.

Run in the export environment (torch==2.13.0 with the full executorch==1.5.1),
which ``scripts/setup.sh --export-env`` creates; ``scripts/export_models.sh``
does both.  For every model this writes, under ``tests/models/<model>/``:

* ``<model>.pte``: the ExecuTorch program;
* ``<method>.input_<i>.npy``: the sample inputs of each method;
* ``<method>.output_<i>.npy``: torch eager's outputs on those inputs;

and one ``tests/models/manifest.json`` describing every model: file hashes,
input and output shapes and dtypes, and, per method, the operators, kernel keys
and dtypes read from the exported program (the emitter's Python objects, not
the flatbuffer: an independent reference for etsb's own ``.pte`` reader).

Before writing anything, each program is run once with ExecuTorch's own
pybindings runtime and its outputs are checked against eager.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from executorch.exir import to_edge
from executorch.exir.schema import (
    DelegateCall,
    KernelCall,
    Tensor as SchemaTensor,
)
from executorch.exir.scalar_type import ScalarType

ROOT = Path(__file__).resolve().parent
# etsb's own package is pure Python: the export environment uses it from source
# for facts and file writing; the operators and keys are read independently.
sys.path.insert(0, str(ROOT.parent.parent / "tools"))
from selective_build.model.dtypes import SCALAR_TYPE_NAMES  # noqa: E402
from selective_build.readers.files import write_bytes_atomic  # noqa: E402
from selective_build.model.names import parse_operator_name  # noqa: E402
from selective_build.model.program import needs_no_kernel  # noqa: E402

MANIFEST_VERSION = 1

# Reference tolerances between ExecuTorch's runtime and eager at export time.
EXPORT_RTOL = 1e-5
EXPORT_ATOL = 1e-6


# ----------------------------------------------------------------------------
# The models
# ----------------------------------------------------------------------------


class Mlp(torch.nn.Module):
    """Linear, ReLU, Linear: permute_copy, addmm, relu."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


class SmallCnn(torch.nn.Module):
    """Convolution, ReLU, max pooling and a linear classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(4 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pool(torch.relu(self.conv(x)))
        return self.fc(y.reshape(y.shape[0], -1))


class AttentionBlock(torch.nn.Module):
    """Pre-norm single-head self-attention with a residual connection."""

    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.dim = dim
        self.norm = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        q, k, v = self.qkv(h).split(self.dim, dim=-1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.dim)
        attn = torch.softmax(scores, dim=-1)
        return x + self.proj(torch.matmul(attn, v))


class EmbeddingBag(torch.nn.Module):
    """An embedding over int64 indices, averaged, then a linear layer."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(32, 8)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.fc(self.emb(idx).mean(dim=1))


class MixedDtypes(torch.nn.Module):
    """Float and int64 inputs, Python scalars, a comparison, where, and a
    reduction whose dtype comes from a ``dtype=`` argument (Double)."""

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        z = x * 2.5 + y
        mask = z > 1.0
        return (
            torch.where(mask, z, -z),
            y * 3 + 1,
            mask,
            z.sum(dim=1, dtype=torch.float64),
        )


class PairForward(torch.nn.Module):
    """The first method of the two-method program: two outputs."""

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        return x + y, x * y


class PairScale(torch.nn.Module):
    """The second method of the two-method program."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x - 0.5)


@dataclass(frozen=True)
class MethodSpec:
    """One method of a corpus program: its module and sample inputs."""

    module: Callable[[], torch.nn.Module]
    inputs: Callable[[], tuple]


@dataclass(frozen=True)
class ModelSpec:
    """A corpus program: a name, a one-line description and its methods."""

    name: str
    description: str
    methods: dict
    # Memory planning leaves the graph's outputs unallocated: the caller gives
    # each output its buffer (Method::set_output_data_ptr).
    caller_outputs: bool = False


def _randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, dtype=torch.float32)


MODELS = [
    ModelSpec("mlp", "Linear-ReLU-Linear on a float batch",
              {"forward": MethodSpec(Mlp, lambda: (_randn(2, 8),))}),
    ModelSpec("cnn", "Conv2d, ReLU, MaxPool2d and Linear on an 8x8 image",
              {"forward": MethodSpec(SmallCnn, lambda: (_randn(1, 1, 8, 8),))}),
    ModelSpec("attention", "LayerNorm, single-head attention with softmax, residual",
              {"forward": MethodSpec(AttentionBlock, lambda: (_randn(1, 6, 16),))}),
    ModelSpec("embedding", "Embedding over int64 indices, mean, Linear",
              {"forward": MethodSpec(EmbeddingBag,
                                     lambda: (torch.randint(0, 32, (2, 5), dtype=torch.int64),))}),
    ModelSpec("mixed_dtypes", "float and int64 inputs, Python scalars, comparison, where, "
              "a Double reduction from dtype=; four outputs of four dtypes",
              {"forward": MethodSpec(MixedDtypes, lambda: (
                  _randn(4, 5), torch.randint(-3, 4, (4, 5), dtype=torch.int64)))}),
    ModelSpec("two_methods", "two methods: forward with two outputs, scale with one",
              {"forward": MethodSpec(PairForward, lambda: (_randn(3, 4), _randn(3, 4))),
               "scale": MethodSpec(PairScale, lambda: (_randn(3, 4),))}),
    ModelSpec("caller_outputs", "the MLP with outputs whose memory the caller provides (not planned)",
              {"forward": MethodSpec(Mlp, lambda: (_randn(2, 8),))}, caller_outputs=True),
]


# ----------------------------------------------------------------------------
# Reading the exported program
# ----------------------------------------------------------------------------


def _dtype_name(scalar_type: ScalarType) -> str:
    """The ScalarType name used in kernel yaml (``Float``, ``Long``, ...)."""
    return SCALAR_TYPE_NAMES[int(scalar_type)]


def _key_entry(tensor: SchemaTensor) -> str:
    return f"{int(tensor.scalar_type)};{','.join(str(d) for d in tensor.dim_order)}"


def describe_plan(plan) -> dict:
    """Operators, kernel keys and dtypes of one execution plan.

    The kernel key is what the runtime looks up: one ``dtype;dim_order`` entry
    for every argument of the kernel call that is a single tensor, in argument
    order (the out tensor appears again as the returned value).  Dtypes also
    include those passed as ``ScalarType`` arguments (e.g. ``dtype=``).
    """
    names = [f"{op.name}.{op.overload}" if op.overload else op.name for op in plan.operators]
    ops: dict[str, dict] = {}
    delegates = 0
    for chain in plan.chains:
        for instruction in chain.instructions:
            args = instruction.instr_args
            if isinstance(args, DelegateCall):
                delegates += 1
                continue
            if not isinstance(args, KernelCall):
                continue
            entry = ops.setdefault(names[args.op_index], {"keys": set(), "dtypes": set(), "calls": 0})
            entry["calls"] += 1
            key_parts = []
            for value_index in args.args:
                val = plan.values[value_index].val
                if isinstance(val, SchemaTensor):
                    key_parts.append(_key_entry(val))
                    entry["dtypes"].add(_dtype_name(val.scalar_type))
                elif isinstance(getattr(val, "int_val", None), ScalarType):
                    entry["dtypes"].add(_dtype_name(val.int_val))
            entry["keys"].add("v1/" + "|".join(key_parts))
    kernel_ops = {n: e for n, e in ops.items() if not needs_no_kernel(parse_operator_name(n))}
    return {
        "operators": sorted(kernel_ops),
        "runtime_prim_operators": sorted(set(ops) - set(kernel_ops)),
        "delegate_calls": delegates,
        "kernel_calls": sum(e["calls"] for e in ops.values()),
        "kernel_keys": {n: sorted(e["keys"]) for n, e in sorted(kernel_ops.items())},
        "dtypes": {n: sorted(e["dtypes"]) for n, e in sorted(kernel_ops.items())},
    }


# ----------------------------------------------------------------------------
# Writing files
# ----------------------------------------------------------------------------


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _npy_bytes(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _as_tuple(result) -> tuple:
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def _check_with_executorch_runtime(name: str, method: str, buffer: bytes,
                                   inputs: tuple, expected: tuple) -> None:
    """Run the program with ExecuTorch's pybindings and compare with eager."""
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer

    program = _load_for_executorch_from_buffer(buffer)
    got = _as_tuple(program.run_method(method, inputs))
    if len(got) != len(expected):
        raise SystemExit(f"{name}.{method}: runtime gave {len(got)} outputs, eager {len(expected)}")
    for i, (g, e) in enumerate(zip(got, expected)):
        g, e = g.numpy(), e.detach().numpy()
        if g.dtype != e.dtype or g.shape != e.shape:
            raise SystemExit(f"{name}.{method} output {i}: runtime {g.dtype}{g.shape}, eager {e.dtype}{e.shape}")
        if not np.allclose(g, e, rtol=EXPORT_RTOL, atol=EXPORT_ATOL):
            raise SystemExit(f"{name}.{method} output {i}: runtime and eager differ")


def _backend_config(spec: ModelSpec):
    """The emitter's configuration: the default, or graph outputs left unplanned."""
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir.passes import MemoryPlanningPass

    if not spec.caller_outputs:
        return None
    return ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(alloc_graph_output=False))


def export_model(spec: ModelSpec, out_root: Path) -> dict:
    """Export one model, write its files, and return its manifest entry."""
    exported = {}
    samples = {}
    for method, mspec in spec.methods.items():
        torch.manual_seed(sum(map(ord, f"{spec.name}.{method}")))
        module = mspec.module().eval()
        inputs = mspec.inputs()
        with torch.no_grad():
            outputs = _as_tuple(module(*inputs))
        exported[method] = torch.export.export(module, inputs, strict=True)
        samples[method] = (inputs, outputs)

    program = to_edge(exported).to_executorch(_backend_config(spec))
    buffer = program.buffer
    model_dir = out_root / spec.name
    files: dict[str, bytes] = {f"{spec.name}.pte": buffer}
    methods = {}
    plans = {plan.name: plan for plan in program.executorch_program.execution_plan}
    for method, (inputs, outputs) in samples.items():
        _check_with_executorch_runtime(spec.name, method, buffer, inputs, outputs)
        entry = describe_plan(plans[method])
        entry["inputs"] = []
        entry["outputs"] = []
        for kind, tensors in (("input", inputs), ("output", outputs)):
            for i, tensor in enumerate(tensors):
                array = tensor.detach().numpy()
                file_name = f"{method}.{kind}_{i}.npy"
                data = _npy_bytes(array)
                files[file_name] = data
                entry[f"{kind}s"].append({
                    "file": file_name,
                    "dtype": str(array.dtype),
                    "shape": list(array.shape),
                    "sha256": _sha256(data),
                })
        methods[method] = entry

    for file_name, data in files.items():
        write_bytes_atomic(model_dir / file_name, data)
    return {
        "description": spec.description,
        "pte": f"{spec.name}/{spec.name}.pte",
        "pte_sha256": _sha256(buffer),
        "pte_size": len(buffer),
        "methods": methods,
        "operators": sorted({op for m in methods.values() for op in m["operators"]}),
    }


def main(argv: list[str] | None = None) -> int:
    """Export the models named on the command line (default: all)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="models to export (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT, help="corpus directory")
    args = parser.parse_args(argv)

    known = {spec.name: spec for spec in MODELS}
    unknown = [m for m in args.models if m not in known]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(known)}")
    manifest_path = args.out / "manifest.json"
    manifest = {"version": MANIFEST_VERSION, "models": {}}
    if args.models and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    manifest["generator"] = {
        "torch": torch.__version__.split("+")[0],
        "executorch": _executorch_version(),
    }
    for name in args.models or known:
        print(f"exporting {name}", file=sys.stderr)
        manifest["models"][name] = export_model(known[name], args.out)
    manifest["models"] = dict(sorted(manifest["models"].items()))
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    write_bytes_atomic(manifest_path, text.encode())
    return 0


def _executorch_version() -> str:
    from executorch.version import __version__

    return __version__.split("+")[0]


if __name__ == "__main__":
    sys.exit(main())
