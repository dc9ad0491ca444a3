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
# Upper bounds of what ExecuTorch's Method::init allocates per thing, on a
# 64-bit target (a 32-bit one takes less): an EValue, a tensor's TensorImpl,
# a dimension's size, dim-order and stride entries, a list item (its EValue
# pointer and its unboxed value), a chain, an instruction (its kernel pointer
# and argument list), an argument pointer, a delegate handle.
PER_VALUE, PER_TENSOR, PER_DIMENSION, PER_LIST_ITEM = 16, 112, 16, 24
PER_CHAIN, PER_INSTRUCTION, PER_ARGUMENT, PER_DELEGATE = 64, 48, 8, 256
BASE = 1024  # the method's own tables: inputs set, data maps, outputs


def deploy_pools(method: MethodMemory, inputs_from_files: bool, method_pool: int = 0, temp_pool: int = 0) -> DeployPools:
    """The pools for running ``method``: ``method_pool`` if given (non-zero),
    else an upper bound from its counts; the planned pool holds every planned
    buffer (and each tensor input when ``inputs_from_files``)."""
    planned = sum(_aligned(size) for size in method.planned_buffers)
    if inputs_from_files:
        planned += sum(_aligned(input_bytes(tensor)) for tensor in method.inputs if tensor is not None)
    return DeployPools(method_pool or _rounded(_method_bound(method), 256), _rounded(planned, ALIGNMENT), temp_pool)


def input_bytes(tensor: InputTensor) -> int:
    """The bytes of a tensor input's data."""
    count = 1
    for size in tensor.sizes:
        count *= size
    return count * SCALAR_TYPE_BYTES.get(tensor.dtype, 8)


def _method_bound(method: MethodMemory) -> int:
    """An upper bound of what loading ``method`` takes from the method allocator."""
    tensors = sum(PER_TENSOR + ALIGNMENT + 3 * (dims * PER_DIMENSION // 4 + ALIGNMENT) for dims in method.tensor_dims)
    return (BASE + method.values * PER_VALUE + ALIGNMENT + tensors + method.list_items * PER_LIST_ITEM
            + method.chains * (PER_CHAIN + 2 * ALIGNMENT) + method.instructions * (PER_INSTRUCTION + ALIGNMENT)
            + method.arguments * PER_ARGUMENT + method.delegates * PER_DELEGATE)


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
