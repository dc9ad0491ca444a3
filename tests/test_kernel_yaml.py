"""Kernel yaml: ExecuTorch's real files validate; every broken file gives its
expected message at its expected place, through the CLI, with exit status 2."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from conftest import PORTABLE_OPERATORS, REPO, VENV
from selective_build.__main__ import main
from selective_build.model.errors import UserError
from selective_build.model.names import parse_operator_name
from selective_build.readers.aten_schemas import load_default_aten_schemas, parse_aten_schemas
from selective_build.readers.kernel_yaml import parse_kernel_yaml

BAD = REPO / "tests" / "data" / "bad_yaml"
ATEN_OPS = REPO / "tools" / "selective_build" / "data" / "aten_ops.yaml"
ET_ROOT = Path(__import__("executorch").__path__[0])
WHEEL_YAMLS = [
    "kernels/portable/functions.yaml",
    "kernels/portable/custom_ops.yaml",
    "kernels/portable/et_copy_ops.yaml",
    "kernels/quantized/quantized.yaml",
    "backends/cortex_m/ops/operators.yaml",
]


@pytest.fixture(scope="module")
def aten():
    return load_default_aten_schemas()


@pytest.mark.parametrize("relative", WHEEL_YAMLS)
def test_executorch_wheel_yaml_validates(relative, aten):
    path = ET_ROOT / relative
    parsed = parse_kernel_yaml(path.read_text(), str(path), aten)
    assert parsed.entries
    for entry in parsed.entries:
        assert entry.kernels and entry.location.line > 0
        assert all(kernel.location.line > entry.location.line for kernel in entry.kernels)


def test_portable_yaml_model(aten):
    path = ET_ROOT / "kernels/portable/functions.yaml"
    parsed = parse_kernel_yaml(path.read_text(), str(path), aten)
    assert len(parsed.entries) == PORTABLE_OPERATORS
    assert sum(e.kind == "func" for e in parsed.entries) == 9
    add = parsed.entry(parse_operator_name("aten::add.out"))
    assert str(add.schema) == "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
    assert add.default_kernel.cpp_function == "torch::executor::native::add_out"
    layer_norm = parsed.entry(parse_operator_name("aten::native_layer_norm.out"))
    assert [a.name for a in layer_norm.schema.out_arguments] == ["out0", "out1", "out2"]
    clamp = parsed.entry(parse_operator_name("aten::clamp.out"))
    assert clamp.passthrough == (("cpp_no_default_args", ("min",)),)
    assert parsed.entry(parse_operator_name("dim_order_ops::_to_dim_order_copy.out")).is_custom


# A vendor's add.out: a kernel specialised by dtype and dim order, and a default.
VENDOR_ADD = """
- op: add.out
  type_alias:
    T0: [Double, Float]
  dim_order_alias:
    D0: [[0, 1, 2, 3], [0, 2, 3, 1]]
  kernels:
    - arg_meta:
        self: [T0, D0]
        other: [T0, D0]
        out: [T0, D0]
      kernel_name: vendor::add_out
    - arg_meta: null
      kernel_name: add_out_any
"""


def test_specialised_kernels_and_aliases(aten):
    entry = parse_kernel_yaml(VENDOR_ADD, "v.yaml", aten).entries[0]
    assert entry.type_alias == (("T0", ("Double", "Float")),)
    assert entry.dim_order_alias == (("D0", ((0, 1, 2, 3), (0, 2, 3, 1))),)
    special, default = entry.kernels
    assert [(m.argument, m.type_alias, m.dim_order_alias) for m in special.arg_meta] == [
        ("self", "T0", "D0"), ("other", "T0", "D0"), ("out", "T0", "D0")]
    assert special.cpp_function == "vendor::native::add_out"
    assert default.is_default and default.cpp_function == "native::add_out_any"
    assert (special.location.line, special.location.column) == (8, 7)


def test_dim_orders_read_yaml_integers_as_pyyaml_does(aten):
    text = """
- func: custom::f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  type_alias: {T0: [Float]}
  dim_order_alias: {D0: [[0x0, 0b1, 02, +3]]}
  kernels:
    - arg_meta: {self: [T0, D0], out: [T0, D0]}
      kernel_name: custom::f_out
"""
    entry = parse_kernel_yaml(text, "ints.yaml", aten).entries[0]
    by_pyyaml = yaml.safe_load(text)[0]["dim_order_alias"]["D0"]
    assert entry.dim_order_alias == (("D0", tuple(map(tuple, by_pyyaml))),) == (("D0", ((0, 1, 2, 3),)),)


def test_every_problem_in_a_file_is_reported(aten):
    text = "- op: relu.outt\n  kernels: []\n- op: add.out\n  kernels:\n    - kernel_name: a-b\n"
    with pytest.raises(UserError) as info:
        parse_kernel_yaml(text, "two.yaml", aten)
    assert [(p.location.line, p.location.column) for p in info.value.problems] == [(1, 7), (5, 20)]


def _expectation(path: Path) -> tuple[str, str]:
    first = path.read_bytes().split(b"\n", 1)[0].decode()
    assert first.startswith("# expect: "), path
    place, message = first[len("# expect: "):].split(": ", 1)
    return place, message


BAD_FILES = sorted(p.name for p in BAD.glob("*.yaml"))


def test_bad_input_suite_is_large_enough():
    assert len(BAD_FILES) >= 20


@pytest.mark.parametrize("name", BAD_FILES)
def test_bad_yaml_gives_message_and_place(name, capsys):
    path = BAD / name
    place, message = _expectation(path)
    status = main(["validate-yaml", str(path)])
    err = capsys.readouterr().err
    assert status == 2
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:{place}: error: "), err
    assert message in first, err
    assert "Traceback" not in err


def test_bad_yaml_through_the_console_script_exits_2_without_traceback(tmp_path):
    out_dir = tmp_path / "out"
    result = subprocess.run(
        [str(VENV / "bin" / "etsb"), "merge-yaml", "--functions_yaml_path", str(BAD / "unknown_dtype.yaml"),
         "--fallback_yaml_path", str(ET_ROOT / "kernels/portable/functions.yaml"), "--output_dir", str(out_dir)],
        capture_output=True, text=True)
    assert result.returncode == 2
    assert "unknown dtype 'Flaot'" in result.stderr and "Traceback" not in result.stderr
    assert not out_dir.exists() or not any(out_dir.iterdir())


@pytest.mark.parametrize("make, message", [
    (lambda d: d, "is a directory, expected a kernel yaml file"),
    (lambda d: d / "missing.yaml", "no such kernel yaml file"),
])
def test_unreadable_inputs(tmp_path, capsys, make, message):
    path = make(tmp_path)
    assert main(["validate-yaml", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"{path}: error: {message}"


def test_aten_yaml_option_takes_full_native_functions(export_python, capsys):
    """--aten-yaml reads torchgen's full native_functions.yaml (PyYAML path)."""
    native = next(export_python.parent.parent.glob(
        "lib/python3*/site-packages/torchgen/packaged/ATen/native/native_functions.yaml"))
    aten = parse_aten_schemas(native.read_text(), str(native))
    path = ET_ROOT / "kernels/portable/custom_ops.yaml"
    parsed = parse_kernel_yaml(path.read_text(), str(path), aten)
    assert len(parsed.entries) == 2
    # relu.out is autogenerated by torchgen, not spelled out in native_functions.yaml:
    # the full file does not know it, etsb's generated data does.
    assert aten.lookup("relu.out") is None
    assert load_default_aten_schemas().lookup("relu.out") is not None
    assert main(["validate-yaml", "--aten-yaml", str(BAD / "empty.yaml"), str(path)]) == 2
    assert "no '- func: <schema>' entries" in capsys.readouterr().err


def test_aten_schema_data_is_regenerable(export_python, tmp_path):
    """The packaged aten_ops.yaml is what scripts/gen_aten_schemas.py makes from torch's torchgen."""
    out = tmp_path / "aten_ops.yaml"
    subprocess.run([str(export_python), str(REPO / "scripts" / "gen_aten_schemas.py"), "--output", str(out)],
                   check=True, capture_output=True)
    assert out.read_bytes() == ATEN_OPS.read_bytes()


def test_aten_schema_line_scan_matches_pyyaml():
    import yaml

    path = ATEN_OPS
    scanned = parse_aten_schemas(path.read_text(), str(path)).texts
    loaded = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
    assert dict(scanned) == {e["func"].partition("(")[0]: e["func"] for e in loaded}
    assert len(scanned) > 1400


_SEED_YAML = VENDOR_ADD + """\
- func: custom::op.out(Tensor self, int[2] size=[1, 1], *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  variants: function
  kernels:
    - arg_meta: null
      kernel_name: custom::op_out
"""


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(_SEED_YAML) - 1), st.integers(0, 3),
                          st.sampled_from(list(" \n-:[],{}&*!'\"#|>?%@`\t0aT_.()") + ["null", "::", "  "])),
                min_size=1, max_size=4))
def test_mutated_kernel_yaml_gives_located_errors_only(aten, edits):
    """Any corruption of a valid file parses or fails with located problems, never another exception."""
    text = _SEED_YAML
    for position, removed, inserted in edits:
        text = text[:position] + inserted + text[position + removed:]
    try:
        parsed = parse_kernel_yaml(text, "mutated.yaml", aten)
    except UserError as error:
        assert all(p.location is not None and p.location.path == "mutated.yaml" for p in error.problems), text
        assert all(p.location.line >= 1 for p in error.problems), text
    else:
        assert all(entry.kernels for entry in parsed.entries)
