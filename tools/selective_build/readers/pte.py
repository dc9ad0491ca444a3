"""Reading what a ``.pte`` program needs from its kernels.

A ``.pte`` file is a flatbuffer (schema ``program.fbs`` in the ExecuTorch wheel,
identifier ``ET12``) followed by data segments. Bytes 8..40 hold an extended
header (``eh00``) with the size of the flatbuffer part; only that part is
read, through the ``flatbuffers`` package's table accessors, so constant data
in segments is never touched (callers pass a memory map).

For every method :func:`read_program` returns the operators its kernel calls
use and, per call, the kernel key the runtime looks up: the dtype and dim
order of every argument that is a single tensor, in argument order (the out
tensor appears again as the returned value).
Dtypes that reach a kernel through a ``ScalarType`` argument are recorded too,
and so is each entry of the method's delegate table (the backend id, e.g.
``XnnpackBackend``) with the positions of the instructions that call it.
Every offset and length is checked against the buffer, so a corrupt file gives
a :class:`~selective_build.model.errors.UserError`, never a crash or a hang.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from selective_build.model.dtypes import SCALAR_TYPE_NAMES
from selective_build.model.errors import Location, UserError
from selective_build.model.keys import TensorMeta, exact_key
from selective_build.model.names import OperatorName, SchemaSyntaxError, operator_name_of
from selective_build.model.program import Delegate, KernelCall, Method, Program, needs_no_kernel

FILE_IDENTIFIER = b"ET12"
EXTENDED_HEADER_MAGIC = b"eh00"

# Field indices (declaration order) of the program.fbs tables read here.
_PROGRAM_EXECUTION_PLAN = 1
_PLAN_NAME, _PLAN_VALUES, _PLAN_CHAINS, _PLAN_OPERATORS, _PLAN_DELEGATES = 0, 2, 5, 6, 7
_CHAIN_INSTRUCTIONS = 2
_BACKEND_DELEGATE_ID = 0
_DELEGATE_CALL_INDEX = 0
_INSTRUCTION_ARGS_TYPE, _INSTRUCTION_ARGS = 0, 1  # a union: its type field, then the value
_KERNEL_CALL_OP_INDEX, _KERNEL_CALL_ARGS = 0, 1
_OPERATOR_NAME, _OPERATOR_OVERLOAD = 0, 1
_EVALUE_VAL_TYPE, _EVALUE_VAL = 0, 1
_TENSOR_SCALAR_TYPE, _TENSOR_SIZES, _TENSOR_DIM_ORDER = 0, 2, 3
_INT_VAL = 0
# Union tags (1-based order of the union's members).
_INSTR_KERNEL_CALL, _INSTR_DELEGATE_CALL = 1, 2
_VAL_INT, _VAL_TENSOR = 2, 5
# An EValue that holds nothing: the union's Null member (1), or no member at all (0).
_VALS_NONE = (0, 1)

# The most of each thing a program may hold: far beyond real programs, low
# enough that a corrupt count cannot make the reader run for minutes.
# (ExecuTorch's tensors have at most 16 dimensions: kTensorDimensionLimit.)
LIMITS = {"methods": 1_000, "operators": 100_000, "delegates": 100_000, "values": 10_000_000, "chains": 10_000,
          "instructions": 10_000_000, "arguments": 100_000, "dimensions": 16}

# A schema lookup: operator name -> the indices of its ScalarType arguments.
ScalarTypeArguments = Callable[[OperatorName], "tuple[int, ...] | None"]  # collections.abc: typing costs ~3 ms to import


def flatbuffer_size(data, path: str) -> int:
    """The size of the flatbuffer part of a ``.pte`` (the whole data if it has no extended header)."""
    if len(data) < 8:
        raise UserError(f"not a .pte file: {len(data)} bytes, too short for a flatbuffer", Location(path))
    if bytes(data[4:8]) != FILE_IDENTIFIER:
        found = bytes(data[4:8])
        raise UserError(f"not a .pte file: file identifier {found!r}, expected {FILE_IDENTIFIER!r} at byte 4",
                        Location(path))
    if len(data) >= 32 and bytes(data[8:12]) == EXTENDED_HEADER_MAGIC:
        length, program_size = struct.unpack_from("<IQ", data, 12)
        if length < 24 or program_size > len(data) or program_size < 40:
            raise UserError(f"corrupt .pte extended header: program size {program_size} in a file of "
                            f"{len(data)} bytes", Location(path))
        return program_size
    return len(data)


def _flatbuffers():
    """The ``flatbuffers`` package, imported without numpy when nothing has loaded numpy yet.

    flatbuffers imports numpy whenever it can find it on ``sys.path``, for
    vector accessors this reader does not use; that import costs ~50 ms,
    several times the reading itself. So the package is found first, then
    executed with an empty ``sys.path``. (``importlib.util`` would cost 4 ms
    more than its two helpers used here, which live in ``importlib._bootstrap``.)"""
    import sys

    if "flatbuffers.table" in sys.modules or "numpy" in sys.modules:
        import flatbuffers.table

        return sys.modules["flatbuffers"]
    from importlib._bootstrap import module_from_spec
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec("flatbuffers")
    if spec is None or spec.loader is None:
        raise UserError("the 'flatbuffers' Python package is not installed (pip install flatbuffers)")
    module = module_from_spec(spec)
    saved_path = sys.path[:]
    sys.modules["flatbuffers"] = module
    try:
        sys.path[:] = []
        spec.loader.exec_module(module)
        import flatbuffers.table  # noqa: F401  (relative to the package, not sys.path)
    except BaseException:
        for name in [n for n in sys.modules if n == "flatbuffers" or n.startswith("flatbuffers.")]:
            del sys.modules[name]
        raise
    finally:
        sys.path[:] = saved_path
    return module


class FlatbufferReader:
    """Bounds-checked access to the tables of one flatbuffer."""

    def __init__(self, data, size: int, path: str) -> None:
        self.flatbuffers = _flatbuffers()
        self.data = data
        self.size = size
        self.path = path

    def corrupt(self, what: str) -> UserError:
        return UserError(f"corrupt .pte: {what}", Location(self.path))

    def u32(self, pos: int) -> int:
        if pos < 0 or pos + 4 > self.size:
            raise self.corrupt(f"offset {pos} is outside the {self.size}-byte program")
        return struct.unpack_from("<I", self.data, pos)[0]

    def table(self, pos: int):
        # A table starts with a signed offset back to its vtable; check both ends.
        if pos < 0 or pos + 4 > self.size:
            raise self.corrupt(f"table at {pos} is outside the program")
        vtable = pos - struct.unpack_from("<i", self.data, pos)[0]
        if vtable < 0 or vtable + 4 > self.size:
            raise self.corrupt(f"vtable of the table at {pos} is outside the program")
        vtable_size = struct.unpack_from("<H", self.data, vtable)[0]
        if vtable_size < 4 or vtable + vtable_size > self.size:
            raise self.corrupt(f"vtable at {vtable} is {vtable_size} bytes, past the program")
        return self.flatbuffers.table.Table(self.data, pos)

    def field(self, table, index: int) -> int:
        """The offset of field ``index`` within ``table`` (0 when absent)."""
        vtable = table.Pos - struct.unpack_from("<i", self.data, table.Pos)[0]
        vtable_size = struct.unpack_from("<H", self.data, vtable)[0]
        slot = 4 + 2 * index
        return 0 if slot >= vtable_size else table.Offset(slot)

    def child(self, table, index: int, what: str):
        offset = self.field(table, index)
        if not offset:
            raise self.corrupt(f"missing {what}")
        return self.table(self.indirect(table.Pos + offset))

    def indirect(self, pos: int) -> int:
        return pos + self.u32(pos)

    def vector(self, table, index: int, element_size: int) -> tuple[int, int]:
        """(start, length) of a vector field; an absent vector is empty."""
        offset = self.field(table, index)
        if not offset:
            return 0, 0
        header = self.indirect(table.Pos + offset)
        length = self.u32(header)
        start = header + 4
        if start + length * element_size > self.size:
            raise self.corrupt(f"vector of {length} items at {header} runs past the program")
        return start, length

    def tables(self, table, index: int, what: str) -> "_Tables":
        """The tables of a vector field, read as they are asked for; more than
        its limit in :data:`LIMITS` is refused."""
        start, length = self.vector(table, index, 4)
        if length > LIMITS[what]:
            raise self.corrupt(f"{length:,} {what}, more than the {LIMITS[what]:,} etsb reads")
        return _Tables(self, start, length)

    def ints(self, table, index: int, fmt: str, what: str) -> tuple[int, ...]:
        size = struct.calcsize(fmt)
        start, length = self.vector(table, index, size)
        if length > LIMITS[what]:
            raise self.corrupt(f"{length:,} {what}, more than the {LIMITS[what]:,} etsb reads")
        return struct.unpack_from(f"<{length}{fmt}", self.data, start) if length else ()

    def string(self, table, index: int, what: str) -> str:
        start, length = self.vector(table, index, 1)
        try:
            return bytes(self.data[start:start + length]).decode("utf-8")
        except UnicodeDecodeError:
            raise self.corrupt(f"{what} is not UTF-8") from None

    def scalar(self, table, index: int, fmt: str, default: int = 0) -> int:
        offset = self.field(table, index)
        if not offset:
            return default
        pos = table.Pos + offset
        if pos + struct.calcsize(fmt) > self.size:
            raise self.corrupt(f"field at {pos} runs past the program")
        return struct.unpack_from(f"<{fmt}", self.data, pos)[0]


class _Tables:
    """A vector of tables, each read (and checked) when it is asked for."""

    def __init__(self, reader: FlatbufferReader, start: int, length: int) -> None:
        self.reader, self.start, self.length = reader, start, length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int):
        if not 0 <= index < self.length:
            raise IndexError(index)
        return self.reader.table(self.reader.indirect(self.start + 4 * index))


def read_program(data, path: str, scalar_type_arguments: ScalarTypeArguments | None = None) -> Program:
    """Every method's operators and kernel keys from ``.pte`` bytes (or a memory map).

    ``scalar_type_arguments`` maps an operator name to the positions of its
    ScalarType arguments (from the operator schemas), so that dtypes passed
    as values, such as ``dtype=``, are recorded."""
    size = flatbuffer_size(data, path)
    reader = FlatbufferReader(data, size, path)
    root = reader.table(reader.u32(0))
    methods = []
    seen_names = set()
    for plan in reader.tables(root, _PROGRAM_EXECUTION_PLAN, "methods"):
        method = _read_plan(reader, plan, scalar_type_arguments)
        if method.name in seen_names:
            raise reader.corrupt(f"two methods are named '{method.name}'")
        seen_names.add(method.name)
        methods.append(method)
    if not methods:
        raise reader.corrupt("the program has no methods")
    return Program(path, tuple(methods))


def _read_plan(reader: FlatbufferReader, plan, scalar_type_arguments: ScalarTypeArguments | None) -> Method:
    name = reader.string(plan, _PLAN_NAME, "a method name")
    operators = _operators(reader, plan, name)
    values = _Values(reader, reader.tables(plan, _PLAN_VALUES, "values"), name)
    backend_ids = _backend_ids(reader, plan, name)
    delegate_calls: list[list[tuple[int, int]]] = [[] for _ in backend_ids]
    calls: list[KernelCall] = []
    used: set[int] = set()
    for chain_index, chain in enumerate(reader.tables(plan, _PLAN_CHAINS, "chains")):
        for position, instruction in enumerate(reader.tables(chain, _CHAIN_INSTRUCTIONS, "instructions")):
            kind = reader.scalar(instruction, _INSTRUCTION_ARGS_TYPE, "B")
            if kind == _INSTR_DELEGATE_CALL:
                call = reader.child(instruction, _INSTRUCTION_ARGS, "delegate call")
                index = reader.scalar(call, _DELEGATE_CALL_INDEX, "i")
                if not 0 <= index < len(backend_ids):
                    raise reader.corrupt(f"method '{name}': delegate index {index} is out of range "
                                         f"(the method has {len(backend_ids)} delegates)")
                delegate_calls[index].append((chain_index, position))
            elif kind == _INSTR_KERNEL_CALL:
                op_index, call = _kernel_call(reader, instruction, name, operators, values, scalar_type_arguments)
                used.add(op_index)
                calls.append(call)
    needed = [operators[i] for i in sorted(used)]
    return Method(
        name=name,
        operators=tuple(op for op in needed if not needs_no_kernel(op)),
        runtime_operators=tuple(op for op in needed if needs_no_kernel(op)),
        kernel_calls=tuple(calls),
        delegates=tuple(Delegate(backend_id, index, tuple(delegate_calls[index]))
                        for index, backend_id in enumerate(backend_ids)),
    )


def _backend_ids(reader: FlatbufferReader, plan, method: str) -> list[str]:
    """The backend id of each entry of the plan's delegate table, in order."""
    ids = []
    for index, delegate in enumerate(reader.tables(plan, _PLAN_DELEGATES, "delegates")):
        backend_id = reader.string(delegate, _BACKEND_DELEGATE_ID, "a backend id")
        if not backend_id or not backend_id.isprintable() or backend_id != backend_id.strip():
            raise reader.corrupt(f"method '{method}': delegate {index} has backend id {backend_id!r}")
        ids.append(backend_id)
    return ids


def _operators(reader: FlatbufferReader, plan, method: str) -> list[OperatorName]:
    """The plan's operator table, in order."""
    operators = []
    for operator in reader.tables(plan, _PLAN_OPERATORS, "operators"):
        op_name = reader.string(operator, _OPERATOR_NAME, "an operator name")
        overload = reader.string(operator, _OPERATOR_OVERLOAD, "an operator overload")
        if not op_name:
            raise reader.corrupt(f"method '{method}' has an operator without a name")
        try:
            operators.append(operator_name_of(op_name, overload))
        except SchemaSyntaxError as error:
            raise reader.corrupt(f"method '{method}': operator '{op_name}' (overload '{overload}') is not an "
                                 f"operator name: {error.message}") from None
    return operators


class _Values:
    """The plan's values, read on demand: a tensor's key entry, an int."""

    def __init__(self, reader: FlatbufferReader, values: list, method: str) -> None:
        self.reader = reader
        self.values = values
        self.method = method
        self.metas: dict[int, TensorMeta | None] = {}

    def value(self, index: int):
        if not 0 <= index < len(self.values):
            raise self.reader.corrupt(f"method '{self.method}': value index {index} is out of range "
                                      f"(the method has {len(self.values)} values)")
        return self.values[index]

    def tensor_meta(self, index: int) -> TensorMeta | None:
        """The key entry of value ``index``; None when it is not a tensor."""
        if index not in self.metas:
            self.metas[index] = self._read_tensor_meta(index)
        return self.metas[index]

    def _read_tensor_meta(self, index: int) -> TensorMeta | None:
        reader, value = self.reader, self.value(index)
        if reader.scalar(value, _EVALUE_VAL_TYPE, "B") != _VAL_TENSOR:
            return None
        tensor = reader.child(value, _EVALUE_VAL, "tensor")
        dtype = reader.scalar(tensor, _TENSOR_SCALAR_TYPE, "b")
        if dtype not in SCALAR_TYPE_NAMES:
            raise reader.corrupt(f"method '{self.method}': value {index} has unknown dtype number {dtype}")
        dim_order = reader.ints(tensor, _TENSOR_DIM_ORDER, "B", "dimensions")
        sizes = reader.ints(tensor, _TENSOR_SIZES, "i", "dimensions")
        if sorted(dim_order) != list(range(len(dim_order))) or len(dim_order) != len(sizes):
            raise reader.corrupt(f"method '{self.method}': value {index} has dim order {list(dim_order)} "
                                 f"for {len(sizes)} dimensions")
        return TensorMeta(dtype, tuple(dim_order))

    def is_none(self, index: int) -> bool:
        """Whether value ``index`` is None."""
        return self.reader.scalar(self.value(index), _EVALUE_VAL_TYPE, "B") in _VALS_NONE

    def int_value(self, index: int) -> int | None:
        """The value of an int value; None when it is not an int."""
        reader, value = self.reader, self.value(index)
        if reader.scalar(value, _EVALUE_VAL_TYPE, "B") != _VAL_INT:
            return None
        return reader.scalar(reader.child(value, _EVALUE_VAL, "int"), _INT_VAL, "q")


def _kernel_call(reader: FlatbufferReader, instruction, method: str, operators: list[OperatorName], values: _Values,
                 scalar_type_arguments: ScalarTypeArguments | None) -> tuple[int, KernelCall]:
    """The operator index and the call of one kernel-call instruction."""
    call = reader.child(instruction, _INSTRUCTION_ARGS, "kernel call")
    op_index = reader.scalar(call, _KERNEL_CALL_OP_INDEX, "i")
    if not 0 <= op_index < len(operators):
        raise reader.corrupt(f"method '{method}': operator index {op_index} is out of range "
                             f"(the method has {len(operators)} operators)")
    operator = operators[op_index]
    args = reader.ints(call, _KERNEL_CALL_ARGS, "i", "arguments")
    key = exact_key(meta for meta in map(values.tensor_meta, args) if meta is not None)
    positions = scalar_type_arguments(operator) if scalar_type_arguments else None
    dtypes: tuple[int, ...] = ()
    if positions:
        found = [values.int_value(args[i]) for i in positions if i < len(args)]
        for dtype in found:
            if dtype is not None and dtype not in SCALAR_TYPE_NAMES:
                raise reader.corrupt(f"method '{method}': {operator} gets unknown dtype number {dtype}")
        dtypes = tuple(sorted({d for d in found if d is not None}))
    absent = tuple(position for position, index in enumerate(args) if values.is_none(index))
    return op_index, KernelCall(operator, key, dtypes, absent)
