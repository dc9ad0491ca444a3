"""Export this example's model: a small network that calls a custom operator.

Run in the export environment (torch 2.13.0, executorch 1.5.1; created by
``scripts/setup.sh --export-env``), from the repository root:

    .venv-export/bin/python examples/custom_op/export_model.py [--out DIR]

The operator is ``my_ops::relu_squared(Tensor self, float scale) -> Tensor``:
``scale * relu(self) ** 2`` elementwise (the "squared ReLU" activation, which
ATen does not have). torch needs three things to export a model that calls it:

* the schema of the operator and of its out variant (``relu_squared.out``),
  because an ExecuTorch program calls out variants: that is the operator the
  ``.pte`` names, and the one ``my_ops.yaml`` declares with the same schema;
* an eager implementation, which computes the reference outputs;
* a fake (meta) implementation, which gives export the output's shape and dtype.

Files written next to this script (or in ``--out``): ``model.pte``,
``forward.input_0.npy`` (the sample input) and ``forward.output_0.npy``
(torch's output on it, what the binary's output is compared with). The export
is deterministic: running it again writes the same bytes.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import numpy as np
import torch
from executorch.exir import EdgeCompileConfig, to_edge

HERE = Path(__file__).resolve().parent

# The operator's schemas, as in my_ops.yaml (which declares only the out variant).
FUNCTIONAL = "relu_squared(Tensor self, float scale) -> Tensor"
OUT_VARIANT = "relu_squared.out(Tensor self, float scale, *, Tensor(a!) out) -> Tensor(a!)"


def relu_squared(self: torch.Tensor, scale: float) -> torch.Tensor:
    """The eager implementation: what the C++ kernel must compute."""
    return scale * torch.relu(self).square()


def register_operator() -> torch.library.Library:
    """Teach torch the operator; the registrations last as long as the returned object."""
    library = torch.library.Library("my_ops", "DEF")
    library.define(FUNCTIONAL)
    library.define(OUT_VARIANT)

    def relu_squared_out(self: torch.Tensor, scale: float, *, out: torch.Tensor) -> torch.Tensor:
        return out.copy_(relu_squared(self, scale))

    library.impl("relu_squared", relu_squared, "CompositeExplicitAutograd")
    library.impl("relu_squared.out", relu_squared_out, "CompositeExplicitAutograd")
    library.impl("relu_squared", lambda self, scale: torch.empty_like(self), "Meta")
    library.impl("relu_squared.out", lambda self, scale, *, out: out, "Meta")
    return library


class Model(torch.nn.Module):
    """Linear, squared ReLU (the custom operator), Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.ops.my_ops.relu_squared(self.fc1(x), 0.5))


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def export() -> dict[str, bytes]:
    """File name -> contents of every file of the example's model."""
    library = register_operator()
    torch.manual_seed(0)  # the weights and the input: the same every run
    model = Model().eval()
    x = torch.randn(2, 4)
    with torch.no_grad():
        expected = model(x)
    exported = torch.export.export(model, (x,), strict=False)
    # my_ops::relu_squared is not a core ATen operator, which Edge dialect checks for: skip the check.
    program = to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False)).to_executorch()
    operators = sorted(f"{op.name}.{op.overload}" for op in program.executorch_program.execution_plan[0].operators)
    assert "my_ops::relu_squared.out" in operators, operators
    del library
    return {"model.pte": program.buffer, "forward.input_0.npy": _npy(x.numpy()),
            "forward.output_0.npy": _npy(expected.numpy())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="where the files are written")
    args = parser.parse_args(argv)
    files = export()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        temporary = args.out / f".{name}.tmp"
        temporary.write_bytes(data)
        temporary.replace(args.out / name)
    print(f"wrote {', '.join(files)} to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
