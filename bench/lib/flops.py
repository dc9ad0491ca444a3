"""FLOPs of a program's convolutions and matrix products, counted from its
kernel calls (argument shapes read with the table accessors of etsb's .pte
reader, tools/selective_build/readers/pte.py), and one core's peak FLOP rate."""

from __future__ import annotations

import math
import subprocess
from dataclasses import dataclass
from pathlib import Path

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
    """One instruction of a method: its chain and index there (as the runtime
    numbers them), its kind ("operator" for a kernel call, "delegate", or
    "other"), and the kernel call or the delegate's backend id it makes."""

    chain: int
    index: int
    kind: str
    call: KernelCall | None = None
    backend: str | None = None


def instructions(pte: Path, method: str = "forward") -> list[Instruction]:
    """Every instruction of ``method``, the kernel calls with their arguments'
    shapes and scalars, read with the table accessors of etsb's .pte reader
    (which itself keeps only each tensor's dtype and dim order)."""
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
    """One core's peak GFLOP/s (fused multiply-adds), the best of 3 processes
    of files/peak.cpp built with `g++ -O2 -march=native` (the instructions
    etsb's gemm picks at run time)."""
    binary = tmp / "peak"
    subprocess.run(["g++", "-O2", "-march=native", "-ffp-contract=fast", "-o", str(binary), str(FILES / "peak.cpp")],
                   check=True)
    return max(float(subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.split()[0])
               for _ in range(3))
