"""The runner's --profile files (tools/runner/profile.h) read, and joined with
the program's instructions (lib/flops.py): each instruction's operator,
argument shapes and FLOPs beside its time; time by operator, by kind of
operator, and by convolution shape."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from lib.flops import Instruction, call_flops

FORMAT = "etsb-profile-1"
KINDS = ("operator", "delegate", "jump", "move", "free")
TIMING = ("calls", "ns", "min_ns")


@dataclass(frozen=True)
class InstructionTime:
    """One instruction's entry in a profile: calls, total and least nanoseconds over the runs."""

    chain: int
    index: int
    kind: str
    calls: int
    ns: int
    min_ns: int


@dataclass(frozen=True)
class Profile:
    """One --profile file: the method, its runs, whether the runtime called the
    tracer, the runner's and the runtime's time of the runs (ns), each instruction."""

    method: str
    runs: int
    traced: bool
    run_ns: int
    execute_ns: int
    instructions: tuple[InstructionTime, ...]


def _whole(entry: object, keys: tuple[str, ...]) -> bool:
    """Whether ``entry`` is a dict whose ``keys`` are all whole numbers (>= 0)."""
    return isinstance(entry, dict) and all(isinstance(entry.get(k), int) and entry[k] >= 0 for k in keys)


def read_profile(path: Path) -> Profile:
    """The profile in ``path`` (exit naming the file and what is wrong when it is not one)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SystemExit(f"{path}: not a profile: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SystemExit(f"{path}: not a profile (format {FORMAT!r} expected)")
    if not isinstance(data.get("runs"), int) or data["runs"] < 1 or not isinstance(data.get("instructions"), list):
        raise SystemExit(f"{path}: 'runs' (>= 1) or 'instructions' (a list) is missing")
    for key in ("run", "execute"):
        if not _whole(data.get(key), TIMING):
            raise SystemExit(f"{path}: {key!r} is not a {{calls, ns, min_ns}} of whole numbers")
    for position, entry in enumerate(data["instructions"]):
        if not _whole(entry, ("chain", "index")) or entry.get("kind") not in KINDS:
            raise SystemExit(f"{path}: instruction {position}: needs a chain, an index and a kind ({', '.join(KINDS)})")
        if not _whole(entry, TIMING):
            raise SystemExit(f"{path}: instruction {position}: 'entry' is not a {{calls, ns, min_ns}} of whole numbers")
    return Profile(str(data.get("method", "")), data["runs"], data.get("traced") is True, data["run"]["ns"],
                   data["execute"]["ns"], tuple(InstructionTime(*(e[k] for k in ("chain", "index", "kind", *TIMING)))
                                                for e in data["instructions"]))


@dataclass(frozen=True)
class Row:
    """One instruction joined with the program: what it calls (an operator, a
    backend id, or its kind), the call's argument shapes, its calls and
    nanoseconds per run (median over the profiles) and FLOPs per call."""

    chain: int
    index: int
    kind: str
    operator: str
    arguments: tuple
    calls: float
    ns: float
    flops: int


def join(profiles: Sequence[Profile], program: Sequence[Instruction], name: str) -> list[Row]:
    """Each profiled instruction with the program's instruction at its (chain,
    index); its time per run is the median over ``profiles`` (exit naming
    ``name`` when a profile names an instruction the program does not have)."""
    known = {(i.chain, i.index): i for i in program}
    times: dict[tuple[int, int], list[InstructionTime]] = {}
    for profile in profiles:
        for entry in profile.instructions:
            instruction = known.get((entry.chain, entry.index))
            expected = instruction and (instruction.kind if instruction.kind != "other" else entry.kind)
            if expected != entry.kind:
                raise SystemExit(f"{name}: the profile's {entry.kind} at chain {entry.chain}, index {entry.index} "
                                 f"is not in the program" + (f" (it holds a {instruction.kind})" if instruction else ""))
            times.setdefault((entry.chain, entry.index), []).append(entry)
    rows = []
    for key, entries in sorted(times.items()):
        instruction, runs = known[key], [p.runs for p in profiles]
        call = instruction.call
        rows.append(Row(key[0], key[1], entries[0].kind,
                        call.operator if call else instruction.backend or entries[0].kind,
                        call.arguments if call else (),
                        statistics.median(e.calls / r for e, r in zip(entries, runs)),
                        statistics.median(e.ns / r for e, r in zip(entries, runs)),
                        call_flops(call) if call else 0))
    return rows


@dataclass(frozen=True)
class Share:
    """Time spent in one thing (an operator, a kind of operator, a shape): calls and ns per run, FLOPs per run."""

    name: str
    calls: float
    ns: float
    flops: float


def grouped(rows: Sequence[Row], key) -> list[Share]:
    """The rows' time summed by ``key(row)``, the largest first."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    shares = [Share(name, sum(r.calls for r in group), sum(r.ns for r in group),
                    sum(r.flops * r.calls for r in group)) for name, group in groups.items()]
    return sorted(shares, key=lambda s: -s.ns)


# The kinds of operator the chart stacks, each by the operator names' stems (aten::NAME.out).
CATEGORIES = {
    "convolution": ("convolution",),
    "matrix product": ("addmm", "mm", "bmm", "linear", "baddbmm"),
    "batch norm": ("_native_batch_norm_legit_no_training", "native_batch_norm", "batch_norm"),
    "layer norm, softmax": ("native_layer_norm", "layer_norm", "_softmax", "softmax", "_log_softmax",
                            "native_group_norm"),
    "activation": ("relu", "gelu", "hardtanh", "sigmoid", "silu", "hardswish", "hardsigmoid", "tanh", "clamp",
                   "leaky_relu", "elu", "mish"),
    "elementwise": ("add", "sub", "mul", "div", "pow", "sqrt", "rsqrt", "exp", "neg", "where", "sum",
                    "erf", "abs", "maximum", "minimum", "eq", "ne", "lt", "gt", "le", "ge"),
    "pooling": ("max_pool2d_with_indices", "max_pool2d", "avg_pool2d", "_adaptive_avg_pool2d",
                "adaptive_avg_pool2d", "mean"),
    "copy, layout": ("permute_copy", "view_copy", "clone", "cat", "expand_copy", "slice_copy", "_to_copy",
                     "transpose_copy", "unsqueeze_copy", "squeeze_copy", "split_copy", "split_with_sizes_copy",
                     "select_copy", "constant_pad_nd", "index", "unbind_copy", "t_copy", "stack", "roll",
                     "_unsafe_view", "alias_copy", "full", "full_like", "zeros", "arange", "embedding",
                     "pixel_shuffle", "flip", "index_select", "gather", "_clone_dim_order", "_to_dim_order_copy"),
}


def category(operator: str) -> str:
    """The kind of ``operator`` ("aten::relu.out" -> "activation"), "other" when none of CATEGORIES."""
    stem = operator.split("::", 1)[-1].split(".", 1)[0]
    return next((name for name, stems in CATEGORIES.items() if stem in stems), "other")


def conv_shape(row: Row) -> str:
    """A convolution's shape: input, weight, stride, padding, groups ("1x16x32x32 * 32x16x3x3 s2 p1 g1")."""
    source, weight, stride, padding, groups = (row.arguments[i] for i in (0, 1, 3, 4, 8))
    dims = "x".join
    text = f"{dims(map(str, source))} * {dims(map(str, weight))}"
    text += f" s{dims(map(str, stride))}" if isinstance(stride, list) and len(set(stride)) > 1 else \
        f" s{stride[0]}" if isinstance(stride, list) and stride else ""
    text += f" p{dims(map(str, padding))}" if isinstance(padding, list) and len(set(padding)) > 1 else \
        f" p{padding[0]}" if isinstance(padding, list) and padding else ""
    kind = " depthwise" if groups not in (None, 1) and groups == source[1] else f" g{groups}" if groups != 1 else ""
    return text + kind
