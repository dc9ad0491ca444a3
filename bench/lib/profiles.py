"""Where a program's time goes: its instructions read from the .pte (the
kernel calls' argument shapes with the table accessors of etsb's reader,
tools/selective_build/readers/pte.py), the FLOPs of its convolutions and
matrix products, one core's peak FLOP rate, and the runner's --profile files
(tools/runner/profile.h) joined with the instructions: each one's operator,
shapes and FLOPs beside its time; time by operator, by kind of operator, and
by convolution shape."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from lib.env import FILES  # (also puts tools/ on sys.path)
from selective_build.readers import pte as pte_reader

@dataclass(frozen=True)
class KernelCall:
    """One kernel call of a method: its operator and, per argument, a tensor's
    sizes (a tuple), a list of ints (a list), a bool, an int, or None (anything else)."""

    operator: str
    arguments: tuple


@dataclass(frozen=True)
class Instruction:
    """One instruction of a method: its chain and index there (as the runtime numbers them), its kind ("operator" for a
    kernel call, "delegate", or "other"), and the kernel call or the delegate's backend id it makes."""

    chain: int
    index: int
    kind: str
    call: KernelCall | None = None
    backend: str | None = None


def instructions(pte: Path, method: str = "forward") -> list[Instruction]:
    """Every instruction of ``method``, the kernel calls with their arguments' shapes and scalars, read with the table
    accessors of etsb's .pte reader (which itself keeps only each tensor's dtype and dim order)."""
    data = pte.read_bytes()
    reader = pte_reader.FlatbufferReader(data, pte_reader.flatbuffer_size(data, str(pte)), str(pte))
    root = reader.table(reader.u32(0))
    for plan in reader.tables(root, pte_reader._PROGRAM_EXECUTION_PLAN, "methods"):
        if reader.string(plan, pte_reader._PLAN_NAME, "a method name") == method:
            break
    else:
        raise SystemExit(f"{pte}: no method {method!r}")
    operators = [str(op) for op in pte_reader._operators(reader, plan, method)]
    backends = pte_reader._backend_ids(reader, plan, method)
    values = reader.tables(plan, pte_reader._PLAN_VALUES, "values")
    found = []
    for chain_index, chain in enumerate(reader.tables(plan, pte_reader._PLAN_CHAINS, "chains")):
        for index, instruction in enumerate(reader.tables(chain, pte_reader._CHAIN_INSTRUCTIONS, "instructions")):
            kind = reader.scalar(instruction, pte_reader._INSTRUCTION_ARGS_TYPE, "B")
            if kind == pte_reader._INSTR_KERNEL_CALL:
                call = reader.child(instruction, pte_reader._INSTRUCTION_ARGS, "kernel call")
                operator = operators[reader.scalar(call, pte_reader._KERNEL_CALL_OP_INDEX, "i")]
                args = reader.ints(call, pte_reader._KERNEL_CALL_ARGS, "i", "arguments")
                found.append(Instruction(chain_index, index, "operator",
                                         KernelCall(operator, tuple(_argument(reader, values[i], values) for i in args))))
            elif kind == pte_reader._INSTR_DELEGATE_CALL:
                call = reader.child(instruction, pte_reader._INSTRUCTION_ARGS, "delegate call")
                backend = backends[reader.scalar(call, pte_reader._DELEGATE_CALL_INDEX, "i")]
                found.append(Instruction(chain_index, index, "delegate", backend=backend))
            else:
                found.append(Instruction(chain_index, index, "other"))
    return found


def _argument(reader, value, values=None):
    """A kernel argument: a tensor's sizes (a tuple), a list of ints (a
    list, read through ``values``), a bool, an int, or None (anything else)."""
    kind = reader.scalar(value, pte_reader._EVALUE_VAL_TYPE, "B")
    if kind == pte_reader._VAL_TENSOR:
        tensor = reader.child(value, pte_reader._EVALUE_VAL, "tensor")
        return tuple(reader.ints(tensor, pte_reader._TENSOR_SIZES, "i", "dimensions"))
    if kind == _VAL_BOOL:
        return bool(reader.scalar(reader.child(value, pte_reader._EVALUE_VAL, "bool"), 0, "B"))
    if kind == pte_reader._VAL_INT:
        return reader.scalar(reader.child(value, pte_reader._EVALUE_VAL, "int"), pte_reader._INT_VAL, "q")
    if kind == _VAL_INT_LIST and values is not None:   # its items are the indices of Int values
        items = reader.ints(reader.child(value, pte_reader._EVALUE_VAL, "int list"), 0, "q", "dimensions")
        return [_argument(reader, values[i]) for i in items]
    return None


# KernelTypes union tags (program.fbs: Null, Int, Bool, Double, Tensor, String, IntList, ...).
_VAL_BOOL, _VAL_INT_LIST = 3, 7


def product(values) -> int:
    """The product of ``values`` as ints."""
    return math.prod(int(v) for v in values)


# Multiply-adds of each convolution and matrix product, from its arguments' planned (static) shapes.
MULTIPLY_ADDS = {
    # (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, out): each output
    # element (input element when transposed) takes (IC/groups)*KH*KW (or (OC/groups)*KH*KW) of them.
    "aten::convolution.out": lambda a: product(a[0] if a[6] else a[-1]) * product(a[1][1:]),
    "aten::addmm.out": lambda a: product(a[1]) * a[2][1],    # (self, mat1 [m, k], mat2 [k, n], beta, alpha, out)
    "aten::mm.out": lambda a: product(a[0]) * a[1][1],       # (self [m, k], mat2 [k, n], out)
    "aten::bmm.out": lambda a: product(a[0]) * a[1][2],      # (self [b, m, k], mat2 [b, k, n], out)
    "aten::linear.out": lambda a: product(a[0]) * a[1][0],   # (input [..., k], weight [n, k], bias, out)
}


def call_flops(call: KernelCall) -> int:
    """FLOPs (2 per multiply-add) of a convolution or matrix product; 0 for any other operator."""
    return 2 * MULTIPLY_ADDS[call.operator](call.arguments) if call.operator in MULTIPLY_ADDS else 0


def program_flops(pte: Path) -> int:
    """Multiply-add FLOPs of the forward method's convolutions and matrix products."""
    return sum(call_flops(i.call) for i in instructions(pte) if i.call is not None)


def measure_peak(tmp: Path) -> float:
    """One core's peak GFLOP/s (fused multiply-adds), the best of 3 processes of files/peak.cpp built with `g++ -O2
    -march=native` (the instructions etsb's gemm picks at run time)."""
    binary = tmp / "peak"
    subprocess.run(["g++", "-O2", "-march=native", "-ffp-contract=fast", "-o", str(binary), str(FILES / "peak.cpp")],
                   check=True)
    return max(float(subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.split()[0])
               for _ in range(3))


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
    """One --profile file: its runs, whether the runtime called the tracer, the runtime's time of the runs (ns), each
    instruction."""

    runs: int
    traced: bool
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
    return Profile(data["runs"], data.get("traced") is True, data["execute"]["ns"], tuple(
        InstructionTime(*(e[k] for k in ("chain", "index", "kind", *TIMING))) for e in data["instructions"]))


@dataclass(frozen=True)
class Row:
    """One instruction joined with the program: what it calls (an operator, a backend id, or its kind), the call's
    argument shapes, its calls and nanoseconds per run (median over the profiles) and FLOPs per call."""

    chain: int
    index: int
    kind: str
    operator: str
    arguments: tuple
    calls: float
    ns: float
    flops: int


def join(profiles: Sequence[Profile], program: Sequence[Instruction], name: str) -> list[Row]:
    """Each profiled instruction with the program's instruction at its (chain, index); its time per run is the median
    over ``profiles`` (exit naming ``name`` when a profile names an instruction the program does not have)."""
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
