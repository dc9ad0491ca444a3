"""Where the time goes: each real model's binary with etsb's own kernels run
with the runner's --profile (the runtime's event tracer, one time per
instruction), each instruction joined with its operator and argument shapes
from the program: time by operator and kind of operator, the costliest
convolution shapes, GFLOP/s where FLOPs are countable; and for the delegated
twins (etsb + XNNPACK) the share in delegate calls and what runs outside them.

    .venv/bin/python bench/bench_profile.py [options]     (builds in --workspace, kept between runs;
    then minutes; writes bench/results/bench_profile.md and bench_profile.svg beside it)

Each model runs R times (--repeat, interleaved over the models) as two
processes of N runs, without a tracer and with --profile; an instruction's
time per run is the median over the R profiles (lib/profiles.py). Exits 1 when
a binary fails, disagrees with torch, or the runtime called no tracer.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from lib.charts import share_chart
from lib.models import Model, delegated_twins, difference, load_models
from lib.profiles import CATEGORIES, Row, category, conv_shape, grouped, instructions, join, read_profile
from lib.results import diff_cell, finish, markdown, ms_cell, results_path, write_atomically
from lib.rounds import run_process
from lib.timing import interleaved, listed, parser, wait
from lib.workspace import build_models, model_target

PACKAGE = "models"
DELEGATED = " + XNNPACK"   # the label of a delegated twin: "resnet + XNNPACK"
CONVOLUTION = "aten::convolution.out"
COLOURS = (("convolution", "#1f77b4"), ("matrix product", "#17becf"), ("batch norm", "#ff7f0e"),
           ("layer norm, softmax", "#9467bd"), ("activation", "#2ca02c"), ("elementwise", "#bcbd22"),
           ("pooling", "#8c564b"), ("copy, layout", "#d62728"), ("other", "#7f7f7f"))
HEADLINE = ("resnet", "mobilenet_v2", "vit", "gpt_decoder", "lstm")
assert [c for c, _ in COLOURS] == [*CATEGORIES, "other"]


def stem(model: Model) -> str:
    """The model's name in the workspace's package ("resnet", "resnet_xnnpack")."""
    return model.name.replace(DELEGATED, "_xnnpack")


def measure(models: list[Model], binaries: dict[str, Path], options, tmp: Path) -> dict[str, dict]:
    """Per model: the plain and traced median latencies (ms, median over the
    repeats), the joined rows, the profiles, and the check against torch."""
    def one(model: Model, repeat: int) -> tuple[float, float, Path]:
        profile, out, times = tmp / f"{stem(model)}.{repeat}.json", tmp / stem(model), []
        for extra in ((), ("--profile", str(profile))):
            run = run_process(binaries[model.name], model, out, options.iterations, tmp, 1, *extra)
            if run.problem:
                raise SystemExit(f"{model.name}: {binaries[model.name]} {' '.join(extra)}: {run.problem}")
            times.append(run.ms)
        return times[0], times[1], profile

    found = {}
    for model, runs in interleaved(models, options.repeat, one).items():
        profiles = [read_profile(path) for _, _, path in runs]
        found[model.name] = {"plain": statistics.median(p for p, _, _ in runs),
                             "traced": statistics.median(t for _, t, _ in runs),
                             "rows": join(profiles, instructions(model.pte, model.method), model.name),
                             **{key: statistics.median(value(p) for p in profiles) / 1e6
                                for key, value in PER_PROFILE.items()},
                             "traced_all": all(p.traced for p in profiles),
                             "check": difference(model, tmp / stem(model))}
    return found


# What the summary takes from each profile (ns per run; its median over the profiles):
# the instructions' time, their least time (the sum of each one's fastest
# call), and the runtime's time outside them (Method::execute less them).
PER_PROFILE = {
    "inside": lambda p: sum(i.ns for i in p.instructions) / p.runs,
    "best": lambda p: sum(i.min_ns * i.calls for i in p.instructions) / p.runs,
    "outside": lambda p: (p.execute_ns - sum(i.ns for i in p.instructions)) / p.runs,
}


def gflops(flops: float, ns: float) -> str:
    """FLOPs over nanoseconds as GFLOP/s, "-" without FLOPs."""
    return f"{flops / ns:.1f}" if flops and ns else "-"


def top_line(rows: list[Row], count: int = 3) -> str:
    """The ``count`` costliest operators with their shares ("convolution 61%, ...")."""
    total = sum(r.ns for r in rows)
    return ", ".join(f"{s.name.split('::')[-1].split('.')[0]} {s.ns / total:.0%}"
                     for s in grouped(rows, lambda r: r.operator)[:count])


def summary(found: dict[str, dict]) -> str:
    """One line per model: latencies, the runtime's overhead, the top operators, GFLOP/s."""
    lines = []
    for name, f in found.items():
        rows = f["rows"]
        flops = sum(r.flops * r.calls for r in rows)
        per = 1e6 / max(len(rows), 1)   # ms over the instructions, as ns per instruction
        lines.append([name, ms_cell(f["plain"]), ms_cell(f["traced"]), f"{(f['traced'] - f['plain']) * per:.0f}",
                      ms_cell(f["inside"]), ms_cell(f["best"]), len(rows), f"{f['outside'] * per:.0f}",
                      top_line(rows),
                      gflops(flops, sum(r.ns for r in rows if r.flops)), diff_cell(f["check"])])
    return markdown(["model", "ms", "ms traced", "tracer ns/instruction", "ms in instructions", "least",
                     "instructions",
                     "ns/instruction outside", "top operators (share of instruction time)",
                     "GFLOP/s conv+matmul", "max abs diff"], lines)


def model_section(name: str, f: dict, count: int = 8) -> str:
    """A model's time by operator (every operator with >= 1% or FLOPs) and its costliest convolution shapes."""
    rows, total = f["rows"], sum(r.ns for r in f["rows"])
    shares = [s for s in grouped(rows, lambda r: r.operator) if s.ns >= 0.01 * total or s.flops]
    rest = total - sum(s.ns for s in shares)
    table = [[s.name, f"{s.calls:g}", ms_cell(s.ns / 1e6), f"{s.ns / total:.1%}", f"{s.ns / s.calls / 1e3:.1f}",
              gflops(s.flops, s.ns)] for s in shares]
    if rest > 0:
        table.append(["(the rest)", "", ms_cell(rest / 1e6), f"{rest / total:.1%}", "", ""])
    text = [f"### {name}\n", markdown(["operator", "calls", "ms", "share", "us/call", "GFLOP/s"], table)]
    convs = grouped([r for r in rows if r.operator == CONVOLUTION], conv_shape)[:count]
    if convs:
        text += ["", markdown(["convolution (input * weight, stride, padding, groups)", "calls", "ms", "share",
                               "GFLOP/s"],
                              [[s.name, f"{s.calls:g}", ms_cell(s.ns / 1e6), f"{s.ns / total:.1%}",
                                gflops(s.flops, s.ns)] for s in convs])]
    return "\n".join(text) + "\n"


def delegated_section(found: dict[str, dict], real: dict[str, dict]) -> str:
    """Each delegated twin: its latency against the undelegated model's, the
    share of its instructions' time in delegate calls, and what runs outside them."""
    lines = []
    for name, f in found.items():
        rows, twin = f["rows"], real.get(name.replace(DELEGATED, ""))
        inside = [r for r in rows if r.kind == "delegate"]
        outside = [r for r in rows if r.kind != "delegate"]
        total = sum(r.ns for r in rows)
        lines.append([name, ms_cell(f["plain"]), f"{twin['plain'] / f['plain']:.1f}x" if twin else "-",
                      f"{sum(r.calls for r in inside):g}", f"{sum(r.ns for r in inside) / total:.0%}",
                      ms_cell(sum(r.ns for r in outside) / 1e6), top_line(outside) if outside else "-",
                      diff_cell(f["check"])])
    return markdown(["program", "ms", "etsb's kernels alone / this", "delegate calls", "share in delegate calls",
                     "ms outside them", "top operators outside (share of instruction time)", "max abs diff"], lines)


def chart(found: dict[str, dict]) -> str:
    """The chart: each model's instruction time by kind of operator."""
    bars = []
    for name, f in found.items():
        total = sum(r.ns for r in f["rows"])
        by_kind = {s.name: s.ns / total for s in grouped(f["rows"], lambda r: category(r.operator))}
        bars.append((name, ms_cell(f["plain"]) + " ms", [(c, by_kind[c]) for c, _ in COLOURS if c in by_kind]))
    return share_chart("Where the time goes: etsb's kernels, one thread, by kind of operator", bars, COLOURS,
                       "share of the time in the method's instructions (the runtime's event tracer); "
                       "right: median latency")


def main() -> int:
    """Build, profile, join and report."""
    options = parser(__doc__, wait=True, models=(listed, None, "real models (default: all)"),
                     iterations=(int, 20, "runs per process (default 20)"),
                     repeat=(int, 5, "processes per model and way, interleaved (default 5)"),
                     workspace=(Path, Path(tempfile.gettempdir()) / "bench_profile_ws", "where to build")).parse_args()
    models = load_models(options.models, real_only=True)
    every = models + list(delegated_twins(models, DELEGATED).values())
    labels = {m.name: f"//{PACKAGE}:{stem(m)}_bin" for m in every}   # etsb's kernels, and the delegates' backends
    done = build_models(options.workspace, PACKAGE, [(f"{stem(m)}.pte", m.pte) for m in every],
                        "# bench/bench_profile.py: each program with etsb's kernels.",
                        [model_target(f"{stem(m)}_bin", f"{stem(m)}.pte") for m in every], list(labels.values()))
    binaries = {name: done.outputs[label] for name, label in labels.items()}
    load = wait("profiling", options)
    with tempfile.TemporaryDirectory() as tmp:
        every = measure(every, binaries, options, Path(tmp))
    problems = [f"{n}: outputs differ from torch's" for n, f in every.items() if not f["check"][1]]
    problems += [f"{n}: the runtime called no event tracer" for n, f in every.items() if not f["traced_all"]]
    order = sorted(every, key=lambda n: (n not in HEADLINE, HEADLINE.index(n) if n in HEADLINE else 0, n))
    found = {n: every[n] for n in order if not n.endswith(DELEGATED)}
    delegated = {n: every[n] for n in order if n.endswith(DELEGATED)}
    svg = results_path("bench_profile", ".svg")
    text = [f"{len(found)} real models, etsb's kernels at one thread, {options.repeat} processes each of "
            f"{options.iterations} runs with and without the tracer; load average {load:.2f} when timing started "
            "(2 cores: with other work on the machine, read the shares rather than the milliseconds).\n",
            f"![where the time goes]({svg.name})\n", "## Summary\n", summary(found), "",
            "ms: median latency without the tracer; ms traced: with it, and what the tracer costs per "
            "instruction; ms in instructions: the sum of the instructions' times (each includes a little of the "
            "tracer: on models of many sub-microsecond instructions, such as lstm, cheap operators' shares are "
            "overstated); least: the sum of each instruction's fastest call (what a quiet machine would "
            "approach); ns/instruction outside: Method::execute less its instructions (the runtime's dispatch "
            "and the tracer's bookkeeping), per instruction; GFLOP/s: the convolutions' and matrix products' "
            "FLOPs over their time.\n",
            "## Delegated to XNNPACK\n", delegated_section(delegated, found), "",
            "The delegated twins of tests/models/delegated, etsb's kernels + XNNPACK at one thread; a delegate "
            "call is timed as a whole.\n",
            "## By model\n", *[model_section(n, f) for n, f in found.items()]]
    status = finish("bench_profile", "\n".join(text), problems)
    write_atomically(svg, chart(found))   # after the results' head, which names the commit (clean or dirty)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
