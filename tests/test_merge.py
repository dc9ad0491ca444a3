"""merge-yaml: the same operators with the same kernels as ExecuTorch's
merge_yaml.py on real inputs; deterministic, atomic output."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import PORTABLE_OPERATORS, VENV
from selective_build.__main__ import main
from selective_build.emit.kernel_yaml import render_kernel_yaml, scalar
from selective_build.readers.aten_schemas import load_default_aten_schemas
from selective_build.readers.kernel_yaml import parse_kernel_yaml
from selective_build.stages.merge import merge_kernel_yaml

ET_ROOT = Path(__import__("executorch").__path__[0])
PORTABLE = ET_ROOT / "kernels/portable/functions.yaml"
CUSTOM = ET_ROOT / "kernels/portable/custom_ops.yaml"
QUANTIZED = ET_ROOT / "kernels/quantized/quantized.yaml"
MERGE_YAML_PY = ET_ROOT / "codegen/tools/merge_yaml.py"

VENDOR = """\
# A vendor library: faster kernels for some portable operators, one of them
# specialised for Float tensors, and an operator of its own.
- op: add.out
  type_alias:
    T0: [Float]
  dim_order_alias:
    D0: [[0, 1], [1, 0]]
  kernels:
    - arg_meta:
        self: [T0, D0]
        other: [T0, D0]
        out: [T0, D0]
      kernel_name: vendor::add_out_float
    - arg_meta: null
      kernel_name: vendor::add_out

- func: aten::relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  kernels:
    - arg_meta: null
      kernel_name: vendor::relu_out

- op: addmm.out
  kernels:
    - arg_meta: null
      kernel_name: vendor::addmm_out
  tags: [core, "pt2_compliant_tag"]

- func: vendor::fused_gelu.out(Tensor self, str approximate="none", *, Tensor(a!) out) -> Tensor(a!)
  variants: function
  kernels:
    - arg_meta: null
      kernel_name: vendor::fused_gelu_out
"""


def canonical(entries: list) -> dict:
    """name -> what matters of an entry, from parsed yaml (either tool's output)."""
    result = {}
    for entry in entries:
        name = entry["op"] if "op" in entry else entry["func"].split("(")[0]
        name = name if "::" in name else f"aten::{name}"
        assert name not in result, name
        kernels = [(k["kernel_name"], None if k.get("arg_meta") is None else
                    {a: list(v) for a, v in k["arg_meta"].items()}) for k in entry["kernels"]]
        result[name] = {
            "kernels": kernels,
            "type_alias": {k: list(v) for k, v in (entry.get("type_alias") or {}).items()},
            "dim_order_alias": {k: [list(o) for o in v] for k, v in (entry.get("dim_order_alias") or {}).items()},
            "func": entry.get("func"),
            "other": {k: v for k, v in entry.items() if k in ("tags", "variants", "dispatch", "cpp_no_default_args")},
        }
    return result


def run_executorch_merge(functions: Path, fallback: Path | None, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    cmd = [str(VENV / "bin" / "python"), str(MERGE_YAML_PY), "--functions_yaml_path", str(functions),
           "--output_dir", str(out)]
    if fallback:
        cmd += ["--fallback_yaml_path", str(fallback)]
    subprocess.run(cmd, check=True, capture_output=True)
    return canonical(yaml.safe_load((out / "merged.yaml").read_text()))


def run_etsb_merge(functions: Path, fallback: Path | None, out: Path) -> dict:
    args = ["merge-yaml", "--functions-yaml-path", str(functions), "--output-dir", str(out)]
    if fallback:
        args += ["--fallback-yaml-path", str(fallback)]
    assert main(args) == 0
    return canonical(yaml.safe_load((out / "merged.yaml").read_text()))


@pytest.fixture
def vendor_yaml(tmp_path) -> Path:
    path = tmp_path / "vendor.yaml"
    path.write_text(VENDOR)
    return path


@pytest.mark.parametrize("pair", ["custom_over_portable", "vendor_over_portable", "quantized_over_portable",
                                  "portable_alone", "portable_over_vendor"])
def test_same_operators_and_kernels_as_executorch(pair, tmp_path, vendor_yaml):
    functions, fallback = {
        "custom_over_portable": (CUSTOM, PORTABLE),
        "vendor_over_portable": (vendor_yaml, PORTABLE),
        "quantized_over_portable": (QUANTIZED, PORTABLE),
        "portable_alone": (PORTABLE, None),
        "portable_over_vendor": (PORTABLE, vendor_yaml),
    }[pair]
    ours = run_etsb_merge(functions, fallback, tmp_path / "etsb")
    theirs = run_executorch_merge(functions, fallback, tmp_path / "executorch")
    assert ours == theirs
    assert len(ours) >= PORTABLE_OPERATORS


def test_vendor_wins_per_operator(tmp_path, vendor_yaml):
    merged = run_etsb_merge(vendor_yaml, PORTABLE, tmp_path)
    assert merged["aten::add.out"]["kernels"][0][0] == "vendor::add_out_float"
    assert merged["aten::relu.out"]["kernels"] == [("vendor::relu_out", None)]
    assert merged["aten::mul.out"]["kernels"] == [("torch::executor::mul_out", None)]
    assert "vendor::fused_gelu.out" in merged
    assert len(merged) == PORTABLE_OPERATORS + 1


def test_library_call_and_round_trip(vendor_yaml):
    aten = load_default_aten_schemas()
    vendor = parse_kernel_yaml(vendor_yaml.read_text(), str(vendor_yaml), aten)
    portable = parse_kernel_yaml(PORTABLE.read_text(), str(PORTABLE), aten)
    merged = merge_kernel_yaml(vendor, portable)
    assert [str(e.name) for e in merged[:4]] == ["aten::add.out", "aten::relu.out", "aten::addmm.out",
                                                 "vendor::fused_gelu.out"]
    text = render_kernel_yaml(merged)
    again = parse_kernel_yaml(text, "merged.yaml", aten)
    strip = lambda e: (e.name, e.kind, e.spelling, e.schema, e.type_alias, e.dim_order_alias,  # noqa: E731
                       [(k.kernel_name, k.arg_meta and [(m.argument, m.type_alias, m.dim_order_alias)
                                                        for m in k.arg_meta]) for k in e.kernels],
                       e.passthrough)
    assert [strip(e) for e in again.entries] == [strip(e) for e in merged]
    assert render_kernel_yaml(again.entries) == text


@pytest.mark.parametrize("text", ["plain", "a: b", "x #y", "null", "True", "no", "1.5", "-1", "[x]", "'q'",
                                  "", " lead", "trail ", "tab\tin", "é", "a::b.c(Tensor x) -> ()"])
def test_scalars_read_back_as_the_same_string(text):
    assert yaml.safe_load(f"k: {scalar(text)}")["k"] == text


def test_output_is_byte_identical_across_runs_and_hash_seeds(tmp_path, vendor_yaml):
    outputs = []
    for seed in ("0", "1", "12345"):
        out = tmp_path / seed
        env = dict(os.environ, PYTHONHASHSEED=seed)
        subprocess.run([str(VENV / "bin" / "etsb"), "merge-yaml", "--functions_yaml_path", str(vendor_yaml),
                        "--fallback_yaml_path", str(PORTABLE), "--output_dir", str(out)], check=True, env=env)
        outputs.append((out / "merged.yaml").read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]


def test_creates_nested_output_directory(tmp_path):
    out = tmp_path / "a" / "b"
    assert main(["merge-yaml", "--functions_yaml_path", str(CUSTOM), "--output_dir", str(out)]) == 0
    assert [p.name for p in out.iterdir()] == ["merged.yaml"]


def test_failed_merge_leaves_previous_output_untouched(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["merge-yaml", "--functions_yaml_path", str(CUSTOM), "--output_dir", str(out)]) == 0
    before = (out / "merged.yaml").read_bytes()
    bad = tmp_path / "bad.yaml"
    bad.write_text("- op: add.out\n  kernels:\n    - kernel_name: 'x y'\n")
    assert main(["merge-yaml", "--functions_yaml_path", str(CUSTOM), "--fallback_yaml_path", str(bad),
                 "--output_dir", str(out)]) == 2
    assert f"{bad}:3:20: error: kernel_name 'x y' is not a C++ qualified name" in capsys.readouterr().err
    assert (out / "merged.yaml").read_bytes() == before
    assert [p.name for p in out.iterdir()] == ["merged.yaml"]


def test_problems_of_both_files_are_reported_together(tmp_path, capsys):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("- op: nope.out\n  kernels: []\n")
    second.write_text("{}\n")
    assert main(["merge-yaml", "--functions_yaml_path", str(first), "--fallback_yaml_path", str(second),
                 "--output_dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{first}:1:7: error: 'nope.out' is not an ATen operator")
    assert err[1].startswith(f"{second}:1:1: error: expected a list of operator entries")
    assert not (tmp_path / "o").exists()


def test_missing_required_flag_is_a_usage_error(capsys):
    assert main(["merge-yaml", "--output_dir", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: etsb merge-yaml ") and "error: missing --functions-yaml-path" in err
