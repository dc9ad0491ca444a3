"""Targeted corruptions of real .pte bytes, for bad-input tests."""

from __future__ import annotations

import struct

from selective_build.readers.pte import _Reader, flatbuffer_size

_PLANS, _VALUES, _CHAINS, _INSTRUCTIONS = 1, 2, 5, 2
_TENSOR = 5


def _reader(data: bytes) -> _Reader:
    return _Reader(data, flatbuffer_size(data, "x"), "x")


def _first_kernel_call(data: bytes) -> tuple[int, int]:
    """Positions of the op_index and first argument of the first kernel call
    that stores its op_index (flatbuffers omits a field equal to its default, 0)."""
    reader = _reader(data)
    plan = reader.tables(reader.table(reader.u32(0)), _PLANS, "methods")[0]
    for instruction in reader.tables(reader.tables(plan, _CHAINS, "chains")[0], _INSTRUCTIONS, "instructions"):
        call = reader.child(instruction, 1, "kernel call")
        if reader.field(call, 0):
            args_start, _ = reader.vector(call, 1, 4)
            return call.Pos + reader.field(call, 0), args_start
    raise AssertionError("no kernel call with a stored op_index")


def with_operator_index(data: bytes, index: int) -> bytes:
    """``data`` whose first kernel call names operator ``index``."""
    mutated = bytearray(data)
    struct.pack_into("<i", mutated, _first_kernel_call(data)[0], index)
    return bytes(mutated)


def with_value_index(data: bytes, index: int) -> bytes:
    """``data`` whose first kernel call's first argument is value ``index``."""
    mutated = bytearray(data)
    struct.pack_into("<i", mutated, _first_kernel_call(data)[1], index)
    return bytes(mutated)


def with_unknown_dtype(data: bytes, dtype: int = 99) -> bytes:
    """``data`` whose first tensor value has dtype number ``dtype``."""
    reader = _reader(data)
    plan = reader.tables(reader.table(reader.u32(0)), _PLANS, "methods")[0]
    for value in reader.tables(plan, _VALUES, "values"):
        if reader.scalar(value, 0, "B") == _TENSOR:
            tensor = reader.child(value, 1, "tensor")
            mutated = bytearray(data)
            mutated[tensor.Pos + reader.field(tensor, 0)] = dtype
            return bytes(mutated)
    raise AssertionError("no tensor value")
