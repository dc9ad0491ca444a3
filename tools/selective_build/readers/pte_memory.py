"""What each method of a ``.pte`` program needs of memory: its planned buffers,
its tensor inputs, and the counts of the values and instructions the runtime
allocates for when it loads the method (:class:`~selective_build.model.program.MethodMemory`).

Read with the same bounds-checked reader as the operators (:mod:`.pte`)."""

from __future__ import annotations

from selective_build.model.dtypes import SCALAR_TYPE_NAMES
from selective_build.model.program import InputTensor, MethodMemory
from selective_build.readers.pte import FlatbufferReader, flatbuffer_size

# Field indices (declaration order) of program.fbs, beyond those .pte reads.
_PROGRAM_EXECUTION_PLAN = 1
_PLAN_NAME, _PLAN_VALUES, _PLAN_INPUTS, _PLAN_CHAINS, _PLAN_DELEGATES, _PLAN_BUFFER_SIZES = 0, 2, 3, 5, 7, 8
_CHAIN_INSTRUCTIONS = 2
_INSTRUCTION_ARGS_TYPE, _INSTRUCTION_ARGS = 0, 1
_KERNEL_CALL_ARGS = 1
_EVALUE_VAL_TYPE, _EVALUE_VAL = 0, 1
_TENSOR_SCALAR_TYPE, _TENSOR_SIZES, _TENSOR_DIM_ORDER = 0, 2, 3
_LIST_ITEMS = 0
# Union tags of KernelTypes (1-based), and of InstructionArguments.
_VAL_TENSOR = 5
_VAL_LISTS = {7: "q", 8: "d", 9: "?", 10: "i", 11: "i"}  # IntList, DoubleList, BoolList, TensorList, OptionalTensorList
_INSTR_KERNEL_CALL = 1

def read_method_memory(data, path: str) -> tuple[MethodMemory, ...]:
    """The memory facts of every method of the ``.pte`` bytes ``data``, in the program's order."""
    reader = FlatbufferReader(data, flatbuffer_size(data, path), path)
    root = reader.table(reader.u32(0))
    return tuple(_method(reader, plan) for plan in reader.tables(root, _PROGRAM_EXECUTION_PLAN, "methods"))

def _method(reader: FlatbufferReader, plan) -> MethodMemory:
    name = reader.string(plan, _PLAN_NAME, "a method name")
    values = reader.tables(plan, _PLAN_VALUES, "values")
    tensor_dims, list_items, tensors = [], 0, {}
    for index in range(len(values)):
        value = values[index]
        kind = reader.scalar(value, _EVALUE_VAL_TYPE, "B")
        if kind == _VAL_TENSOR:
            tensor = reader.child(value, _EVALUE_VAL, "tensor")
            sizes = reader.ints(tensor, _TENSOR_SIZES, "i", "dimensions")
            dim_order = tuple(reader.ints(tensor, _TENSOR_DIM_ORDER, "B", "dimensions"))
            tensors[index] = InputTensor(reader.scalar(tensor, _TENSOR_SCALAR_TYPE, "b"), tuple(sizes),
                                         dim_order if dim_order != tuple(range(len(sizes))) else ())
            tensor_dims.append(len(sizes))
        elif kind in _VAL_LISTS:
            list_items += len(reader.ints(reader.child(value, _EVALUE_VAL, "list"), _LIST_ITEMS, _VAL_LISTS[kind],
                                          "arguments"))
    instructions = arguments = 0
    chains = reader.tables(plan, _PLAN_CHAINS, "chains")
    for chain_index in range(len(chains)):
        steps = reader.tables(chains[chain_index], _CHAIN_INSTRUCTIONS, "instructions")
        instructions += len(steps)
        for position in range(len(steps)):
            step = steps[position]
            if reader.scalar(step, _INSTRUCTION_ARGS_TYPE, "B") == _INSTR_KERNEL_CALL:
                call = reader.child(step, _INSTRUCTION_ARGS, "kernel call")
                arguments += len(reader.ints(call, _KERNEL_CALL_ARGS, "i", "arguments"))
    inputs = []
    for index in reader.ints(plan, _PLAN_INPUTS, "i", "arguments"):
        if not 0 <= index < len(values):
            raise reader.corrupt(f"method '{name}': input value {index} is out of range")
        inputs.append(tensors.get(index))
    for tensor in filter(None, inputs):
        if tensor.dtype not in SCALAR_TYPE_NAMES or any(size < 0 for size in tensor.sizes):
            raise reader.corrupt(f"method '{name}': an input has dtype {tensor.dtype} and sizes {list(tensor.sizes)}")
    buffers = reader.ints(plan, _PLAN_BUFFER_SIZES, "q", "chains")
    if any(size < 0 for size in buffers):
        raise reader.corrupt(f"method '{name}': a planned buffer has a negative size")
    return MethodMemory(name, tuple(buffers[1:]), tuple(inputs), len(values), tuple(tensor_dims), list_items,
                        instructions, arguments, len(chains), len(reader.tables(plan, _PLAN_DELEGATES, "delegates")))
