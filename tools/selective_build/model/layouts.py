"""A tensor's bytes between row-major order (``.npy``'s) and a dim order (the
order in memory of its dimensions, outermost first: ``(0, 2, 3, 1)`` is
channels-last for 4-D). A channels-last program (ExecuTorch's Cortex-M flow
exports them so) takes its inputs and leaves its outputs in its own dim
order, which is what a deploy binary reads and prints: the host converts."""

from __future__ import annotations

from collections.abc import Sequence

from selective_build.model.dtypes import SCALAR_TYPE_BYTES
from selective_build.model.errors import UserError
from selective_build.model.program import MethodMemory


def check_dim_order(dim_order: Sequence[int], sizes: Sequence[int], what: str) -> None:
    """Raise a UserError (naming ``what``) unless ``dim_order`` names each of the dimensions of ``sizes`` once."""
    if sorted(dim_order) != list(range(len(sizes))):
        raise UserError(f"{what}: dim order {list(dim_order)} is not a permutation of its {len(sizes)} dimensions")


def _element_offsets(sizes: Sequence[int], dim_order: Sequence[int]) -> list[int]:
    """For each element in row-major order, its element offset when laid out in ``dim_order``."""
    stride = [0] * len(sizes)
    count = 1
    for dimension in reversed(dim_order):
        stride[dimension] = count
        count *= sizes[dimension]
    offsets = [0]
    for dimension in range(len(sizes)):  # row-major: the last dimension runs fastest
        step = stride[dimension]
        offsets = [base + index * step for base in offsets for index in range(sizes[dimension])]
    return offsets


def to_dim_order(data: bytes, sizes: Sequence[int], dim_order: Sequence[int], itemsize: int) -> bytes:
    """Row-major ``data`` (of a tensor of ``sizes``, ``itemsize``-byte elements) laid out in ``dim_order``."""
    if not dim_order or list(dim_order) == list(range(len(sizes))):
        return bytes(data)
    placed = bytearray(len(data))
    for logical, offset in enumerate(_element_offsets(sizes, dim_order)):
        placed[offset * itemsize:(offset + 1) * itemsize] = data[logical * itemsize:(logical + 1) * itemsize]
    return bytes(placed)


def from_dim_order(data: bytes, sizes: Sequence[int], dim_order: Sequence[int], itemsize: int) -> bytes:
    """``data`` laid out in ``dim_order`` (a tensor of ``sizes``) back in row-major order."""
    if not dim_order or list(dim_order) == list(range(len(sizes))):
        return bytes(data)
    return b"".join(data[offset * itemsize:(offset + 1) * itemsize] for offset in _element_offsets(sizes, dim_order))


def is_channels_last(dim_order: Sequence[int]) -> bool:
    """Whether ``dim_order`` is channels-last (0, 2, 3, ..., 1; 3 dimensions or more): the one
    layout besides row-major that ExecuTorch's kernels read and write (a tensor labelled with
    any other dim order, as nonzero's output is, holds row-major data)."""
    return len(dim_order) >= 3 and list(dim_order) == [0, *range(2, len(dim_order)), 1]


def method_inputs_bytes(method: MethodMemory, datas: Sequence[bytes], origin: str) -> list[bytes]:
    """The row-major ``datas`` of ``method``'s tensor inputs (checked against
    it already) as the method takes them: channels-last where its dim order is;
    a dim order that is not a permutation is a UserError naming ``origin``, the program."""
    placed = []
    for index, (tensor, data) in enumerate(zip(method.inputs, datas)):
        if tensor is not None and tensor.dim_order:
            check_dim_order(tensor.dim_order, tensor.sizes, f"{origin}: input {index} of method '{method.name}'")
        if tensor is not None and is_channels_last(tensor.dim_order):
            data = to_dim_order(data, tensor.sizes, tensor.dim_order, SCALAR_TYPE_BYTES[tensor.dtype])
        placed.append(bytes(data))
    return placed
