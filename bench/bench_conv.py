"""Convolution microbenchmark: etsb's Float convolution on each layer of the real ResNet and MobileNet-v2, this
checkout's kernels against another revision's (--base), in one run.

    .venv/bin/python bench/bench_conv.py [--base main] [--rounds 7] [--reps 21]   (a few minutes; writes
    bench/results/bench_conv.md)

files/conv_micro.cpp calls convolution_out directly (no runtime, no pool: one thread, the runtime's temp
allocator as a program gives it) on every convolution shape of tests/models/real/{resnet,mobilenet_v2}, built
twice at -O2 (functions and loops 64-byte aligned): against this checkout's kernels/ and against --base's (git
archive). The two binaries run in turn, --rounds times (A B A B ...), each timing every shape --reps times
(median); a shape's time is the median over the rounds. The outputs' checksums of the two builds are compared.
Per model: the sum over its convolutions, each counted as often as the program calls it.
"""

from __future__ import annotations

import statistics
import subprocess
import tarfile
import tempfile
from collections import Counter
from io import BytesIO
from pathlib import Path

from lib.env import FILES, REPO, executorch_runtime
from lib.profiles import instructions, measure_peak
from lib.results import finish, markdown
from lib.timing import interleaved, parser, wait

MODELS = ("resnet", "mobilenet_v2")


def model_shapes(name: str) -> Counter:
    """A model's convolutions as conv_micro's shape arguments (C,H,W,OC,K,STRIDE,PAD,GROUPS), with their calls."""
    found = Counter()
    for instruction in instructions(REPO / "tests" / "models" / "real" / name / f"{name}.pte"):
        if instruction.call is not None and instruction.call.operator == "aten::convolution.out":
            x, w, _, stride, padding, _, _, _, groups = instruction.call.arguments[:9]
            found[f"{x[1]},{x[2]},{x[3]},{w[0]},{w[2]},{stride[0]},{padding[0]},{groups}"] += 1
    return found


def kernels_of(base: str, folder: Path) -> Path:
    """An include folder whose executorch/kernels is ``base``'s kernels/ (a git revision, extracted)."""
    archive = subprocess.run(["git", "archive", base, "kernels"], cwd=REPO, capture_output=True, check=True).stdout
    root = folder / "include" / "executorch"
    root.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(root, filter="data")
    return folder / "include"


def build(include: Path, binary: Path) -> Path:
    """files/conv_micro.cpp against the kernels under ``include`` and the wheel's runtime."""
    et = executorch_runtime()
    # Functions and loops 64-byte aligned in both builds: otherwise where an unchanged loop lands decides up to
    # 25% of its time (measured on depthwise_lanes), and that would be read as the change's doing.
    subprocess.run(["g++", "-std=c++17", "-O2", "-falign-functions=64", "-falign-loops=64", f"-I{include}", f"-I{et / 'include'}",
                    f"-I{et / 'include/executorch/runtime/core/portable_type/c10'}",
                    "-DC10_USING_CUSTOM_GENERATED_MACROS", str(FILES / "conv_micro.cpp"), f"-L{et / 'lib'}",
                    "-lexecutorch", f"-Wl,-rpath,{et / 'lib'}", "-o", str(binary)], check=True)
    return binary


def run(binary: Path, reps: int, shapes: list[str]) -> dict[str, tuple[float, float]]:
    """One process of ``binary`` over ``shapes``: each shape's median microseconds and output checksum."""
    out = subprocess.run([str(binary), str(reps), *shapes], capture_output=True, text=True, check=True).stdout
    fields = [dict(item.split("=") for item in line.split()[1:]) for line in out.splitlines()]
    return {shape: (float(f["us"]), float(f["sum"])) for shape, f in zip(shapes, fields)}


def report(shapes: dict[str, Counter], times: dict[str, list[dict]], peak: float, base: str, load: float) -> str:
    """The tables: per shape (base and this checkout, ratio, GFLOP/s and % of the peak), then per model."""
    def median(side: str, shape: str) -> float:
        return statistics.median(sample[shape][0] for sample in times[side])

    def gflops(shape: str, us: float) -> float:
        c, h, w, oc, k, stride, pad, groups = map(int, shape.split(","))
        out = ((h + 2 * pad - k) // stride + 1) * ((w + 2 * pad - k) // stride + 1)
        return 2 * oc * out * c // groups * k * k / us / 1e3

    text = (f"Base {base}; {len(times['base'])} interleaved rounds per side; load average {load:.2f} when timing "
            f"started (2 cores shared: read the ratios rather than the microseconds); peak of one core "
            f"{peak:.0f} GFLOP/s.\n")
    totals = []
    for model, counter in shapes.items():
        rows = []
        for shape, calls in counter.items():
            old, new = median("base", shape), median("this", shape)
            rows.append([shape, calls, f"{old:.2f}", f"{new:.2f}", f"{new / old:.2f}x", f"{gflops(shape, new):.1f}",
                         f"{100 * gflops(shape, new) / peak:.0f}%"])
        old = sum(median("base", s) * n for s, n in counter.items())
        new = sum(median("this", s) * n for s, n in counter.items())
        totals.append([model, len(counter), sum(counter.values()), f"{old:.1f}", f"{new:.1f}", f"{new / old:.2f}x"])
        text += f"\n## {model}\n\n" + markdown(["shape C,H,W,OC,K,stride,pad,groups", "calls", "base us",
                                                "this us", "this/base", "GFLOP/s", "% of peak"], rows) + "\n"
    sums = [max(abs(a[s][1] - b[s][1]) / max(abs(a[s][1]), 1.0) for s in a)
            for a, b in zip(times["base"], times["this"])]
    return (text + "\n## Per model (us, each convolution times its calls)\n\n"
            + markdown(["model", "shapes", "calls", "base us", "this us", "this/base"], totals)
            + f"\n\nLargest relative difference of an output checksum, base against this: {max(sums):.1e}.\n")


def main() -> int:
    """Build both, time them interleaved, write the tables."""
    options = parser(__doc__, wait=True, rounds=(int, 7, "processes per side, interleaved"),
                     reps=(int, 21, "timed calls per shape in a process (median)"),
                     base=(str, "main", "the git revision to compare with")).parse_args()
    shapes = {model: model_shapes(model) for model in MODELS}
    every = sorted({shape for counter in shapes.values() for shape in counter})
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        binaries = {"base": build(kernels_of(options.base, folder / "base"), folder / "conv_base"),
                    "this": build(_this_include(folder), folder / "conv_this")}
        peak = measure_peak(folder)
        load = wait("timing convolutions", options)
        times = interleaved(list(binaries), options.rounds,
                            lambda side, _: run(binaries[side], options.reps, every))
    return finish("bench_conv", report(shapes, times, peak, options.base, load))


def _this_include(folder: Path) -> Path:
    """An include folder whose executorch/kernels is this checkout's kernels/."""
    root = folder / "this" / "executorch"
    root.mkdir(parents=True)
    (root / "kernels").symlink_to(REPO / "kernels")
    return folder / "this"


if __name__ == "__main__":
    raise SystemExit(main())
