"""Kernel yaml benchmark: etsb against ExecuTorch's merge_yaml.py, in one run.

    .venv/bin/python bench/bench_yaml.py [--runs N]

Rows, each end to end with process start (median of N interleaved runs):
- read + validate the wheel's portable functions.yaml (209 operators);
  merge_yaml.py, given it alone, reads it and writes it back, with no checks;
- merge custom_ops.yaml over the portable functions.yaml;
and in process: parse + validate of a 2000-operator yaml (goal < 100 ms).
The floor rows show what any Python tool that reads yaml pays here before work.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, VENV_PYTHON, table, time_call, time_commands  # noqa: E402

sys.path.insert(0, str(REPO / "tools"))
from selective_build.errors import UserError  # noqa: E402
from selective_build.kernel_yaml import load_default_aten_schemas, parse_kernel_yaml  # noqa: E402

ETSB = str(REPO / ".venv" / "bin" / "etsb")


def executorch_root() -> Path:
    import executorch

    return Path(executorch.__path__[0])


def synthetic_yaml(count: int) -> str:
    """``count`` valid operators: every ATen out variant etsb accepts, then custom ones
    with dtype-specialised kernels, so that every rule is exercised."""
    aten = load_default_aten_schemas()
    entries = []
    for name in sorted(aten.texts):
        entry = f"- op: {name}\n  kernels:\n    - arg_meta: null\n      kernel_name: torch::executor::k_{len(entries)}\n"
        try:
            parse_kernel_yaml(entry, "probe", aten)
        except UserError:
            continue
        entries.append(entry)
        if len(entries) == count:
            break
    while len(entries) < count:
        i = len(entries)
        entries.append(
            f"- func: custom::op{i}.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)\n"
            "  type_alias:\n    T0: [Float, Double]\n  dim_order_alias:\n    D0: [[0, 1], [1, 0]]\n"
            "  kernels:\n    - arg_meta:\n        self: [T0, D0]\n        other: [T0, D0]\n        out: [T0, D0]\n"
            f"      kernel_name: custom::op{i}_out\n    - arg_meta: null\n      kernel_name: custom::op{i}_any\n")
    return "\n".join(entries)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    et = executorch_root()
    portable = et / "kernels/portable/functions.yaml"
    custom = et / "kernels/portable/custom_ops.yaml"
    merge_py = et / "codegen/tools/merge_yaml.py"
    tmp = Path(tempfile.mkdtemp(prefix="etsb-bench-"))
    (tmp / "et").mkdir()

    floor = time_commands({
        "python -c pass": [str(VENV_PYTHON), "-c", "pass"],
        "python -c 'import yaml'": [str(VENV_PYTHON), "-c", "import yaml"],
    }, args.runs)
    validate = time_commands({
        "etsb": [ETSB, "validate-yaml", str(portable)],
        "executorch": [str(VENV_PYTHON), str(merge_py), "--functions_yaml_path", str(portable),
                       "--output_dir", str(tmp / "et")],
    }, args.runs)
    merge = time_commands({
        "etsb": [ETSB, "merge-yaml", "--functions_yaml_path", str(custom), "--fallback_yaml_path", str(portable),
                 "--output_dir", str(tmp / "etsb")],
        "executorch": [str(VENV_PYTHON), str(merge_py), "--functions_yaml_path", str(custom),
                       "--fallback_yaml_path", str(portable), "--output_dir", str(tmp / "et")],
    }, args.runs)

    text = synthetic_yaml(2000)
    aten = load_default_aten_schemas()
    parse_kernel_yaml(text, "warm-up", aten)
    in_process = time_call(lambda: parse_kernel_yaml(text, "bench.yaml", aten), args.runs)
    portable_text = portable.read_text()
    portable_in_process = time_call(lambda: parse_kernel_yaml(portable_text, "p.yaml", aten), args.runs)

    def ratio(row):
        return f"{row['executorch'] / row['etsb']:.2f}x"

    print(f"kernel yaml: etsb vs ExecuTorch merge_yaml.py (median of {args.runs} interleaved runs, ms)\n")
    print(table(
        ["case", "etsb", "merge_yaml.py", "speed-up", "goal"],
        [
            ["read + validate portable (209 ops), e2e", f"{validate['etsb']:.1f}", f"{validate['executorch']:.1f}",
             ratio(validate), ">= 3x"],
            ["merge custom over portable, e2e", f"{merge['etsb']:.1f}", f"{merge['executorch']:.1f}",
             ratio(merge), ">= 3x"],
        ]))
    print()
    print(table(
        ["in process", "ms", "goal"],
        [
            ["parse + validate 2000 operators", f"{in_process:.1f}", "< 100"],
            ["parse + validate portable (209 ops)", f"{portable_in_process:.1f}", ""],
        ]))
    print()
    print(table(
        ["floor: any Python yaml tool pays", "ms"],
        [[name, f"{value:.1f}"] for name, value in floor.items()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
