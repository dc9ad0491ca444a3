"""How schema types appear in C++: kernel parameter types (ExecuTorch's lean
mode conventions) and how the registration source unboxes each from an
``EValue``, spelled from the one table of
:mod:`selective_build.model.evalue_types`. Types reach here checked (the
kernel yaml reader rejects what no ``EValue`` carries)."""

from __future__ import annotations

from selective_build.model.evalue_types import BASE_TYPES, OPTIONAL_TENSOR_LIST, EValueType
from selective_build.model.records import record
from selective_build.model.schema import Argument, BaseType, OptionalType, Return, Type, is_tensor

CONTEXT = "::torch::executor::KernelRuntimeContext"


def _list_info(type_) -> EValueType:
    """How an EValue carries the list type ``type_`` (``int[]``, ``Tensor?[]``...)."""
    elem = type_.elem
    if type(elem) is OptionalType:
        return OPTIONAL_TENSOR_LIST
    info = BASE_TYPES[elem.name]
    return EValueType(f"::executorch::aten::ArrayRef<{info.list_cpp_element}>", info.list_kind, info.list_reader)


def _info(type_: Type) -> EValueType:
    """How an EValue carries ``type_`` without its outer optional."""
    return BASE_TYPES[type_.name] if type(type_) is BaseType else _list_info(type_)


def value_type(type_: Type) -> str:
    """The C++ type an EValue is converted to for this schema type."""
    if type(type_) is OptionalType:
        return f"std::optional<{value_type(type_.elem)}>"
    return _info(type_).cpp


def parameter_type(argument: Argument) -> str:
    """The kernel's parameter type: ``const Tensor&``, ``Tensor&`` for a written
    tensor, ``int64_t``, ``const std::optional<Scalar>&``, ``ArrayRef<int64_t>``..."""
    type_ = argument.type
    value = value_type(type_)
    if is_tensor(type_) and argument.is_write:
        return f"{value}&"
    base = type_.elem if type(type_) is OptionalType else type_
    if type(base) is BaseType and BASE_TYPES[base.name].by_reference:
        return f"const {value}&"
    return value


@record
class Unboxing:
    """How the registration source reads an argument of one schema type out of
    its ``EValue``: the kind of value the tag check expects (an enumerator of
    the generated source, e.g. ``kIntList``), whether None is admitted too, and
    the reader function that returns the checked value as the kernel's type."""

    kind: str
    optional: bool
    reader: str
    value_type: str  # the C++ value type without the optional (for std::optional<...>)

    @property
    def kind_expression(self) -> str:
        """The C++ constant of the tag check: ``kInt`` or ``kInt | kOptional``."""
        return f"{self.kind} | kOptional" if self.optional else self.kind

    def read(self, value: str) -> str:
        """The C++ expression reading the ``EValue*`` expression ``value``."""
        if self.optional:
            return f"optional<{self.value_type}>({value}, {self.reader})"
        return f"{self.reader}({value})"


def unboxing(type_: Type) -> Unboxing:
    """How the registration source unboxes an argument of schema type ``type_``."""
    optional = type(type_) is OptionalType
    info = _info(type_.elem if optional else type_)
    return Unboxing(info.kind, optional, info.reader, info.cpp)


def api_return_type(returns: tuple[Return, ...]) -> str:
    """The return type ExecuTorch's codegen gives an operator's kernel and C++ API
    (``NativeFunctions.h``, ``Functions.h``): a reference to each written return
    (``Tensor(a!)``), a value otherwise (a functional operator's new ``Tensor``),
    ``void`` for none, a tuple of them for several."""
    return _returns([value_type(r.type) + ("&" if r.annotation is not None and r.annotation.is_write else "")
                     for r in returns])


def _returns(parts: list[str]) -> str:
    if not parts:
        return "void"
    return parts[0] if len(parts) == 1 else f"std::tuple<{', '.join(parts)}>"
