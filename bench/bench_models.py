"""Model benchmark: programs built by etsb with different kernel libraries and
backends ("sides") run side by side on the same models in one run: latency,
GFLOP/s, peak memory and the check against torch per side, and the size by
part of every binary built, with an SVG bar chart.

    .venv/bin/python bench/bench_models.py [--set real|ops|delegated|corpus|tree|quantized|llm]
        [--sides a,b,...]
        [--threads 1,2] [--models a,b,...] [--runs N] [--rounds R] [--iterations N] [--cold-runs N]
        [--no-wait] [--max-wait MIN] [--workspace DIR] [--ops-data DIR] [--executorch-root DIR]
    (minutes for a few models, up to an hour or more for a whole set; writes
    bench/results/bench_models_SET.md and bench_models_SET.svg beside it)

Sides (SIDES), each a binary per program built by `etsb build -j 2` in the
set's own workspace (default /tmp/bench_models_SET_ws, kept between runs):
etsb's kernels op- or dtype-selective (ours, dts), etsb + XNNPACK on the
delegated programs (xnnpack), ExecuTorch's portable kernels from
--executorch-root alone or under etsb's (tree, tree_dts, merged), and the
peers, the same runner on the wheel's prebuilt optimized kernels (optimized)
and on its optimized and quantized ones (optimized_quantized: the wheel's
libexecutorch_kernels_quantized.so registers only the 19 quantized_decomposed
operators, none of ATen's, and the optimized library the ATen ones, with no
operator in both, so the two go together; the wheel has no library of the
llama:: custom operators).
Sets (SETS, each with its default sides and threads): real (tests/models/real),
ops (bench/export_op_bench.py's programs, not committed), delegated (XNNPACK
against the undelegated twins; ratios over xnnpack), corpus (every corpus
method; latency, kernel-code share and dtype-size goals fail the run when
missed), tree (then cold builds of the MLP; goal tree <= 1.5x ours),
quantized (tests/models/quantized: etsb's kernels/quantized beside its portable
kernels, XNNPACK on the delegated twin where there is one; each within one
quantization step of the quantized torch module), llm (tests/models/llm's
decoders: tokens per second of greedy generation, lib/generation.py; the
custom-op export, 8-bit weight-only, with etsb's kernels/llm and
kernels/quantized).
Sides with a pool run at each --threads count (0: its default). Timing and the
check against torch: lib/rounds.py. GFLOP/s: the convolution and matrix FLOPs
(lib/flops.py) over the latency, against one core's measured peak. Sizes:
every binary stripped, split by its link map as `etsb size` does, against its
library's all-kernels companion, plus the ExecuTorch libraries it loads.
Exits 1 when a binary fails or disagrees with torch, or a goal is missed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from lib.charts import bar_chart
from lib.cli import choose, parser, wait
from lib.env import MODELS_DIR, OPTIMIZED_LIB, check_setup, starlark_env
from lib.flops import measure_peak, program_flops
from lib.generation import Decoder, bench_decoders, decoder_table, load_decoders
from lib.models import QUANTIZED_DIR, Model, corpus_methods, from_manifest, load_models, quantized_models, spread_atol
from lib.processes import etsb_build
from lib.results import cpu_note, diff_cell, finish, kb, markdown, mb, ms_cell, results_path, write_atomically
from lib.rounds import PROCESS_MS, Plan, Timed, bench_items
from lib.sizes import PARTS, Size, check_et_runner, libraries, measure, stripped, yaml_operators
from lib.timing import geomean, interleaved
from lib.workspace import ET_LABEL, ET_QUANTIZED_LABEL, new_workspace, write_et_package, write_model_package

DELEGATED_DIR = MODELS_DIR / "delegated"
OPS_DATA = Path(__file__).resolve().parent / ".data" / "ops"
DEFAULT_TREE = Path("/work/shared/third_party/executorch")
EXPORT_HINT = ".venv-export/bin/python bench/export_op_bench.py"
PACKAGE = "models"
LATENCY_GOAL, KERNEL_SHARE_GOAL, COLD_GOAL = 1.5, 0.2, 1.5

TREE_YAML = "@executorch//kernels/portable:functions.yaml"
TREE_KERNELS = "@executorch//kernels/portable:kernels"
TREE = f'functions_yaml_target = "{TREE_YAML}",\n    kernel_deps = ["{TREE_KERNELS}"],'
DTS = "dtype_selective_build = True,"
MERGED = ('functions_yaml_target = "//kernels/portable:functions.yaml",\n'
          f'    fallback_yaml_target = "{TREE_YAML}",\n'
          f'    kernel_deps = ["//kernels/portable:kernels", "{TREE_KERNELS}"],')
QUANTIZED_LIB = "libexecutorch_kernels_quantized.so"


def beside_portable(package: str, yaml: str) -> str:
    """The attributes of a program that needs etsb's kernels of ``package`` (their ``yaml``) beside its portable ones."""
    return (f'custom_ops_yaml_target = "//kernels/{package}:{yaml}",\n'
            f'    kernel_deps = ["//kernels/{package}:kernels", "//kernels/portable:kernels"],')


# The LLM export: its custom operators' yaml, etsb's quantized yaml merged under the portable one.
LLM_EXPORT = ('custom_ops_yaml_target = "//kernels/llm:functions.yaml",\n'
              '    fallback_yaml_target = "//kernels/quantized:quantized.yaml",\n'
              '    kernel_deps = ["//kernels/llm:kernels", "//kernels/quantized:kernels", "//kernels/portable:kernels"],')


@dataclass(frozen=True)
class Side:
    """How a side's binary is built (et_model_binary's other attributes; None:
    a peer runner, ``peer`` of //bench_et) and run: on the delegated program, at
    each thread count; the side whose all-kernels companion it is sized against."""

    legend: str
    colour: str
    attributes: str | None = ""
    library: str | None = None
    delegated: bool = False
    threaded: bool = False
    tree: bool = False
    peer: str = ""


SIDES = {
    # etsb's development runner links ExecuTorch's thread pool: its matrix products run on --threads N.
    "ours": Side("etsb portable", "#1f77b4", "", "ours", threaded=True),
    "dts": Side("etsb dtype-selective", "#17becf", DTS, "ours", threaded=True),
    "xnnpack": Side("etsb + XNNPACK", "#2ca02c", "", delegated=True, threaded=True),
    "tree": Side("ET portable from the tree", "#9467bd", TREE, "tree", tree=True),
    "tree_dts": Side("ET portable from the tree, dtype-selective", "#8c564b", f"{TREE}\n    {DTS}", "tree", tree=True),
    "merged": Side("etsb over the tree's kernels", "#e377c2", MERGED, "tree", tree=True),
    "optimized": Side("ET prebuilt optimized", "#ff7f0e", None, threaded=True, peer=ET_LABEL),
    "optimized_quantized": Side("ET prebuilt optimized + quantized", "#d62728", None, threaded=True,
                                peer=ET_QUANTIZED_LABEL),
}


@dataclass(frozen=True)
class Set:
    """A set's defaults: sides, thread counts, the side ratios are over,
    rounds, fixed runs per process (0: enough for ~PROCESS_MS), sides whose
    failure is only noted, and whether it checks goals and times cold builds."""

    sides: str
    threads: str = "1"
    base: str = "optimized"
    rounds: int = 7
    iterations: int = 0
    optional: tuple[str, ...] = ()
    goals: bool = False
    cold: bool = False


SETS = {"real": Set("ours,optimized"), "ops": Set("ours,optimized"),
        "delegated": Set("xnnpack,ours,optimized", "1,2", base="xnnpack"),
        "corpus": Set("ours,dts,optimized", "0", iterations=1000, optional=("optimized",), goals=True),
        "tree": Set("tree,tree_dts,merged,optimized", "0", rounds=3, iterations=6, cold=True),
        "quantized": Set("ours,xnnpack,optimized_quantized", base="optimized_quantized"),
        "llm": Set("ours,optimized", rounds=15, optional=("optimized",))}


@dataclass(frozen=True)
class Programs:
    """What a set runs: its programs, the delegated twin of each by name (for
    xnnpack), a column of its own (header, cell by name), the attributes etsb's
    undelegated binaries of a program need (by .pte stem), the kernel yamls of
    etsb's library they are sized against, and the decoders (llm)."""

    models: list[Model]
    delegated: dict[str, Model] = field(default_factory=dict)
    column: str = ""
    cells: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    yamls: tuple[str, ...] = ("portable/functions.yaml",)
    decoders: tuple[Decoder, ...] = ()


# -- what is benchmarked ------------------------------------------------------------------------


def load_cases(names: list[str] | None) -> Programs:
    """The operator cases exported by export_op_bench.py, with their descriptions."""
    if not (OPS_DATA / "manifest.json").exists():
        raise SystemExit(f"no operator cases in {OPS_DATA}: export them first with\n    {EXPORT_HINT}")
    cases = json.loads((OPS_DATA / "manifest.json").read_text())["cases"]
    models = []
    for name in choose("cases", names, cases, " (see bench/export_op_bench.py)"):
        info = cases[name]
        if missing := [p for p in [info["pte"], *info["inputs"], *info["outputs"]] if not (OPS_DATA / p).exists()]:
            raise SystemExit(f"{OPS_DATA}: {missing[0]} is missing: re-export with\n    {EXPORT_HINT} --cases {name}")
        models.append(Model(name, OPS_DATA / info["pte"], tuple(OPS_DATA / p for p in info["inputs"]),
                            tuple(OPS_DATA / p for p in info["outputs"]), len(info["operators"]), spread_atol(info),
                            1e-4))
    return Programs(models, column="what", cells={m.name: cases[m.name]["description"] for m in models})


def load_delegated(names: list[str] | None) -> Programs:
    """The delegated models (held to the manifest's tolerance, rtol 0) and their undelegated twins."""
    manifest = json.loads((DELEGATED_DIR / "manifest.json").read_text())["models"]
    chosen = choose("delegated models", names, sorted(manifest))
    twins, delegated = load_models(chosen), {}
    for twin in twins:
        info = manifest[twin.name]
        model = delegated[twin.name] = from_manifest(twin.name, DELEGATED_DIR, info, info, info["tolerance"], 0.0)
        if len(model.inputs) != len(twin.inputs) or any(a.read_bytes() != b.read_bytes()
                                                        for a, b in zip(model.inputs, twin.inputs)):
            raise SystemExit(f"{twin.name}: the delegated and the real model's inputs differ")
        if len(model.outputs) != len(twin.outputs):
            raise SystemExit(f"{twin.name}: the delegated and the real model have different outputs")
    return Programs(twins, delegated, "delegate calls/ops outside",
                    {n: f"{manifest[n]['delegate_calls']}/{len(manifest[n]['operators'])}" for n in chosen})


def load_quantized(names: list[str] | None) -> Programs:
    """The undelegated quantized models, their XNNPACK twins, and the attributes of etsb's quantized kernels."""
    models, twins = quantized_models(names)
    manifest = json.loads((QUANTIZED_DIR / "manifest.json").read_text())["models"]
    return Programs(models, twins, "quantization", {m.name: manifest[m.name]["quantization"] for m in models},
                    {m.pte.stem: beside_portable("quantized", "quantized.yaml") for m in models},
                    ("portable/functions.yaml", "quantized/quantized.yaml"))


def load_llm(names: list[str] | None) -> Programs:
    """The decoders (as programs to build), the custom-op export with etsb's LLM and quantized kernels."""
    decoders = load_decoders(names)
    return Programs([Model(d.name, d.pte, (), (), d.operators, 0.0, 0.0) for d in decoders],
                    attributes={d.name: LLM_EXPORT for d in decoders if d.custom_ops},
                    yamls=("portable/functions.yaml", "quantized/quantized.yaml", "llm/functions.yaml"),
                    decoders=tuple(decoders))


def load_set(name: str, names: list[str] | None) -> Programs:
    """The programs of set ``name``, or only those ``names`` (--models) names."""
    if name in ("quantized", "llm"):
        return (load_quantized if name == "quantized" else load_llm)(names)
    if name in ("real", "tree"):
        return Programs(load_models(names, real_only=name == "real"))
    if name in ("ops", "delegated"):
        return (load_cases if name == "ops" else load_delegated)(names)
    methods = corpus_methods()
    choose("corpus models", [n for n in names or () if n not in {m.pte.stem for m in methods}], [m.name for m in methods])
    chosen = [m for m in methods if not names or m.name in names or m.pte.stem in names]
    return Programs(chosen, column="kernel calls", cells={m.name: str(m.kernel_calls) for m in chosen})


def runs(sides: list[str], threads: list[int]) -> list[tuple[str, str, int | None]]:
    """(key, side, thread count) of each process per round: threaded sides once per count."""
    def key(side: str, count: int | None) -> str:
        """A side's name, with its thread count when the run has several."""
        return side if count is None or len(threads) == 1 else f"{side} {count}t" if count else f"{side} default"
    return [(key(s, t), s, t) for s in sides for t in (threads if SIDES[s].threaded else [None])]


def key_at(side: str, count: int, threads: list[int]) -> str:
    """The run key giving ``side``'s figure at ``count`` threads (a side without a pool: its one run)."""
    return next(k for k, s, t in runs([side], threads) if t in (count, None))


# -- building ------------------------------------------------------------------------------------


def target(stem: str, side: str, program: str = "") -> str:
    """The et_model_binary of program ``stem`` for ``side``; ``program``: the
    program's own attributes (not for a delegated side's program)."""
    model = f"{stem}_delegated.pte" if SIDES[side].delegated else f"{stem}.pte"
    attributes = [a for a in (SIDES[side].attributes, "" if SIDES[side].delegated else program) if a]
    extra = "".join(f"\n    {a}" for a in attributes)
    return f'et_model_binary(\n    name = "{stem}_{side}",\n    model = "{model}",{extra}\n)\n'


def build_all(workspace: Path, tree: Path, programs: Programs, sides: list[str]) -> tuple[dict, dict, dict]:
    """The set's workspace (etsb's parts, //models, //bench_et) built: the
    binary of each (program, side; a delegated side's only where the program
    has a delegated twin), each library's all-kernels companion, each peer by side."""
    new_workspace(workspace)
    stems = list(dict.fromkeys(m.pte.stem for m in programs.models))
    built = [s for s in sides if SIDES[s].attributes is not None]
    libraries = sorted({SIDES[s].library for s in built if SIDES[s].library})
    ptes = {f"{m.pte.stem}": m.pte for m in programs.models}
    twins = {m.pte.stem for m in programs.models if m.name in programs.delegated}
    ptes.update({f"{m.pte.stem}_delegated": programs.delegated[m.name].pte for m in programs.models
                 if m.pte.stem in twins and any(SIDES[s].delegated for s in built)})
    pairs = [(stem, s) for stem in stems for s in built if not SIDES[s].delegated or stem in twins]
    write_model_package(workspace / PACKAGE, ptes.items(), "# bench/bench_models.py: each program, each side.",
                        [target(stem, s, programs.attributes.get(stem, "")) for stem, s in pairs]
                        + [target(stems[0], lib, programs.attributes.get(stems[0], "")) for lib in libraries
                           if lib not in built])
    labels = {(stem, s): f"//{PACKAGE}:{stem}_{s}" for stem, s in pairs}
    companions = {lib: f"//{PACKAGE}:{stems[0]}_{lib}_all_kernels" for lib in libraries}
    peers = {s: SIDES[s].peer for s in sides if SIDES[s].peer}
    if peers:
        write_et_package(workspace)
    flags = ["--executorch-root", str(tree)] if any(SIDES[s].tree for s in sides) else []
    done = etsb_build(workspace, [*labels.values(), *companions.values(), *peers.values()], starlark_env(), *flags)
    print(f"built {len(labels) + len(companions) + len(peers)} targets in {workspace} ({len(done.actions)} actions, "
          f"{done.seconds:.0f} s)", flush=True)
    return ({key: done.outputs[label] for key, label in labels.items()},
            {lib: done.outputs[label] for lib, label in companions.items()},
            {side: done.outputs[label] for side, label in peers.items()})


def peer_lines(peers: dict[str, Path]) -> list[str]:
    """What each peer runner loads its kernels from (exit when one of its libraries does not resolve)."""
    lines = []
    for side, binary in peers.items():
        wanted = [OPTIMIZED_LIB, *([QUANTIZED_LIB] if side == "optimized_quantized" else [])]
        loaded = [check_et_runner(binary, library) for library in wanted]
        lines.append(f"Peer {side}: //tools/runner:runner + " + " + ".join(
            f"{path} ({path.stat().st_size / 2**20:.1f} MB unstripped)" for path in loaded)
            + " (each registers its kernels at load), its pool sized by ETSB_BENCH_ET_THREADS and `--threads`.")
    return lines


def check_backends(binaries: dict) -> list[str]:
    """Problems: a delegated side's binary without XNNPACK, any other registering a backend (`--list-backends`)."""
    problems = []
    for (stem, side), binary in binaries.items():
        run = subprocess.run([str(binary), "--list-backends"], capture_output=True, text=True, check=False)
        found = run.stdout.split() if run.returncode == 0 else [f"(exit {run.returncode})"]
        if SIDES[side].delegated != ("XnnpackBackend" in found) or (not SIDES[side].delegated and found):
            problems.append(f"{stem}, {side}: --list-backends gives {found}")
    return problems


# -- sizes ----------------------------------------------------------------------------------------


def size_table(sizes: dict[str, Size], every: Size | None, candidates: dict[str, Size],
               base: dict[str, Size] | None, base_side: str, operators: dict[str, int]) -> str:
    """One side's binaries by part, against the all-kernels companion (the
    last row); ``operators``: each program's, and the library yaml's ("")."""
    parts = [p for p in PARTS if any(s.binary.parts.get(p, 0) for s in [*sizes.values(), *([every] if every else [])])]
    headers = ["program", "operators (program/library)", "kernel files (linked/all)", *(f"{p} KB" for p in parts),
               "rest KB", "stripped KB",
               "stripped/all-kernels", "kernel code/all-kernels"]
    headers += ["dtype-restricted candidate KB", "kept form"] if candidates else []
    headers += ["runtime KB", "backends KB", "total KB"] + ([f"total/{base_side}"] if base else [])
    rows = []
    for name, size in [*sizes.items(), *([("all kernels (companion)", every)] if every else [])]:
        b = size.binary
        row = [name, f"{operators.get(name, operators[''])}/{operators['']}",
               f"{len(b.operators)}/{len(every.binary.operators)}" if every else str(len(b.operators)),
               *(kb(b.parts.get(p, 0)) for p in parts), kb(b.stripped - sum(b.parts.get(p, 0) for p in parts)),
               kb(b.stripped), f"{b.stripped / every.binary.stripped:.2f}" if every else "-",
               f"{size.kernel_code / every.kernel_code:.2f}" if every else "-"]
        if candidates:
            candidate = candidates.get(name)
            row += ([kb(candidate.binary.stripped), "dtype" if candidate.binary.stripped == b.stripped else "op"]
                    if candidate else ["-", "-"])
        row += [kb(size.runtime), kb(size.backends) if size.backends else "-", kb(size.total)]
        if base:
            row.append(f"{size.total / base[name].total:.2f}x" if name in base else "-")
        rows.append(row)
    return markdown(headers, rows)


def library_operators(root: Path, programs: Programs) -> int:
    """Operators of the kernel yamls under ``root``/kernels the set's programs are built with."""
    return sum(yaml_operators(root / "kernels" / name) for name in programs.yamls)


def bench_sizes(workspace: Path, tree: Path, programs: Programs, built_binaries: tuple, sides: list[str],
                tmp: Path) -> tuple[list[str], dict, dict]:
    """The size tables' text (one per side etsb built, and a line per peer), and
    the Size of each (program, side) and of each library's all-kernels binary."""
    binaries, companions, peers = built_binaries
    cache: dict = {}
    operators = {m.pte.stem: m.operators for m in programs.models}
    yaml = {"ours": workspace, "tree": tree}
    measured = {key: measure(workspace, path, tmp, cache) for key, path in binaries.items()}
    every = {lib: measure(workspace, path, tmp, cache) for lib, path in companions.items()}
    built = [s for s in sides if SIDES[s].attributes is not None]
    lines = []
    for side in built:
        sizes = {stem: size for (stem, s), size in measured.items() if s == side}
        candidates = {}
        if "dtype_selective_build" in (SIDES[side].attributes or ""):
            out = workspace / "etsb-out" / "bin" / PACKAGE   # the dtype-restricted link, kept or not
            candidates = {stem: measure(workspace, out / f"{stem}_{side}_dtype_selective", tmp, cache)
                          for (stem, s) in binaries if s == side}
        base = {stem: size for (stem, s), size in measured.items() if s == built[0]} if side != built[0] else None
        lines += [f"Size of the {side} binaries ({SIDES[side].legend}; stripped KB, split by the link map as "
                  "`etsb size` splits it; rest = C++ library, start-up, ELF headers, symbols for dynamic linking; "
                  "kernel code = kernels + kernel utilities + registration; runtime = libexecutorch.so; backends = "
                  "the other ExecuTorch libraries loaded; total = all three)", "",
                  size_table(sizes, every.get(SIDES[side].library), candidates, base, built[0],
                             {**operators, "": library_operators(yaml[SIDES[side].library or "ours"], programs)}),
                  ""]
    for side, peer in peers.items():
        runtime, others, names = libraries(peer, tmp, cache)
        lines.append(f"The peer {side}, {SIDES[side].peer}: runner {kb(stripped(peer, tmp))} KB + runtime "
                     f"{kb(runtime)} KB + {' + '.join(names)} {kb(others)} KB, stripped, the same for every program.")
    return lines, measured, every


# -- report ----------------------------------------------------------------------------------------


def ratio_cell(ratio: float | None) -> str:
    """A ratio of latencies, marked par or SLOWER."""
    if ratio is None:
        return "-"
    text = f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"
    return text + (" (par)" if text == "1.00x" else " (SLOWER)" if ratio > 1 else "")


def gflops_cell(value: float | None, peak: float) -> str:
    """GFLOP/s and its share of the peak."""
    return "-" if value is None else f"{value:.1f} ({value / peak:.0%})"


def latency_table(results: list[Timed], keys: list[str], base: str, speedups: list[tuple[str, str]],
                  programs: Programs, peak: float) -> str:
    """Per program: ms per side, ratios over ``base``, GFLOP/s, and (key, over) thread speed-ups."""
    others = [k for k in keys if k != base]
    headers = ["program", *([programs.column] if programs.column else []), "conv+matmul MFLOP",
               *(f"{k} ms" for k in keys), *(f"{k}/{base}" for k in others), *(f"{k} GFLOP/s" for k in keys),
               *(f"{one}/{many}" for one, many in speedups)]
    rows = [[t.name, *([programs.cells[t.name]] if programs.column else []),
             f"{t.flops / 1e6:,.1f}" if t.flops >= 1e6 else f"{t.flops / 1e6:.2g}" if t.flops else "-",
             *(ms_cell(t.ms.get(k)) for k in keys),
             *(ratio_cell(t.ratio(k, base)) for k in others), *(gflops_cell(t.gflops(k), peak) for k in keys),
             *(f"{t.ms[one] / t.ms[many]:.2f}" if one in t.ms and many in t.ms else "-" for one, many in speedups)]
            for t in results]
    return markdown(headers, rows)


def summary(results: list[Timed], side: str, base: str) -> str:
    """Geometric mean and range of side/base, and every program where the side is slower."""
    ratios = [(t.name, t.ratio(side, base)) for t in results if t.ratio(side, base)]
    if not ratios:
        return f"{side}/{base}: nothing timed on both sides"
    spread = {t.name: t.round_ratios(side, base) for t in results}
    slower = [f"{n} {r:.2f}x (rounds {min(spread[n]):.2f}-{max(spread[n]):.2f})"
              for n, r in sorted(ratios, key=lambda item: -item[1]) if r >= 1.005]
    par = [n for n, r in ratios if 0.995 < r < 1.005]
    values = [r for _, r in ratios]
    return (f"{side}/{base}: geometric mean {geomean(values):.3g}x, range {min(values):.2g}-{max(values):.2f}x "
            f"over {len(values)}; {side} faster on {sum(r <= 0.995 for r in values)}"
            + (f", par (within 0.5%) on {', '.join(par)}" if par else "")
            + (f"; SLOWER on {len(slower)}: {', '.join(slower)}" if slower else "; slower on none"))


def check_table(results: list[Timed], keys: list[str], programs: Programs) -> str:
    """Per program: tolerance, peak RSS and max abs difference from torch's outputs, per side."""
    headers = ["program", "atol", *(["atol (delegated, rtol 0)"] if programs.delegated else []),
               *(f"{k} RSS MB" for k in keys), *(f"max diff {k}" for k in keys)]
    atol = {m.name: m.atol for m in programs.models}
    twin = {n: f"{m.atol:.1e}" for n, m in programs.delegated.items()}
    rows = [[t.name, f"{atol[t.name]:.1e}", *([twin.get(t.name, "-")] if programs.delegated else []),
             *(mb(t.rss_kb.get(k)) for k in keys), *(diff_cell(t.diffs.get(k)) for k in keys)] for t in results]
    return markdown(headers, rows)


def latency_lines(options: argparse.Namespace, results: list[Timed], programs: Programs, peak: float) -> list[str]:
    """A latency table and its summaries per thread count, then RSS and the checks."""
    every = [k for k, _, _ in runs(options.sides, options.threads)]
    timing = (f"ms: median over {options.rounds} interleaved processes per side of the runner's median of "
              + (f"{options.iterations} in-process runs (the first a warm-up)" if options.iterations else
                 f"N in-process runs after one warm-up (N >= {options.runs}, ~{PROCESS_MS:.0f} ms of runs a process)"))
    lines = []
    for count in options.threads:
        keys = list(dict.fromkeys(key_at(s, count, options.threads) for s in options.sides))
        base = key_at(options.base, count, options.threads)
        speedups = [(key_at(s, options.threads[0], options.threads), key_at(s, count, options.threads))
                    for s in options.sides if SIDES[s].threaded and count != options.threads[0]]
        lines += [f"Latency, {count or 'the default number of'} thread(s) ({timing}; MFLOP: convolutions and "
                  f"matrix products from the .pte; GFLOP/s (% of the {peak:.0f} GFLOP/s peak of one core) = those "
                  "FLOPs over the program's latency; a/b over a thread count: a side's speed-up)", "",
                  latency_table(results, keys, base, speedups, programs, peak), "",
                  *(summary(results, k, base) for k in keys if k != base), ""]
    return lines + ["Peak RSS (MB, median over the timed processes, `/usr/bin/time -f %M`) and the max abs "
                    "difference from torch's recorded outputs (checked before timing)", "",
                    check_table(results, every, programs), "",
                    cpu_note(results, [(k, k) for k in every], ", above 1 = more than one thread at work")]


def goal_lines(results: list[Timed], measured: dict, every: dict) -> tuple[list[str], list[str]]:
    """The corpus set's goals, and the size goals missed (which fail the run)."""
    slow = [f"{t.name}, {s} {r:.2f}x" for t in results for s in ("ours", "dts")
            if (r := t.ratio(s, "optimized")) and r > LATENCY_GOAL]
    unmeasured = [t.name for t in results if "optimized" not in t.ms]
    failures = [f"{stem}, {side}: kernel + registration code {size.kernel_code / lib.kernel_code:.1%} of the "
                f"all-kernels binary's (goal <= {KERNEL_SHARE_GOAL:.0%})" for (stem, side), size in measured.items()
                if (lib := every.get(SIDES[side].library)) and size.kernel_code > KERNEL_SHARE_GOAL * lib.kernel_code]
    failures += [f"{stem}: dtype-selective {size.binary.stripped:,} B > op-selective {ours.binary.stripped:,} B"
                 for (stem, side), size in measured.items()
                 if side == "dts" and (ours := measured.get((stem, "ours"))) and size.binary.stripped >
                 ours.binary.stripped]
    return ["Goals:", f"- latency <= {LATENCY_GOAL}x the peer on every program: "
            + (f"NOT MET: {', '.join(slow)}" if slow else "met")
            + (f"; not measured (see NOTE): {', '.join(unmeasured)}" if unmeasured else ""),
            f"- kernel + registration code <= {KERNEL_SHARE_GOAL:.0%} of all-kernels; dtype-selective never larger "
            "than op-selective: " + (f"NOT MET in {len(failures)}" if failures else "met"),
            *(f"  {line}" for line in failures)], failures


# -- cold builds -----------------------------------------------------------------------------------


def cold_build(root: Path, tree: Path, side: str) -> tuple[float, int]:
    """Seconds and actions of `etsb build -j 2` of the MLP on ``side`` in a fresh workspace (fresh etsb-out)."""
    if root.exists():
        shutil.rmtree(root)
    new_workspace(root)
    write_model_package(root / PACKAGE, [("mlp", MODELS_DIR / "mlp" / "mlp.pte")], "# bench/bench_models.py: cold",
                        [target("mlp", side)])
    done = etsb_build(root, [f"//{PACKAGE}:mlp_{side}"], starlark_env(), "--executorch-root", str(tree))
    print(f"  cold {side}: {done.seconds:.1f} s ({len(done.actions)} actions)", flush=True)
    shutil.rmtree(root)
    return done.seconds, len(done.actions)


def cold_lines(options: argparse.Namespace, tree: Path) -> list[str]:
    """The cold-build table, from interleaved builds (tree, ours, tree, ours ...)."""
    load = wait("cold builds", options)
    builds = interleaved(["tree", "ours"], options.cold_runs,
                         lambda side, i: cold_build(Path(f"/tmp/bench_models_cold_{side}_{i}"), tree, side))
    median = {side: statistics.median(s for s, _ in done) for side, done in builds.items()}
    ratio = median["tree"] / median["ours"]
    rows = [[f"{SIDES[side].legend} ({side})", f"{median[side]:.1f}", ", ".join(f"{s:.1f}" for s, _ in done),
             str(done[-1][1])] for side, done in builds.items()]
    rows.append([f"ratio tree / ours (goal <= {COLD_GOAL}x)", f"{ratio:.2f}x", "met" if ratio <= COLD_GOAL else
                 "NOT MET", ""])
    return [f"Cold build of the MLP (`etsb build -j 2`, fresh workspace and etsb-out; median of {options.cold_runs} "
            f"interleaved; load average {load:.2f} at start)", "",
            markdown(["kernels", "median s", "each run s", "actions"], rows)]


# -- main ------------------------------------------------------------------------------------------


def parse_options() -> argparse.Namespace:
    """The command line, with the set's defaults filled in."""
    arguments = parser(__doc__, wait=True)
    arguments.add_argument("--set", choices=sorted(SETS), default="real", help="the programs (default real)")
    arguments.add_argument("--sides", help=f"comma-separated, of {', '.join(SIDES)} (default: the set's)")
    arguments.add_argument("--threads", help="comma-separated thread counts of the sides with a pool (0: its default)")
    arguments.add_argument("--models", help="comma-separated programs of the set (default: all)")
    arguments.add_argument("--runs", type=int, default=5, help="in-process runs per timed process, at least (default 5)")
    arguments.add_argument("--rounds", type=int, help="interleaved timed processes per side (default: the set's)")
    arguments.add_argument("--iterations", type=int, help="fixed in-process runs per process (default: the set's)")
    arguments.add_argument("--cold-runs", type=int, default=3, help="cold builds of each side (tree set; 0 skips)")
    arguments.add_argument("--executorch-root", type=Path, default=DEFAULT_TREE, help="the tree (tree sides)")
    options = arguments.parse_args()
    chosen = SETS[options.set]
    sides = (options.sides or chosen.sides).split(",")
    if unknown := [s for s in sides if s not in SIDES]:
        arguments.error(f"unknown sides {unknown}; known: {', '.join(SIDES)}")
    if options.set not in ("delegated", "quantized") and any(SIDES[s].delegated for s in sides):
        arguments.error("the xnnpack side runs the delegated programs: use it with --set delegated or quantized")
    if options.set in ("quantized", "llm") and any(SIDES[s].tree for s in sides):
        arguments.error(f"the tree's sides build the portable kernels alone: not for --set {options.set}")
    try:
        threads = [int(t) for t in (options.threads or chosen.threads).split(",")]
    except ValueError:
        arguments.error(f"--threads takes comma-separated whole numbers, not {options.threads!r}")
    return argparse.Namespace(**{**vars(options), "sides": sides, "threads": threads,
                                 "base": chosen.base if chosen.base in sides else sides[-1],
                                 "models": options.models.split(",") if options.models else None,
                                 "rounds": options.rounds or chosen.rounds,
                                 "iterations": chosen.iterations if options.iterations is None else options.iterations,
                                 "workspace": Path(f"/tmp/bench_models_{options.set}_ws"),
                                 "optional": chosen.optional, "goals": chosen.goals, "cold": chosen.cold})


def time_all(options: argparse.Namespace, programs: Programs, binaries: dict, peers: dict[str, Path],
             tmp: Path) -> tuple[float, float, list[Timed], list[str], list[str]]:
    """One core's peak, then every program on every side that has its binary:
    load at start, peak, results, problems, notes."""
    load = wait("timing", options)
    peak = measure_peak(tmp)
    print(f"peak of one core: {peak:.0f} GFLOP/s", flush=True)
    order = runs(options.sides, options.threads)
    plan = Plan(options.rounds, options.runs, options.iterations, flops=program_flops,
                programs={key: programs.delegated for key, side, _ in order if SIDES[side].delegated},
                threads={key: count for key, _, count in order if count is not None},
                optional=tuple(key for key, side, _ in order if side in options.optional))
    sides = {key: {m.name: binaries.get((m.pte.stem, side), peers.get(side)) for m in programs.models
                   if (m.pte.stem, side) in binaries or side in peers} for key, side, _ in order}
    results, problems, notes = bench_items(programs.models, sides, plan, tmp)
    return load, peak, results, problems, notes


def latency_report(options: argparse.Namespace, programs: Programs, built: tuple, sized: tuple,
                   tmp: Path) -> tuple[list[str], list[str], list[str]]:
    """The latency sets: the lines before the sizes, the lines after them (goals,
    cold builds, notes, the chart, which it writes), and the problems."""
    binaries, _, peers = built
    load, peak, results, problems, notes = time_all(options, programs, binaries, peers, tmp)
    first = [key_at(s, options.threads[0], options.threads) for s in options.sides]
    base = key_at(options.base, options.threads[0], options.threads)
    svg = bar_chart(f"{options.set}: median latency, {options.threads[0] or 'default'} thread(s)", results,
                    tuple((k, SIDES[s].legend + (f" ({k})" if k != s else ""), SIDES[s].colour)
                          for k, s in zip(first, options.sides)),
                    (f"{first[0]}/{base}", lambda t: t.ratio(first[0], base)) if first[0] != base else None)
    chart = write_atomically(results_path(f"bench_models_{options.set}").with_suffix(".svg"), svg) if svg else None
    head = [f"Set {options.set}: {len(programs.models)} programs; sides: "
            + "; ".join(f"{s}, {SIDES[s].legend}" for s in options.sides) + f". Load average {load:.2f} when "
            f"timing started; peak of one core measured at {peak:.0f} GFLOP/s (fused multiply-adds on 16-float "
            "vectors, `g++ -O2 -march=native`).", ""]
    tail = []
    if options.goals:
        goals, failures = goal_lines(results, *sized)
        tail += ["", *goals]
        problems += failures
    if options.cold and options.cold_runs:
        tail += ["", *cold_lines(options, options.executorch_root.resolve())]
    tail += [f"NOTE: {note}" for note in notes] + (["", f"![latency]({chart.name})"] if chart else [])
    return head + latency_lines(options, results, programs, peak) + [""], tail, problems


def decoder_report(options: argparse.Namespace, programs: Programs, built: tuple, sized: tuple,
                   tmp: Path) -> tuple[list[str], list[str], list[str]]:
    """The llm set: tokens per second of each decoder on each side (lib/generation.py)."""
    binaries, _, peers = built
    load = wait("timing", options)
    sides = {side: {d.name: binaries.get((d.pte.stem, side), peers.get(side)) for d in programs.decoders
                    if (d.pte.stem, side) in binaries or side in peers} for side in options.sides}
    results, problems, notes = bench_decoders(programs.decoders, sides, options.rounds, options.optional)
    head = [f"Set llm: {len(programs.decoders)} decoders; sides: "
            + "; ".join(f"{s}, {SIDES[s].legend}" for s in options.sides) + f". Load average {load:.2f} when "
            "timing started.", "",
            f"Greedy generation, `--prompt` (the manifest's) `--generate N` (ms: median over {options.rounds} "
            "interleaved rounds of the process's CPU time, user + system, start-up and loading included; "
            "prompt-only: `--generate 0`; tokens/s: N over full minus prompt-only, the median over the rounds; "
            "every run's tokens checked against torch's)", "",
            decoder_table(programs.decoders, results, options.sides), ""]
    return head, [f"NOTE: {note}" for note in notes], problems


def main() -> int:
    """Build, size and time the set's programs on every side; write the report."""
    options = parse_options()
    check_setup()
    programs = load_set(options.set, options.models)
    started = time.perf_counter()
    built = build_all(options.workspace, options.executorch_root.resolve(), programs, options.sides)
    peers = peer_lines(built[2])
    problems = check_backends(built[0])
    report = decoder_report if options.set == "llm" else latency_report
    with tempfile.TemporaryDirectory(prefix="bench_models_") as tmp:
        size_lines, measured, every = bench_sizes(options.workspace, options.executorch_root.resolve(), programs,
                                                  built, options.sides, Path(tmp))
        head, tail, found = report(options, programs, built, (measured, every), Path(tmp))
    lines = head + size_lines + peers + tail
    return finish("bench_models", "\n".join(lines), started, problems + found, f"bench_models_{options.set}")


if __name__ == "__main__":
    sys.exit(main())
