"""Resolution of selected operators and keys to kernels, and the coverage check."""

from __future__ import annotations

import pytest

from selective_build.model.errors import UserError
from selective_build.model.keys import parse_kernel_key
from selective_build.model.names import parse_operator_name
from selective_build.model.selection import SelectedOperator, make_selection
from selective_build.readers.aten_schemas import load_default_aten_schemas
from selective_build.readers.kernel_yaml import parse_kernel_yaml
from selective_build.stages.resolve import kernel_keys_of, resolve

ATEN = load_default_aten_schemas()

YAML = """\
- op: add.out
  type_alias:
    T0: [Float, Double]
    T1: [Long]
  dim_order_alias:
    D0: [[0, 1]]
  kernels:
    - arg_meta:
        self: [T0, D0]
        other: [T0, D0]
        out: [T0, D0]
      kernel_name: vendor::add_out_float
    - arg_meta:
        self: [T1, D0]
        other: [T1, D0]
        out: [T1, D0]
      kernel_name: vendor::add_out_long
    - arg_meta: null
      kernel_name: torch::executor::add_out
- op: relu.out
  type_alias:
    T0: [Float]
  dim_order_alias:
    D0: [[0, 1], [1, 0]]
  kernels:
    - arg_meta:
        self: [T0, D0]
        out: [T0, D0]
      kernel_name: vendor::relu_out
- op: add.Scalar_out
  kernels:
    - arg_meta: null
      kernel_name: torch::executor::add_scalar_out
"""
FLOAT_2D = "v1/6;0,1|6;0,1|6;0,1|6;0,1"


def kernels(text: str = YAML):
    return parse_kernel_yaml(text, "k.yaml", ATEN)


def select(keys: dict[str, list[str]], **flags):
    """A selection of operators (names as text) with kernel keys (as text)."""
    parsed = {parse_operator_name(op): [parse_kernel_key(k) for k in ks] for op, ks in keys.items()}
    return make_selection([SelectedOperator(op, debug_info=("m.pte",), **flags) for op in parsed], parsed)


def texts(keys) -> list[str]:
    return [key.text for key in keys]


def rows(resolution) -> list[tuple[str | None, str]]:
    """The kernel table: (key text or None, kernel name) per row."""
    return [(r.key.text if r.key else None, r.kernel.kernel_name) for r in resolution.registrations]


def test_keys_follow_the_runtime_layout_and_aliases_bind_once():
    parsed = kernels()
    add = parsed.entry(parse_operator_name("aten::add.out"))
    # self, other, out, and the returned out again; one alias is one value throughout.
    assert texts(kernel_keys_of(add, add.kernels[0])) == [FLOAT_2D, "v1/7;0,1|7;0,1|7;0,1|7;0,1"]
    assert kernel_keys_of(add, add.kernels[2]) == ()
    relu = parsed.entry(parse_operator_name("aten::relu.out"))
    assert texts(kernel_keys_of(relu, relu.kernels[0])) == ["v1/6;0,1|6;0,1|6;0,1", "v1/6;1,0|6;1,0|6;1,0"]


def test_specialised_kernel_for_its_key_default_for_others():
    resolution = resolve([kernels()], select({"aten::add.out": [FLOAT_2D, "v1/3;0|3;0|3;0|3;0"]}))
    assert rows(resolution) == [(FLOAT_2D, "vendor::add_out_float"), (None, "torch::executor::add_out")]


def test_any_key_registers_every_kernel():
    resolution = resolve([kernels()], select({"aten::add.out": ["default"]}))
    assert [r.kernel.kernel_name for r in resolution.registrations] == [
        "vendor::add_out_long", "vendor::add_out_float", "vendor::add_out_float", "torch::executor::add_out"]
    assert resolution.registrations[-1].key is None


def test_dtype_only_keys_pick_kernels_of_that_dtype():
    resolution = resolve([kernels()], select({"aten::add.out": ["v1/4;"]}))
    assert rows(resolution) == [
        ("v1/4;0,1|4;0,1|4;0,1|4;0,1", "vendor::add_out_long"), (None, "torch::executor::add_out")]


def test_a_hint_is_appended_to_a_missing_entry_only():
    selection = select({"aten::relu.out": ["v1/7;0,1|7;0,1|7;0,1"], "aten::mm.out": [FLOAT_2D]})
    with pytest.raises(UserError) as info:
        resolve([kernels()], selection, hint=lambda name: f"HINT for {name}")
    problems = [str(p) for p in info.value.problems]
    assert problems[0] == ("error: aten::mm.out: no kernel yaml entry for this operator (needed by m.pte; "
                           "not in k.yaml); HINT for aten::mm.out")
    assert "HINT" not in problems[1]  # a missing key: the entry is there, its kernels are not


def test_include_all_overloads_and_include_all_operators():
    resolution = resolve([kernels()], select({"aten::add": ["default"]}, include_all_overloads=True))
    assert [str(op.entry.name) for op in resolution.operators] == ["aten::add.Scalar_out", "aten::add.out"]
    everything = resolve([kernels()], make_selection(include_all_operators=True))
    assert len(everything.operators) == 3


def test_every_gap_is_reported_at_once():
    selection = select({"aten::relu.out": ["v1/7;0,1|7;0,1|7;0,1"], "aten::mm.out": [FLOAT_2D]})
    with pytest.raises(UserError) as info:
        resolve([kernels()], selection)
    assert [str(p) for p in info.value.problems] == [
        "error: aten::mm.out: no kernel yaml entry for this operator (needed by m.pte; not in k.yaml)",
        "k.yaml:20:7: error: aten::relu.out: no kernel for key v1/7;0,1|7;0,1|7;0,1 (Double 2-D contiguous, "
        "Double 2-D contiguous, Double 2-D contiguous); needed by m.pte; add a kernel with arg_meta: null or "
        "one for these dtypes and dim orders to k.yaml",
    ]


def test_two_kernels_claiming_one_key_is_an_error():
    text = YAML.replace("T1: [Long]", "T1: [Double]")
    with pytest.raises(UserError) as info:
        resolve([kernels(text)], select({"aten::add.out": [FLOAT_2D]}))
    assert "aten::add.out: kernels vendor::add_out_float and vendor::add_out_long both claim key " \
           "v1/7;0,1|7;0,1|7;0,1|7;0,1 (Double 2-D contiguous" in info.value.message
