"""Kernel benchmark: each corpus model's trimmed binary against the same runner
linked with ExecuTorch's prebuilt optimized kernels, for speed; and the
trimmed binaries against the all-kernels one, for size; in one run.

    .venv/bin/python bench/bench_kernels.py [--iterations N] [--rounds R] [--workspace DIR]
    (builds every corpus example: many minutes; writes bench/results/bench_kernels.md)

Builds: `etsb build -j 2` in a copy of the workspace (default
etsb-out/bench/kernels/, kept between runs), with the peer runner of
lib/workspace.py, its thread pool at the library's default size.

1. Latency, per corpus model and method: the op-selective binary (`bin`),
   the dtype-selective one (`bin_dtype_selective`) and the peer, checked
   against torch's outputs first (a model the peer cannot run is noted and
   left out), then R interleaved rounds (default 7) of `--iterations N`
   (default 1000); the median of the runner's medians, in microseconds.
   Goal: ours at most 1.5x ExecuTorch's.
2. Size: stripped op-selective, kept dtype-selective (and the candidate it
   was chosen from) and all-kernels binaries, and their kernel +
   registration code as `etsb size` attributes it. Goals: that code at most a
   fifth of the all-kernels binary's; dtype-selective never larger than
   op-selective. Exits 1 when a size goal is missed or a binary is wrong.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from lib.env import OPTIMIZED_LIB, check_setup, starlark_env
from lib.models import Model, Plan, Timed, bench_items, corpus_methods
from lib.processes import check_et_runner, etsb_build
from lib.results import finish, markdown
from lib.workspace import ET_LABEL, copy_parts, write_et_package
from selective_build.driver import size as size_mod

DEFAULT_WORKSPACE = Path(__file__).resolve().parents[1] / "etsb-out" / "bench" / "kernels"
LATENCY_GOAL = 1.5        # ours / ExecuTorch optimized, at most
KERNEL_SHARE_GOAL = 0.2   # trimmed kernel + registration code / all-kernels', at most
VARIANTS = ("op-selective", "dtype-selective", "ExecuTorch optimized")
TARGETS = ("bin", "bin_dtype_selective", "bin_all_kernels")


def latency_rows(cases: list[Model], results: list[Timed]) -> tuple[list[list[str]], list[tuple[str, float]]]:
    """The latency table's rows (us), and (case, worse ratio of ours to ET) per case timed on both."""
    rows, ratios = [], []
    by_name = {t.name: t for t in results}
    for case in cases:
        us = {v: ms * 1000 for v, ms in by_name[case.name].ms.items()}
        et = us.get(VARIANTS[-1])
        cells = [case.name, str(case.kernel_calls), *(f"{us[v]:.2f}" if v in us else "-" for v in VARIANTS)]
        measured = [us[v] / et for v in VARIANTS[:2] if et and v in us]
        cells += [f"{us[v] / et:.2f}x" if et and v in us else "-" for v in VARIANTS[:2]]
        if measured:
            cells.append("met" if max(measured) <= LATENCY_GOAL else "NOT MET")
            ratios.append((case.name, max(measured)))
        else:
            cells.append("not measured")
        rows.append(cells)
    return rows, ratios


def kernel_code(measured: size_mod.BinarySize) -> int:
    """Bytes of kernel and registration code: the kernels (op_* objects), the
    kernel utilities and the generated registration, as `etsb size` splits them."""
    parts = measured.parts
    return (parts.get(size_mod.PART_KERNELS, 0) + parts.get(size_mod.PART_KERNEL_SUPPORT, 0)
            + parts.get(size_mod.PART_REGISTRATION, 0))


def kb(size: int) -> str:
    """Bytes as KB, one decimal."""
    return f"{size / 1024:.1f}"


def bench_sizes(models: list[str], workspace: Path, outputs: dict[str, Path]) -> tuple[list, list, list[str]]:
    """Rows of the two size tables, and the misses of each size goal."""
    stripped_rows, code_rows, failures = [], [], []

    def measure(label: str, path: Path | None = None) -> size_mod.BinarySize:
        path = path or outputs[label]
        return size_mod.measure(str(workspace), str(path.relative_to(workspace)), label)

    for model in models:
        op, dtype, every = (measure(f"//examples/{model}:{t}") for t in TARGETS)
        candidate = measure(f"//examples/{model}:bin_dtype_selective_dtype_selective",
                            workspace / "etsb-out" / "bin" / "examples" / model / "bin_dtype_selective_dtype_selective")
        stripped_rows.append([model, kb(op.stripped), kb(dtype.stripped), kb(candidate.stripped),
                              "dtype" if dtype.stripped == candidate.stripped else "op", kb(every.stripped),
                              "met" if dtype.stripped <= op.stripped else "NOT MET"])
        if dtype.stripped > op.stripped:
            failures.append(f"{model}: dtype-selective {dtype.stripped:,} B > op-selective {op.stripped:,} B")
        shares = [kernel_code(measured) / kernel_code(every) for measured in (op, dtype)]
        failures += [f"{model}, {name}: kernel + registration code {share:.1%} of the all-kernels binary's "
                     f"(goal <= {KERNEL_SHARE_GOAL:.0%})"
                     for name, share in zip(("op-selective", "dtype-selective"), shares) if share > KERNEL_SHARE_GOAL]
        code_rows.append([model, f"{len(op.operators)}/{len(every.operators)}", kb(kernel_code(op)),
                          kb(kernel_code(dtype)), kb(kernel_code(every)), *(f"{s:.2f}" for s in shares),
                          " / ".join("met" if s <= KERNEL_SHARE_GOAL else "NOT MET" for s in shares)])
    return stripped_rows, code_rows, failures


def goals(cases: list[Model], ratios: list[tuple[str, float]], failures: list[str], models: int) -> list[str]:
    """The goals' lines."""
    slow = [(name, r) for name, r in ratios if r > LATENCY_GOAL]
    worst = max(ratios, key=lambda item: item[1]) if ratios else None
    unmeasured = sorted({c.name for c in cases} - {n for n, _ in ratios})
    return ["Goals:",
            f"- latency <= {LATENCY_GOAL}x ExecuTorch optimized on every model: " + ("NOT MET" if slow else "met")
            + (f" (worst {worst[0]} {worst[1]:.2f}x)" if worst else "")
            + ("; over: " + ", ".join(f"{n} {r:.2f}x" for n, r in slow) if slow else "")
            + ("; not measured (see NOTE): " + ", ".join(unmeasured) if unmeasured else ""),
            f"- kernel + registration code <= {KERNEL_SHARE_GOAL:.0%} of all-kernels; dtype-selective never larger "
            "than op-selective: " + ("met" if not failures else f"NOT MET in {len(failures)} of {2 * models} binaries"),
            *(f"  {line}" for line in failures)]


def build_all(workspace: Path, models: list[str]) -> tuple[dict[str, Path], Path]:
    """The workspace copy, every model's three binaries and the ExecuTorch runner, built."""
    copy_parts(workspace, ["rules", "runtime", "kernels", "tools/runner", "tools/selective_build",
                           *(f"examples/{m}" for m in models), *(f"tests/models/{m}" for m in models)],
               ("MODULE.bazel", "BUILD"))
    write_et_package(workspace)
    labels = [f"//examples/{m}:{t}" for m in models for t in TARGETS] + [ET_LABEL]
    outputs = dict(etsb_build(workspace, labels, starlark_env()).outputs)
    return outputs, check_et_runner(outputs[ET_LABEL], OPTIMIZED_LIB)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000, help="in-process runs per timed process (default 1000)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timed processes per binary (default 7)")
    parser.add_argument("--workspace", type=Path, default=DEFAULT_WORKSPACE,
                        help="where the workspace copy is built (default etsb-out/bench/kernels)")
    options = parser.parse_args()
    check_setup()
    started = time.perf_counter()
    cases = corpus_methods()
    models = sorted({c.pte.parent.name for c in cases})
    missing = [m for m in models if not (Path(__file__).resolve().parents[1] / "examples" / m / "BUILD").exists()]
    if missing:
        raise SystemExit(f"corpus models without an example: {missing}")
    workspace = options.workspace.resolve()
    outputs, optimized = build_all(workspace, models)
    sides = {variant: {c.name: outputs[f"//examples/{c.pte.parent.name}:{t}"] for c in cases}
             for variant, t in zip(VARIANTS[:2], TARGETS)}
    sides[VARIANTS[-1]] = {c.name: outputs[ET_LABEL] for c in cases}
    plan = Plan(options.rounds, fixed=options.iterations, et_threads=0, optional=(VARIANTS[-1],))
    with tempfile.TemporaryDirectory(prefix="etsb_bench_kernels_") as tmp:
        results, problems, notes = bench_items(cases, sides, plan, Path(tmp))
    rows, ratios = latency_rows(cases, results)
    stripped_rows, code_rows, failures = bench_sizes(models, workspace, outputs)
    text = "\n".join([
        f"1. Latency (us, median over {options.rounds} interleaved processes of the median of {options.iterations} "
        "in-process runs; outputs checked against torch's first)", "",
        markdown(["model", "kernel calls", "ours op-sel us", "ours dtype-sel us", "ET optimized us", "op-sel/ET",
                  "dtype-sel/ET", f"goal <= {LATENCY_GOAL}x"], rows), "",
        f"ExecuTorch runner: //tools/runner:runner + {optimized} "
        f"({os.path.getsize(optimized) / 2**20:.1f} MB, registers its kernels at load)", "",
        "2. Stripped binaries (KB)", "",
        markdown(["model", "op-selective", "dtype-selective (kept)", "dtype-restricted candidate", "kept form",
                  "all kernels", "dtype <= op"], stripped_rows), "",
        "Kernel + registration code (KB, from the link map as `etsb size` splits it)", "",
        markdown(["model", "operators", "op-selective", "dtype-selective", "all kernels", "op-sel/all",
                  "dtype-sel/all", f"goal <= {KERNEL_SHARE_GOAL:.2f} (op / dtype)"], code_rows), "",
        *goals(cases, ratios, failures, len(models)), *(f"NOTE: {line}" for line in notes)])
    return finish("bench_kernels", text, started, problems + failures)


if __name__ == "__main__":
    sys.exit(main())
