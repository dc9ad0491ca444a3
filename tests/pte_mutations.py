"""Targeted corruptions of real .pte bytes, for bad-input tests."""

from __future__ import annotations

import struct

from selective_build.readers.pte import FlatbufferReader, flatbuffer_size

# Field numbers of the schema's tables (program.fbs), and the Tensor tag of a value.
_PLANS, _VALUES, _OUTPUTS, _CHAINS, _INSTRUCTIONS, _BUFFER_SIZES = 1, 2, 4, 5, 2, 8
_TENSOR = 5
_TENSOR_BUFFER = 5


def _reader(data: bytes) -> FlatbufferReader:
    return FlatbufferReader(data, flatbuffer_size(data, "x"), "x")


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


def _tensors(data: bytes):
    """The reader and the tensor values of the first method."""
    reader = _reader(data)
    plan = reader.tables(reader.table(reader.u32(0)), _PLANS, "methods")[0]
    values = reader.tables(plan, _VALUES, "values")
    return reader, [reader.child(v, 1, "tensor") for v in values if reader.scalar(v, 0, "B") == _TENSOR]


def with_unknown_dtype(data: bytes, dtype: int = 99) -> bytes:
    """``data`` whose first tensor value has dtype number ``dtype``."""
    reader, tensors = _tensors(data)
    mutated = bytearray(data)
    mutated[tensors[0].Pos + reader.field(tensors[0], 0)] = dtype
    return bytes(mutated)


def without_constant_data(data: bytes) -> bytes:
    """``data`` whose first constant tensor names buffer 0, which holds no data."""
    reader, tensors = _tensors(data)
    for tensor in tensors:
        if reader.scalar(tensor, _TENSOR_BUFFER, "I"):
            mutated = bytearray(data)
            struct.pack_into("<I", mutated, tensor.Pos + reader.field(tensor, _TENSOR_BUFFER), 0)
            return bytes(mutated)
    raise AssertionError("no constant tensor")


def with_output_index(data: bytes, index: int) -> bytes:
    """``data`` whose first method's first output is value ``index``."""
    reader = _reader(data)
    plan = reader.tables(reader.table(reader.u32(0)), _PLANS, "methods")[0]
    start, length = reader.vector(plan, _OUTPUTS, 4)
    assert length, "no output"
    mutated = bytearray(data)
    struct.pack_into("<i", mutated, start, index)
    return bytes(mutated)


def with_planned_buffer_size(data: bytes, size: int) -> bytes:
    """``data`` whose first method's last planned buffer is ``size`` bytes."""
    reader = _reader(data)
    plan = reader.tables(reader.table(reader.u32(0)), _PLANS, "methods")[0]
    start, length = reader.vector(plan, _BUFFER_SIZES, 8)
    assert length > 1, "no planned buffer"
    mutated = bytearray(data)
    struct.pack_into("<q", mutated, start + 8 * (length - 1), size)
    return bytes(mutated)
