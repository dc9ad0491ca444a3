"""Export the custom-operator test model: one operator taking an argument of
every type ExecuTorch 1.5.1 can carry from a .pte to a kernel.

Run in the export environment (torch 2.13.0, executorch 1.5.1):

    .venv-export/bin/python tests/models/custom_op/export_custom_op.py [--out DIR]

The operator ``etsb_test::encode_args`` (and its out variant, which the .pte
calls) returns a float64 vector that encodes every value it received: ints,
floats, bools as 0/1, Scalar kinds, ScalarType/MemoryFormat/Layout numbers,
list lengths and elements, string byte lengths and bytes, which optionals are
present, and sums of the tensors. The eager implementation below computes it
in torch, so the expected output comes from torch; the C++ kernel in
tests/data/kernels/custom_op.cpp computes the same encoding from what the
runtime hands it. tests/test_custom_op.py compares them exactly.

Files written next to this script (or in --out): ``custom_op.pte``,
``forward.input_<i>.npy``, ``forward.output_0.npy`` and ``custom_op.json``
(the schemas, the label of every output slot, and file hashes).

Which types the ExecuTorch 1.5.1 emitter serializes (each tried on its own
with a one-argument operator):

* works: Tensor, Tensor? (a tensor or None), Tensor[], Tensor?[], Tensor[]?,
  int, SymInt, int[], SymInt[], int[]?, int?, float, float[], float[]?,
  float?, bool, bool[], bool[]?, bool?, Scalar (int, float or bool), Scalar?,
  ScalarType, ScalarType?, MemoryFormat and MemoryFormat? (contiguous_format
  and preserve_format only), Layout and Layout? (torch.strided: the emitter
  writes layout values as Int; the runtime's EValue reads them back with
  toLayout), str, str?, and defaults the call site leaves out (the emitter
  writes the schema's default);
* Device? only as None: the emitter has no case for torch.device
  ("Unsupported constant type: device"), so a device value cannot be
  exported, although the runtime's EValue could read one from an Int;
* MemoryFormat channels_last: "Tensor has a memory_format that is unsupported
  in ExecuTorch";
* str[], Scalar[] and ScalarType[]: "Unknown list type" / "Unsupported type
  encountered in int list" from the emitter (and EValue has no such lists);
* SymBool exports (as Bool), but etsb's kernel yaml does not accept it (no
  EValue conversion is declared for it); Generator? exports only as None and
  EValue has no Generator; SymFloat and Dimname are rejected by
  torch.library itself.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from pathlib import Path

import numpy as np
import torch
from executorch.exir import EdgeCompileConfig, to_edge

HERE = Path(__file__).resolve().parent

NAMESPACE = "etsb_test"
# The arguments, in schema order: (type, name, value passed by the model).
# Tensors are named by the model input that is passed ("x", "y", "n").
# Arguments after KWARG_ONLY are keyword-only; "dflt" is left to its default.
ARGUMENTS = [
    ("Tensor", "t", "x"),
    ("Tensor?", "t_opt", "y"),
    ("Tensor?", "t_opt_none", None),
    ("Tensor[]", "t_list", ["n", "y"]),
    ("Tensor?[]", "t_opt_list", [None, "x", "n"]),
    ("Tensor[]?", "t_list_opt", ["n"]),
    ("Tensor[]?", "t_list_opt_none", None),
    ("int", "i", 2**40 + 3),
    ("SymInt", "si", -7),
    ("int[]", "i_list", [5, -2, 9]),
    ("SymInt[]", "si_list", [4, 1]),
    ("int[]?", "i_list_opt", [-3]),
    ("int[]?", "i_list_opt_none", None),
    ("int?", "i_opt", 11),
    ("int?", "i_opt_none", None),
    ("float", "f", 0.1),
    ("float[]", "f_list", [2.5, -1e10]),
    ("float[]?", "f_list_opt", [1.0 / 3.0]),
    ("float[]?", "f_list_opt_none", None),
    ("float?", "f_opt", -0.75),
    ("float?", "f_opt_none", None),
    ("bool", "b", True),
    ("bool[]", "b_list", [False, True, True]),
    ("bool[]?", "b_list_opt", [True]),
    ("bool[]?", "b_list_opt_none", None),
    ("bool?", "b_opt", False),
    ("bool?", "b_opt_none", None),
    ("Scalar", "s_int", -12),
    ("Scalar", "s_float", 6.25),
    ("Scalar", "s_bool", True),
    ("Scalar?", "s_opt", 0.125),
    ("Scalar?", "s_opt_none", None),
    ("ScalarType", "st", torch.float64),
    ("ScalarType?", "st_opt", torch.int32),
    ("ScalarType?", "st_opt_none", None),
    "KWARG_ONLY",
    ("MemoryFormat", "mf", torch.contiguous_format),
    ("MemoryFormat?", "mf_opt", torch.preserve_format),
    ("MemoryFormat?", "mf_opt_none", None),
    ("Layout", "layout", torch.strided),
    ("Layout?", "layout_opt", torch.strided),
    ("Layout?", "layout_opt_none", None),
    ("Device?", "device_opt_none", None),
    ("str", "text", "etsb \u2713"),
    ("str?", "text_opt", "opt"),
    ("str?", "text_opt_none", None),
    ("int", "dflt", "DEFAULT"),
]
DEFAULTS = {"dflt": "7"}

# ATen's (and ExecuTorch's) enum numbers of the values this model passes.
SCALAR_TYPES = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
                torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.bfloat16: 15}
MEMORY_FORMATS = {torch.contiguous_format: 0, torch.preserve_format: 1}
LAYOUTS = {torch.strided: 0}


def _schema_arguments() -> tuple[str, bool]:
    parts, star = [], False
    for item in ARGUMENTS:
        if item == "KWARG_ONLY":
            parts.append("*")
            star = True
            continue
        type_, name, _ = item
        default = DEFAULTS.get(name)
        parts.append(f"{type_} {name}" + (f"={default}" if default is not None else ""))
    return ", ".join(parts), star


def schemas() -> tuple[str, str]:
    """(functional schema, out-variant schema), without the namespace."""
    arguments, star = _schema_arguments()
    functional = f"encode_args({arguments}) -> Tensor"
    out = f"encode_args.out({arguments}{', ' if star else ', *, '}Tensor(a!) out) -> Tensor(a!)"
    return functional, out


# -- the encoding, in torch ---------------------------------------------------


def _kind(value) -> int:
    """The kind of a Scalar: 0 integral, 1 floating point, 2 boolean."""
    return 2 if isinstance(value, bool) else 1 if isinstance(value, float) else 0


def _tensor_sum(t: torch.Tensor) -> float:
    return float(t.to(torch.float64).sum())


def _fields(type_: str, v) -> dict[str, float]:
    """The encoding of one (present) value of a non-optional type, field by field."""
    if type_ == "Tensor":
        return {"numel": v.numel(), "dtype": SCALAR_TYPES[v.dtype], "sum": _tensor_sum(v)}
    if type_ == "Tensor[]":
        return {"len": len(v), "numel": sum(t.numel() for t in v), "sum": sum(_tensor_sum(t) for t in v),
                "dtype0": SCALAR_TYPES[v[0].dtype]}
    if type_ == "Tensor?[]":
        present = [t for t in v if t is not None]
        return {"len": len(v), "present": len(present),
                "first_none": next((k for k, t in enumerate(v) if t is None), -1),
                "sum": sum(_tensor_sum(t) for t in present)}
    if type_ in ("int", "SymInt", "float", "bool"):
        return {"value": v}
    if type_ == "int[]":
        return {"len": len(v), "first": v[0], "last": v[-1], "sum": sum(v)}
    if type_ in ("SymInt[]", "float[]"):
        return {"len": len(v), "first": v[0], "last": v[-1]}
    if type_ == "bool[]":
        return {"len": len(v), "true": sum(v), "first": v[0]}
    if type_ == "Scalar":
        return {"kind": _kind(v), "value": v}
    if type_ in ("ScalarType", "MemoryFormat", "Layout"):
        return {"value": {"ScalarType": SCALAR_TYPES, "MemoryFormat": MEMORY_FORMATS, "Layout": LAYOUTS}[type_][v]}
    if type_ == "Device":
        return {"type": 0 if v.type == "cpu" else 1}
    if type_ == "str":
        data = v.encode("utf-8")
        return {"bytes": len(data), "first": data[0], "last": data[-1]}
    raise AssertionError(f"no encoding for {type_}")


# The fields an optional encodes after its "present" flag (zeros when absent).
_OPTIONAL_FIELDS = {"Tensor": ("numel", "sum"), "Tensor[]": ("len", "sum"), "int[]": ("len", "first"),
                    "float[]": ("len", "first"), "bool[]": ("len", "first"), "str": ("bytes", "first"),
                    "int": ("value",), "float": ("value",), "bool": ("value",), "Scalar": ("kind", "value"),
                    "ScalarType": ("value",), "MemoryFormat": ("value",), "Layout": ("value",), "Device": ("type",)}


def encode(values: dict) -> list[tuple[str, float]]:
    """(label, value) of every output slot, from the arguments' values."""
    slots: list[tuple[str, float]] = []
    for item in ARGUMENTS:
        if item == "KWARG_ONLY":
            continue
        type_, name, _ = item
        v = values[name]
        if type_.endswith("?") and not type_.endswith("?[]"):
            element = type_[:-1]
            present = _fields(element, v) if v is not None else {}
            fields = {"present": v is not None, **{f: present.get(f, 0) for f in _OPTIONAL_FIELDS[element]}}
        else:
            fields = _fields(type_, v)
        slots += [(f"{name}.{field}", float(value)) for field, value in fields.items()]
    return slots


# -- the operator ----------------------------------------------------------------


def _values(args: tuple, kwargs: dict) -> dict:
    names = [item[1] for item in ARGUMENTS if item != "KWARG_ONLY"]
    values = dict(zip(names, args))
    values.update({k: v for k, v in kwargs.items() if k != "out"})
    values.setdefault("dflt", int(DEFAULTS["dflt"]))
    return values


def _slot_count() -> int:
    sample = {"x": torch.zeros(1), "y": torch.zeros(1), "n": torch.zeros(1, dtype=torch.int64)}
    return len(encode(_call_values(sample, with_default=True)))


def define_operator() -> torch.library.Library:
    """Register etsb_test::encode_args and its out variant with torch."""
    count = _slot_count()  # here: the meta kernel runs under fake tensors
    library = torch.library.Library(NAMESPACE, "DEF")
    functional, out = schemas()
    library.define(functional)
    library.define(out)

    def eager(*args, **kwargs):
        return torch.tensor([v for _, v in encode(_values(args, kwargs))], dtype=torch.float64)

    def eager_out(*args, **kwargs):
        out_tensor = kwargs["out"]
        out_tensor.copy_(eager(*args, **kwargs))
        return out_tensor

    def meta(*args, **kwargs):
        return torch.empty(count, dtype=torch.float64, device="meta")

    library.impl("encode_args", eager, "CompositeExplicitAutograd")
    library.impl("encode_args.out", eager_out, "CompositeExplicitAutograd")
    library.impl("encode_args", meta, "Meta")
    library.impl("encode_args.out", lambda *args, **kwargs: kwargs["out"], "Meta")
    return library


def _call_values(tensors: dict, with_default: bool = False) -> dict:
    """Argument name -> value passed, with tensor names replaced by ``tensors``."""
    def resolve(value):
        if isinstance(value, str) and value in tensors:
            return tensors[value]
        if isinstance(value, list) and value and all(e is None or e in ("x", "y", "n") for e in value):
            return [None if e is None else tensors[e] for e in value]
        return value

    values = {}
    for item in ARGUMENTS:
        if item == "KWARG_ONLY":
            continue
        _, name, value = item
        if value == "DEFAULT":
            if with_default:
                values[name] = int(DEFAULTS[name])
            continue
        values[name] = resolve(value)
    return values


class CustomOpModel(torch.nn.Module):
    """Calls etsb_test::encode_args once on its three inputs and constants."""

    def forward(self, x: torch.Tensor, y: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        values = _call_values({"x": x, "y": y, "n": n})
        names = [item[1] for item in ARGUMENTS if item != "KWARG_ONLY"]
        star = ARGUMENTS.index("KWARG_ONLY")
        positional = [values[name] for name in names[:star]]
        keywords = {name: values[name] for name in names[star:] if name in values}
        return torch.ops.etsb_test.encode_args(*positional, **keywords)


def sample_inputs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Values exactly representable with few bits, so every sum is exact in any order."""
    x = (torch.arange(6, dtype=torch.float32).reshape(2, 3) - 1.5) / 4
    y = torch.tensor([1.5, -0.25, 8.0, 0.75], dtype=torch.float32)
    n = torch.tensor([3, -40, 1000], dtype=torch.int64)
    return x, y, n


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def export() -> dict[str, bytes]:
    """File name -> contents of every file of the model."""
    library = define_operator()  # the registrations live as long as this object
    model = CustomOpModel().eval()
    inputs = sample_inputs()
    with torch.no_grad():
        expected = model(*inputs)
    slots = encode(_call_values(dict(zip("xyn", inputs)), with_default=True))
    assert expected.tolist() == [v for _, v in slots]
    exported = torch.export.export(model, inputs, strict=False)
    # Custom operators are not Edge (core ATen) operators: skip that check.
    program = to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False)).to_executorch()
    operators = [f"{op.name}.{op.overload}" for op in program.executorch_program.execution_plan[0].operators]
    assert operators == [f"{NAMESPACE}::encode_args.out"], operators
    files = {"custom_op.pte": program.buffer}
    for i, tensor in enumerate(inputs):
        files[f"forward.input_{i}.npy"] = _npy(tensor.numpy())
    files["forward.output_0.npy"] = _npy(expected.numpy())
    functional, out = schemas()
    description = {
        "operator": f"{NAMESPACE}::encode_args.out",
        "schema": f"{NAMESPACE}::{out}",
        "functional_schema": f"{NAMESPACE}::{functional}",
        "slots": [label for label, _ in slots],
        "sha256": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }
    files["custom_op.json"] = (json.dumps(description, indent=2) + "\n").encode()
    del library
    return files


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
    print(f"wrote {len(files)} files to {args.out} (custom_op.pte: {len(files['custom_op.pte'])} bytes)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
