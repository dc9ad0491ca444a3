"""What a ``.pte`` program needs from its kernels and backends, as values: per
method, the operators its kernel calls use, the exact key of every call, and
the delegates (backend ids) its delegate calls run.

:mod:`selective_build.readers.pte` builds these from a file.
"""

from __future__ import annotations

from selective_build.model.keys import KernelKey
from selective_build.model.names import OperatorName
from selective_build.model.records import record

# Operators ExecuTorch's runtime registers itself: a binary needs no kernel for them.
RUNTIME_PRIM_OPERATORS = frozenset({"aten::sym_size.int", "aten::sym_numel", "aten::_local_scalar_dense"})
RUNTIME_PRIM_NAMESPACE = "executorch_prim"


# The ATen operators ExecuTorch's macros take for prim ops when an operator list
# names them (any overload): the symbolic-shape ones its prim-op registry serves.
ATEN_PRIM_NAMES = frozenset({"sym_size", "sym_numel", "sym_max", "sym_min", "sym_float"})


def needs_no_kernel(operator: OperatorName) -> bool:
    """The runtime registers this operator itself."""
    return operator.namespace == RUNTIME_PRIM_NAMESPACE or str(operator) in RUNTIME_PRIM_OPERATORS


def is_prim_operator(operator: OperatorName) -> bool:
    """A prim op: served by ExecuTorch's prim-op registry, not by a kernel library
    (what the runtime registers itself, and the ``aten::sym_*`` names ExecuTorch's
    Buck2 macros split out of operator lists as prim ops)."""
    return needs_no_kernel(operator) or (operator.namespace == "aten" and operator.name in ATEN_PRIM_NAMES)


@record
class KernelCall:
    """One kernel call: the operator, the key the runtime looks up, and the
    dtypes passed as ScalarType arguments (enum numbers)."""

    operator: OperatorName
    key: KernelKey
    scalar_type_arguments: tuple[int, ...] = ()
    absent_arguments: tuple[int, ...] = ()  # the positions of its arguments that are None


@record
class Delegate:
    """One entry of a method's delegate table: the id of the backend that runs
    it (``XnnpackBackend``), its position in the table, and where the
    instructions calling it sit, as (chain, instruction) positions."""

    backend_id: str
    index: int
    calls: tuple[tuple[int, int], ...] = ()


@record
class Method:
    """What one method of a program needs.

    ``operators`` need a kernel (in the plan's order); ``runtime_operators``
    are registered by the runtime itself; ``delegates`` need a backend."""

    name: str
    operators: tuple[OperatorName, ...]
    runtime_operators: tuple[OperatorName, ...]
    kernel_calls: tuple[KernelCall, ...]
    delegates: tuple[Delegate, ...] = ()

    @property
    def delegate_calls(self) -> int:
        """How many delegate-call instructions the method runs."""
        return sum(len(delegate.calls) for delegate in self.delegates)

    @property
    def backends(self) -> tuple[str, ...]:
        """The ids of the backends the method's delegates need, sorted."""
        return tuple(sorted({delegate.backend_id for delegate in self.delegates}))


@record
class Program:
    """The methods of a ``.pte`` file."""

    path: str
    methods: tuple[Method, ...]


@record
class InputTensor:
    """One tensor input of a method: its dtype (ScalarType number), sizes and
    dim order (the order of its dimensions in memory, outermost first; ()
    when the program gives none: row-major)."""

    dtype: int
    sizes: tuple[int, ...]
    dim_order: tuple[int, ...] = ()


@record
class MethodMemory:
    """What a method needs of memory when the runtime loads it: its planned
    buffers' sizes, and the counts that the method allocator's use grows with."""

    name: str
    planned_buffers: tuple[int, ...]   # the memory plan's buffers, in bytes (ExecuTorch's buffer 0 left out)
    inputs: tuple[InputTensor | None, ...]  # None for an input that is not a tensor
    values: int                        # every value of the plan
    tensor_dims: tuple[int, ...]       # the number of dimensions of each tensor value
    list_items: int                    # the items of every list value together
    instructions: int
    arguments: int                     # the arguments of every kernel call together
    chains: int
    delegates: int


@record
class DeployPools:
    """The static arrays a deploy binary runs its method in, in bytes."""

    method: int   # the method allocator's, on a target of 64-bit pointers
    planned: int  # the planned buffers' (and inputs read from files)
    temp: int     # kernels' scratch; 0 for none
    method_narrow: int = 0  # the method allocator's with 32-bit pointers (a microcontroller's); 0: ``method``

    def method_for(self, pointer_bytes: int) -> int:
        """The method allocator's pool on a target whose pointers take ``pointer_bytes``."""
        return self.method_narrow if pointer_bytes <= 4 and self.method_narrow else self.method


# struct's letter for an element of each dtype the values are printed for (ScalarType names).
_ELEMENT_FORMATS = {"Byte": "B", "Char": "b", "Short": "h", "Int": "i", "Long": "q", "Half": "e", "Float": "f",
                    "Double": "d", "Bool": "?", "UInt16": "H", "UInt32": "I", "UInt64": "Q", "ComplexFloat": "f",
                    "ComplexDouble": "d", "BFloat16": "H"}


@record
class DeployOutput:
    """One printed output: a tensor's dtype (ScalarType number), sizes and bytes;
    ``dtype`` -1 for a value that is not a tensor (``data`` empty)."""

    index: int
    dtype: int
    sizes: tuple[int, ...]
    data: bytes                     # row-major, whatever dim order the binary printed them in

    def values(self) -> tuple:
        """The elements in order (complex ones as complex numbers); () when not a tensor."""
        import struct

        from selective_build.model.dtypes import SCALAR_TYPE_NAMES

        name = SCALAR_TYPE_NAMES.get(self.dtype, "")
        if name not in _ELEMENT_FORMATS:
            return ()
        raw = struct.unpack(f"<{len(self.data) // struct.calcsize(_ELEMENT_FORMATS[name])}{_ELEMENT_FORMATS[name]}", self.data)
        if name == "BFloat16":  # the upper half of a float32
            return tuple(struct.unpack("<f", struct.pack("<I", bits << 16))[0] for bits in raw)
        if name.startswith("Complex"):
            return tuple(complex(raw[i], raw[i + 1]) for i in range(0, len(raw), 2))
        return raw
