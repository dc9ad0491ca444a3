"""How schema types appear in C++: kernel parameter types (ExecuTorch's lean
mode conventions) and how the registration source unboxes each from an ``EValue``."""

from __future__ import annotations

from dataclasses import dataclass

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


# How the unboxing code reads each base type out of an EValue: the kind its
# tag check uses (an enumerator of the registration source) and the accessor
# that reads the value once the check passed.
_UNBOXING = {
    "Tensor": ("kTensor", "as_tensor"),
    "int": ("kInt", "as_int"),
    "SymInt": ("kInt", "as_int"),
    "float": ("kDouble", "as_double"),
    "bool": ("kBool", "as_bool"),
    "str": ("kString", "as_string"),
    "Scalar": ("kScalar", "as_scalar"),
    "ScalarType": ("kInt", "as_scalar_type"),
    "MemoryFormat": ("kInt", "as_memory_format"),
    "Layout": ("kInt", "as_layout"),
    "Device": ("kInt", "as_device"),
}
_LIST_UNBOXING = {
    "int": ("kIntList", "as_int_list"),
    "SymInt": ("kIntList", "as_int_list"),
    "float": ("kDoubleList", "as_double_list"),
    "bool": ("kBoolList", "as_bool_list"),
    "Tensor": ("kTensorList", "as_tensor_list"),
}


@dataclass(frozen=True)
class Unboxing:
    """How the registration source reads an argument of one schema type out of
    its ``EValue``: the kind of value the tag check expects (an enumerator of
    the generated source, e.g. ``kIntList``), whether None is admitted too, and
    the reader function that returns the checked value as the kernel's type."""

    kind: str
    optional: bool
    reader: str
    value_type: str  # the base type's C++ value type (for std::optional<...>)

    @property
    def kind_expression(self) -> str:
        """The C++ constant of the tag check: ``kInt`` or ``kInt | kOptional``."""
        return f"{self.kind} | kOptional" if self.optional else self.kind

    def read(self, value: str) -> str:
        """The C++ expression reading the ``EValue*`` expression ``value``."""
        if self.optional:
            return f"optional<{self.value_type}>({value}, {self.reader})"
        return f"{self.reader}({value})"


def unboxing(type_) -> Unboxing:
    """How the registration source unboxes an argument of schema type ``type_``
    (raises UnsupportedType for what no EValue carries)."""
    optional = isinstance(type_, OptionalType)
    base = type_.elem if optional else type_
    base_value_type = value_type(base)
    value_type(type_)
    if isinstance(base, ListType):
        elem = base.elem
        if isinstance(elem, OptionalType):
            kind, reader = "kOptionalTensorList", "as_optional_tensor_list"
        else:
            kind, reader = _LIST_UNBOXING[elem.name]
    else:
        kind, reader = _UNBOXING[base.name]
    return Unboxing(kind, optional, reader, base_value_type)


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
