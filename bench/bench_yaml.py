"""Kernel yaml benchmark: etsb against ExecuTorch's merge_yaml.py, in one run.

    .venv/bin/python bench/bench_yaml.py [--runs N]      (about a minute; writes bench/results/bench_yaml.md)

Rows, each end to end with process start (median of N interleaved runs):
- read + validate the wheel's portable functions.yaml (209 operators);
  merge_yaml.py, given it alone, reads it and writes it back, with no checks;
- merge custom_ops.yaml over the portable functions.yaml;
and in process: parse + validate of a 2000-operator yaml (goal < 100 ms), the
first parse in a fresh process after the imports (no cache of parsed ATen
schemas or argument lists carries over: the time a one-shot tool pays), and a
later one in the same process.
The floor rows show what any Python tool that reads yaml pays here before work.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lib.env import ETSB, REPO, VENV_PYTHON, executorch_runtime
from lib.results import finish, table
from lib.timing import time_commands
from selective_build.model.errors import UserError
from selective_build.readers.aten_schemas import load_default_aten_schemas
from selective_build.readers.kernel_yaml import parse_kernel_yaml


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


_IN_PROCESS = """
import gc, json, sys, time
sys.path.insert(0, sys.argv[1])
from selective_build.readers.aten_schemas import load_default_aten_schemas  # noqa: E402
from selective_build.readers.kernel_yaml import parse_kernel_yaml
from selective_build.readers.yaml_nodes import compose
import yaml.cyaml  # imported on first use by the parser: an import, not parsing
text = open(sys.argv[2], encoding="utf-8").read()

def timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000

cold = timed(lambda: parse_kernel_yaml(text, sys.argv[2], load_default_aten_schemas()))
aten = load_default_aten_schemas()
warm = min(timed(lambda: parse_kernel_yaml(text, sys.argv[2], aten))[0] for _ in range(3))
gc.disable()
compose_only = min(timed(lambda: compose(text, sys.argv[2]))[0] for _ in range(3))
print(json.dumps({"cold": cold[0], "cold_cpu": cold[1], "warm": warm, "compose": compose_only}))
"""


def time_in_process(path: Path, runs: int) -> dict[str, float]:
    """Medians over ``runs`` fresh processes (modules imported first) of:
    ``cold``, the first parse + validate of ``path`` with the ATen table
    loaded, wall and CPU (``cold_cpu``) ms; ``warm``, a later parse in the same
    process (parsed schemas cached); ``compose``, PyYAML's C composer alone."""
    samples: dict[str, list[float]] = {}
    for _ in range(runs):
        done = subprocess.run([str(VENV_PYTHON), "-c", _IN_PROCESS, str(REPO / "tools"), str(path)],
                              check=True, capture_output=True, text=True)
        for key, value in json.loads(done.stdout).items():
            samples.setdefault(key, []).append(value)
    return {key: statistics.median(values) for key, values in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    started = time.perf_counter()
    et = executorch_runtime()
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

    synthetic = tmp / "synthetic.yaml"
    synthetic.write_text(synthetic_yaml(2000))
    in_process = time_in_process(synthetic, args.runs)
    portable_in_process = time_in_process(portable, args.runs)

    def ratio(row):
        return f"{row['executorch'] / row['etsb']:.2f}x"

    text = "\n".join([
        f"Kernel yaml: etsb vs ExecuTorch merge_yaml.py (median of {args.runs} interleaved runs, ms)", "",
        table(["case", "etsb", "merge_yaml.py", "speed-up", "goal"], [
            ["read + validate portable (209 ops), e2e", f"{validate['etsb']:.1f}", f"{validate['executorch']:.1f}",
             ratio(validate), ">= 2x"],
            ["merge custom over portable, e2e", f"{merge['etsb']:.1f}", f"{merge['executorch']:.1f}",
             ratio(merge), ">= 2x"]]), "",
        table(["in process, ms (median of fresh processes)", "cold", "cold CPU", "warm", "yaml alone", "goal"],
              [[name, *(f"{row[key]:.1f}" for key in ("cold", "cold_cpu", "warm", "compose")), goal]
               for name, row, goal in (("parse + validate 2000 operators", in_process, "< 100"),
                                       ("parse + validate portable (209 ops)", portable_in_process, ""))]),
        "cold: the first parse in a process (ATen schemas parsed as looked up); warm: a later one;\n"
        "yaml alone: PyYAML's C composer building the node tree, the part no validation can avoid.", "",
        table(["floor: any Python yaml tool pays", "ms"], [[name, f"{value:.1f}"] for name, value in floor.items()])])
    return finish("bench_yaml", "```\n" + text + "\n```", started)


if __name__ == "__main__":
    sys.exit(main())
