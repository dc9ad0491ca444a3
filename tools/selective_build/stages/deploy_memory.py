"""How much static memory a deploy binary gives its method (pure): the
method allocator's pool from the counts of the program's values and
instructions, the planned pool from its memory plan (and its inputs, when
they are read from files at run time), and kernels' scratch as asked."""

from __future__ import annotations

from collections.abc import Sequence

from selective_build.model.dtypes import SCALAR_TYPE_BYTES, SCALAR_TYPE_NAMES
from selective_build.model.errors import Location, Problem, UserError
from selective_build.model.program import DeployPools, InputTensor, MethodMemory

# The runtime aligns each allocation; every piece is counted with this much padding.
ALIGNMENT = 16
# Upper bounds of what ExecuTorch's Method::init allocates per thing, for a
# target whose pointers take P bytes (its structures hold pointers and spans:
# a 32-bit target's TensorImpl is 32 bytes, a 64-bit one's 64): an EValue, a
# tensor's TensorImpl and Tensor, a dimension's size, dim-order and stride
# entries, a list item (its EValue pointer and its unboxed value), a chain, an
# instruction (its kernel pointer and argument list), an argument pointer, a
# delegate handle, and the method's own tables (inputs set, data maps, outputs).
PER_VALUE, PER_DIMENSION = 16, 16
PER_TENSOR_P, PER_LIST_ITEM_P, PER_CHAIN_P, PER_INSTRUCTION_P, PER_ARGUMENT_P, PER_DELEGATE_P, BASE_P = (
    14, 1, 8, 6, 1, 32, 128)
PER_LIST_ITEM = 16  # beside its pointer: the unboxed value (an int64, a double or a Tensor)
# The pointer sizes a deploy binary may be compiled for: its pool is sized by the compiler, by sizeof(void*).
NARROW, WIDE = 4, 8
# The most static data (pools and embedded bytes) any target holds: a 32-bit address space's signed
# offsets, and the small code model of x86-64 and AArch64 compilers, reach 2 GiB (beyond it the link fails,
# "relocation truncated to fit"). A board's own RAM and flash budget is checked against its platform's.
STATIC_LIMIT = 1 << 31


def deploy_pools(method: MethodMemory, inputs_from_files: bool, method_pool: int = 0, temp_pool: int = 0) -> DeployPools:
    """The pools for running ``method``: ``method_pool`` if given (non-zero),
    else an upper bound from its counts, for 64-bit and for 32-bit pointers;
    the planned pool holds every planned buffer (and each tensor input when
    ``inputs_from_files``)."""
    planned = sum(_aligned(size) for size in method.planned_buffers)
    if inputs_from_files:
        planned += sum(_aligned(input_bytes(tensor)) for tensor in method.inputs if tensor is not None)
    wide, narrow = (method_pool, method_pool) if method_pool else (
        _rounded(_method_bound(method, WIDE), 256), _rounded(_method_bound(method, NARROW), 256))
    return DeployPools(wide, _rounded(planned, ALIGNMENT), temp_pool, narrow)


def check_static_size(pools: DeployPools, embedded: int, model: str) -> None:
    """Raise a UserError located at ``model`` when the static memory of a
    deploy binary (its pools, and the ``embedded`` bytes of program and
    inputs) is more than any target can hold, with the figures."""
    total = max(pools.method_for(NARROW), pools.method_for(WIDE)) + pools.planned + pools.temp + embedded
    if total >= STATIC_LIMIT:
        raise UserError(f"a deploy binary of this program needs {total:,} bytes of static memory (planned buffers "
                        f"{pools.planned:,}, method pool {pools.method_for(WIDE):,}, kernel scratch {pools.temp:,}, "
                        f"embedded {embedded:,}): more than any target holds (2 GiB, {STATIC_LIMIT:,} bytes)",
                        Location(model))


def input_bytes(tensor: InputTensor) -> int:
    """The bytes of a tensor input's data."""
    count = 1
    for size in tensor.sizes:
        count *= size
    return count * SCALAR_TYPE_BYTES.get(tensor.dtype, 8)


def _method_bound(method: MethodMemory, pointer: int) -> int:
    """An upper bound of what loading ``method`` takes from the method allocator, with ``pointer``-byte pointers."""
    tensors = sum(PER_TENSOR_P * pointer + ALIGNMENT + 3 * (dims * PER_DIMENSION // 4 + ALIGNMENT)
                  for dims in method.tensor_dims)
    return (BASE_P * pointer + method.values * PER_VALUE + ALIGNMENT + tensors
            + method.list_items * (PER_LIST_ITEM + PER_LIST_ITEM_P * pointer)
            + method.chains * (PER_CHAIN_P * pointer + 2 * ALIGNMENT)
            + method.instructions * (PER_INSTRUCTION_P * pointer + ALIGNMENT)
            + method.arguments * PER_ARGUMENT_P * pointer + method.delegates * PER_DELEGATE_P * pointer)


def _aligned(size: int) -> int:
    return _rounded(size, ALIGNMENT)


def _rounded(size: int, step: int) -> int:
    return (size + step - 1) // step * step


def check_embedded_inputs(method: MethodMemory, model: str, input_count: int) -> None:
    """Raise a UserError located at ``model`` when its program is embedded
    with no input though ``method`` takes some: such a binary takes no
    arguments, so it could never run."""
    if input_count == 0 and method.inputs:
        count = len(method.inputs)
        raise UserError(f"method '{method.name}' takes {count} input{'s' if count != 1 else ''} and none is "
                        f"embedded: a binary with this program embedded could never run; give "
                        f"{'them' if count != 1 else 'it'} as .npy files (et_model_binary's `inputs`, "
                        f"deploy-source's --inputs)", Location(model))


def check_inputs(method: MethodMemory, arrays: Sequence[tuple[str, int, tuple[int, ...]]]) -> None:
    """Raise a UserError (naming each file) unless ``arrays`` (path, dtype
    number, shape) are the method's tensor inputs, one for each, in order, of
    its dtypes and sizes."""
    tensors = method.inputs
    if len(arrays) != len(tensors):
        raise UserError(f"method '{method.name}' takes {len(tensors)} inputs; {len(arrays)} were given")
    problems = []
    for index, ((path, dtype, shape), tensor) in enumerate(zip(arrays, tensors)):
        if tensor is None:
            problems.append(Problem(f"input {index} of method '{method.name}' is not a tensor: it cannot be "
                                    f"embedded", Location(path)))
        elif (dtype, shape) != (tensor.dtype, tensor.sizes):
            problems.append(Problem(
                f"input {index} of method '{method.name}' is {SCALAR_TYPE_NAMES[tensor.dtype]} of sizes "
                f"{list(tensor.sizes)}; this array is {SCALAR_TYPE_NAMES[dtype]} of shape {list(shape)}",
                Location(path)))
    if problems:
        raise UserError.of(problems)
