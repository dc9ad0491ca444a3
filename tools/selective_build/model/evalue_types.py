"""The argument types a kernel can take: what ExecuTorch's ``EValue`` carries.

One table, :data:`BASE_TYPES`, says for each schema base type how an
``EValue`` holds it (the kind of value, and the accessor that reads it), its
C++ value type, and whether lists of it exist. Both the kernel yaml checks
(:func:`unsupported_reason`) and the generated C++ (``emit/cpp_types``) read
it, so a type the yaml accepts is always one the bindings can unbox.

Accepted shapes: a base ``T``; ``T?``; ``T[]`` (or ``T[N]``) for a base with
lists; ``Tensor?[]``; and an optional list ``T[]?``.
"""

from __future__ import annotations

from selective_build.model.records import record
from selective_build.model.schema import BaseType, ListType, OptionalType, Type

TENSOR_CPP = "::executorch::aten::Tensor"
_ATEN = "::executorch::aten::"


@record
class EValueType:
    """How an ``EValue`` carries one base type.

    ``kind`` names the value the registration source's tag check expects
    (``kInt``...), ``reader`` the accessor that reads it once checked;
    ``cpp`` is the kernel's C++ value type, passed by const reference when
    ``by_reference``. ``list_kind``/``list_reader``/``list_cpp_element``
    describe lists of it (empty when no list of it exists)."""

    cpp: str
    kind: str
    reader: str
    by_reference: bool = False
    list_kind: str = ""
    list_reader: str = ""
    list_cpp_element: str = ""


BASE_TYPES: dict[str, EValueType] = {
    "Tensor": EValueType(TENSOR_CPP, "kTensor", "as_tensor", True, "kTensorList", "as_tensor_list", TENSOR_CPP),
    "int": EValueType("int64_t", "kInt", "as_int", False, "kIntList", "as_int_list", "int64_t"),
    "SymInt": EValueType("int64_t", "kInt", "as_int", False, "kIntList", "as_int_list", "int64_t"),
    "float": EValueType("double", "kDouble", "as_double", False, "kDoubleList", "as_double_list", "double"),
    "bool": EValueType("bool", "kBool", "as_bool", False, "kBoolList", "as_bool_list", "bool"),
    "str": EValueType("std::string_view", "kString", "as_string"),
    "Scalar": EValueType(_ATEN + "Scalar", "kScalar", "as_scalar", True),
    "ScalarType": EValueType(_ATEN + "ScalarType", "kInt", "as_scalar_type"),
    "MemoryFormat": EValueType(_ATEN + "MemoryFormat", "kInt", "as_memory_format"),
    "Layout": EValueType(_ATEN + "Layout", "kInt", "as_layout"),
    "Device": EValueType(_ATEN + "Device", "kInt", "as_device"),
}

@record
class EValueKind:
    """A kind of value an argument's ``EValue`` may hold, as the registration
    source's check names it: the ``EValue`` method that tests the tag, and
    for values that point elsewhere (tensors, strings, lists) a C++ test of
    ``value`` that what they point to is there and of the right type (a
    list's test keeps the unwrapped list in ``list``, for the wrapper to read
    without unwrapping it again)."""

    name: str
    tag_test: str
    contents_check: str = ""

    @property
    def is_list(self) -> bool:
        """Whether the check keeps the value's unwrapped list for the wrapper."""
        return self.name.endswith("List")


# Every kind, in the order of the generated source's enum: lists last.
KINDS: tuple[EValueKind, ...] = (
    EValueKind("kTensor", "isTensor", "usable(value.toTensor())"),
    EValueKind("kInt", "isInt"),
    EValueKind("kDouble", "isDouble"),
    EValueKind("kBool", "isBool"),
    EValueKind("kScalar", "isScalar"),
    EValueKind("kString", "isString", "value.tryToString().ok()"),
    EValueKind("kIntList", "isIntList", "keep(value.tryToIntList(), list)"),
    EValueKind("kDoubleList", "isDoubleList", "keep(value.tryToDoubleList(), list)"),
    EValueKind("kBoolList", "isBoolList", "keep(value.tryToBoolList(), list)"),
    EValueKind("kTensorList", "isTensorList", "keep_usable(value.tryToTensorList(), list)"),
    EValueKind("kOptionalTensorList", "isListOptionalTensor", "keep_usable(value.tryToListOptionalTensor(), list)"),
)

# A list of optional tensors (``Tensor?[]``, e.g. index's indices) is its own kind.
OPTIONAL_TENSOR_LIST = EValueType(f"{_ATEN}ArrayRef<std::optional<{TENSOR_CPP}>>", "kOptionalTensorList",
                                  "as_optional_tensor_list")


def unsupported_reason(type_: Type) -> str:
    """Why no ``EValue`` carries a value of ``type_``, or ``""`` when one does."""
    base = type_.elem if type(type_) is OptionalType else type_
    if type(base) is OptionalType:
        return "an optional of an optional"
    if type(base) is BaseType:
        return "" if base.name in BASE_TYPES else f"ExecuTorch does not support {base.name} arguments"
    elem = base.elem
    if type(elem) is ListType:
        return "lists of lists are not supported"
    if type(elem) is OptionalType:
        inner = elem.elem
        if type(inner) is BaseType and inner.name == "Tensor":
            return ""
        return f"a list of {elem} is not supported (of optional types, only Tensor?[] exists)"
    if elem.name not in BASE_TYPES:
        return f"ExecuTorch does not support {elem.name} arguments"
    if not BASE_TYPES[elem.name].list_kind:
        listable = ", ".join(name for name, info in BASE_TYPES.items() if info.list_kind)
        return f"a list of {elem.name} is not supported (lists of {listable} and Tensor? exist)"
    return ""
