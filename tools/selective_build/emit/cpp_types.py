"""How schema types appear in C++: kernel parameter types (ExecuTorch's lean
mode conventions) and the ``EValue`` conversion that produces each."""

from __future__ import annotations

from selective_build.schema import Argument, BaseType, ListType, OptionalType, Return

TENSOR = "::executorch::aten::Tensor"
CONTEXT = "::torch::executor::KernelRuntimeContext"

# Value types of plain bases: the C++ type an EValue converts to.
_VALUE_TYPES = {
    "Tensor": TENSOR,
    "int": "int64_t",
    "SymInt": "int64_t",
    "float": "double",
    "bool": "bool",
    "str": "std::string_view",
    "Scalar": "::executorch::aten::Scalar",
    "ScalarType": "::executorch::aten::ScalarType",
    "MemoryFormat": "::executorch::aten::MemoryFormat",
    "Layout": "::executorch::aten::Layout",
    "Device": "::executorch::aten::Device",
}
# Bases that are passed by const reference rather than by value.
_BY_REFERENCE = frozenset({"Tensor", "Scalar"})
# List element types an EValue can hold.
_LIST_ELEMENTS = {"int": "int64_t", "SymInt": "int64_t", "float": "double", "bool": "bool", "Tensor": TENSOR}


class UnsupportedType(ValueError):
    """A schema type that ExecuTorch's EValue cannot carry."""


def value_type(type_) -> str:
    """The C++ type an EValue is converted to for this schema type."""
    if isinstance(type_, BaseType):
        if type_.name not in _VALUE_TYPES:
            raise UnsupportedType(f"type '{type_.name}' has no EValue conversion")
        return _VALUE_TYPES[type_.name]
    if isinstance(type_, OptionalType):
        return f"std::optional<{value_type(type_.elem)}>"
    elem = type_.elem
    if isinstance(elem, OptionalType) and isinstance(elem.elem, BaseType) and elem.elem.name == "Tensor":
        return f"::executorch::aten::ArrayRef<std::optional<{TENSOR}>>"
    if not isinstance(elem, BaseType) or elem.name not in _LIST_ELEMENTS:
        raise UnsupportedType(f"list type '{type_}' has no EValue conversion (lists of int, float, bool, "
                              f"Tensor and Tensor? exist)")
    return f"::executorch::aten::ArrayRef<{_LIST_ELEMENTS[elem.name]}>"


def parameter_type(argument: Argument) -> str:
    """The kernel's parameter type: ``const Tensor&``, ``Tensor&`` for a written
    tensor, ``int64_t``, ``const std::optional<Scalar>&``, ``ArrayRef<int64_t>``..."""
    type_ = argument.type
    value = value_type(type_)
    if isinstance(type_, BaseType) and type_.name == "Tensor" and argument.is_write:
        return f"{value}&"
    base = type_.elem if isinstance(type_, OptionalType) else type_
    if isinstance(base, BaseType) and base.name in _BY_REFERENCE:
        return f"const {value}&"
    return value


def conversion(type_) -> str:
    """The EValue member call converting to ``value_type(type_)``: a ``Result``."""
    if isinstance(type_, OptionalType) and not isinstance(type_.elem, ListType):
        return f"tryToOptional<{value_type(type_.elem)}>()"
    return f"tryTo<{value_type(type_)}>()"


def check_signature(schema) -> None:
    """Raise UnsupportedType if an argument or return of ``schema`` has no EValue conversion."""
    for item in schema.arguments + schema.returns:
        value_type(item.type)


def return_type(returns: tuple[Return, ...]) -> str:
    """``Tensor&`` for one returned tensor, ``void`` for none, a tuple of references otherwise."""
    if not returns:
        return "void"
    parts = [f"{value_type(r.type)}&" for r in returns]
    return parts[0] if len(parts) == 1 else f"std::tuple<{', '.join(parts)}>"
