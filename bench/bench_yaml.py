"""Kernel yaml benchmark: etsb against ExecuTorch's merge_yaml.py, in one run.

    .venv/bin/python bench/bench_yaml.py [--runs N]      (about a minute; writes bench/results/bench_yaml.md)

End to end (median of N interleaved runs): read + validate the wheel's portable
functions.yaml (merge_yaml.py, given it alone, writes it back unchecked); merge
custom_ops.yaml over it. In fresh processes: parse + validate of a
2000-operator yaml (goal < 100 ms), cold (first) and warm; the Python floor.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from lib.env import ETSB, REPO, VENV_PYTHON, executorch_runtime
from lib.results import finish, markdown
from lib.timing import parser, probes, python, time_commands
from selective_build.model.errors import UserError
from selective_build.readers.aten_schemas import load_default_aten_schemas
from selective_build.readers.kernel_yaml import parse_kernel_yaml

CUSTOM = ("- func: custom::op{i}.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)\n"
          "  type_alias:\n    T0: [Float, Double]\n  dim_order_alias:\n    D0: [[0, 1], [1, 0]]\n"
          "  kernels:\n    - arg_meta:\n        self: [T0, D0]\n        other: [T0, D0]\n        out: [T0, D0]\n"
          "      kernel_name: custom::op{i}_out\n    - arg_meta: null\n      kernel_name: custom::op{i}_any\n")
# Timed in a fresh process (argv: tools/, the yaml): cold and warm parse + validate, PyYAML's composer alone.
IN_PROCESS = """
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


def synthetic_yaml(count: int) -> str:
    """``count`` valid operators: every ATen out variant etsb accepts, then custom ones
    with dtype-specialised kernels, so that every rule is exercised."""
    aten, entries = load_default_aten_schemas(), []
    for name in sorted(aten.texts):
        entry = f"- op: {name}\n  kernels:\n    - arg_meta: null\n      kernel_name: torch::executor::k_{len(entries)}\n"
        try:
            parse_kernel_yaml(entry, "probe", aten)
        except UserError:
            continue
        entries.append(entry)
        if len(entries) == count:
            break
    return "\n".join(entries + [CUSTOM.format(i=i) for i in range(len(entries), count)])


def in_process(path: Path, runs: int) -> list[str]:
    """Medians over ``runs`` fresh processes of IN_PROCESS's cold, cold CPU, warm and compose-only ms."""
    samples = probes(python(IN_PROCESS) + [str(REPO / "tools"), str(path)], runs)
    return [f"{statistics.median(s[key] for s in samples):.1f}" for key in ("cold", "cold_cpu", "warm", "compose")]


def main() -> int:
    """Time both tools end to end and etsb's parsing in process; write the report."""
    args = parser(__doc__, runs=15).parse_args()
    et = executorch_runtime()
    portable, custom = et / "kernels/portable/functions.yaml", et / "kernels/portable/custom_ops.yaml"
    with tempfile.TemporaryDirectory(prefix="etsb-bench-") as name:
        tmp = Path(name)
        (tmp / "et").mkdir()
        peer = [str(VENV_PYTHON), str(et / "codegen/tools/merge_yaml.py"), "--output_dir", str(tmp / "et")]
        merging = ["--functions_yaml_path", str(custom), "--fallback_yaml_path", str(portable)]
        floors = time_commands({"python -c pass": "pass", "python -c 'import yaml'": "import yaml"}, args.runs)
        e2e = {"read + validate portable (209 ops), e2e": time_commands(
                   {"etsb": [ETSB, "validate-yaml", str(portable)],
                    "executorch": [*peer, "--functions_yaml_path", str(portable)]}, args.runs),
               "merge custom over portable, e2e": time_commands(
                   {"etsb": [ETSB, "merge-yaml", *merging, "--output_dir", str(tmp / "etsb")],
                    "executorch": [*peer, *merging]}, args.runs)}
        (tmp / "synthetic.yaml").write_text(synthetic_yaml(2000))
        parsing = [["parse + validate 2000 operators", *in_process(tmp / "synthetic.yaml", args.runs), "< 100"],
                   ["parse + validate portable (209 ops)", *in_process(portable, args.runs), ""]]
    return finish("bench_yaml", "\n".join([
        f"Kernel yaml: etsb vs ExecuTorch merge_yaml.py (median of {args.runs} interleaved runs, ms)", "",
        markdown(["case", "etsb", "merge_yaml.py", "speed-up", "goal"],
                 [[name, f"{row['etsb']:.1f}", f"{row['executorch']:.1f}", f"{row['executorch'] / row['etsb']:.2f}x",
                   ">= 2x"] for name, row in e2e.items()]), "",
        markdown(["in process, ms (median of fresh processes)", "cold", "cold CPU", "warm", "yaml alone", "goal"],
                 parsing), "",
        "cold: the first parse in a process (ATen schemas parsed as looked up); warm: a later one;\n"
        "yaml alone: PyYAML's C composer building the node tree, the part no validation can avoid.", "",
        markdown(["floor: any Python yaml tool pays", "ms"], [[n, f"{value:.1f}"] for n, value in floors.items()])]))


if __name__ == "__main__":
    sys.exit(main())
