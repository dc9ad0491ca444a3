"""The function-schema language of ATen's ``native_functions.yaml``.

A schema reads ``ns::name.overload(Type arg=default, *, Tensor(a!) out) -> Tensor(a!)``.
This module holds its values: an immutable :class:`FunctionSchema` and its
parts, each printing as the language spells it;
:func:`selective_build.model.schema_parser.parse_schema` reads the text.

This module only describes schemas. Which types ExecuTorch can pass to a kernel is
:mod:`selective_build.model.evalue_types`; what else a kernel yaml entry must
satisfy is checked by :mod:`selective_build.readers.kernel_yaml`.
"""

from __future__ import annotations

from selective_build.model.names import DEFAULT_NAMESPACE, OperatorName
from selective_build.model.records import record

# Every base type the schema language knows; ExecuTorch supports a subset.
KNOWN_BASE_TYPES = frozenset({
    "Tensor", "int", "SymInt", "float", "SymFloat", "bool", "SymBool", "str",
    "Scalar", "ScalarType", "MemoryFormat", "Device", "DeviceIndex", "Layout",
    "Generator", "Dimname", "Storage", "Stream", "QScheme", "ConstQuantizerPtr",
    "GraphModule", "Any",
})


@record
class BaseType:
    """A plain type: ``Tensor``, ``int``, ``Scalar``..."""

    name: str

    def __str__(self) -> str:
        return self.name


@record
class OptionalType:
    """``T?``."""

    elem: "Type"

    def __str__(self) -> str:
        return f"{self.elem}?"


@record
class ListType:
    """``T[]``, or ``T[N]`` when ``size`` is set."""

    elem: "Type"
    size: int | None = None

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"


# A type is a BaseType, an OptionalType or a ListType (annotations only).
Type = "BaseType | OptionalType | ListType"


def base_of(type_: Type) -> BaseType:
    """The innermost base type: ``Tensor?[]`` -> ``Tensor``."""
    while type(type_) is not BaseType:
        type_ = type_.elem
    return type_


def is_single_tensor(type_: Type) -> bool:
    """``Tensor`` or ``Tensor?``: the arguments that contribute to a kernel key."""
    if type(type_) is OptionalType:
        type_ = type_.elem
    return type(type_) is BaseType and type_.name == "Tensor"


def is_tensor(type_: Type) -> bool:
    """Exactly ``Tensor``."""
    return type(type_) is BaseType and type_.name == "Tensor"


@record
class Annotation:
    """An alias annotation: ``(a!)`` is ``alias_sets=("a",), is_write=True``."""

    alias_sets: tuple[str, ...]
    is_write: bool
    alias_sets_after: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = "|".join(self.alias_sets) + ("!" if self.is_write else "")
        if self.alias_sets_after:
            text += " -> " + "|".join(self.alias_sets_after)
        return text


def _annotated(type_: Type, annotation: Annotation | None) -> str:
    """Render a type with its annotation after the base: ``Tensor(a!)[]``."""
    text = str(type_)
    if annotation is None:
        return text
    base = base_of(type_).name
    return f"{base}({annotation}){text[len(base):]}"


@record
class Argument:
    """One argument of a schema."""

    name: str
    type: Type
    default: str | None = None
    annotation: Annotation | None = None
    kwarg_only: bool = False

    @property
    def is_write(self) -> bool:
        """Written by the operator (``Tensor(a!)``)."""
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        text = f"{_annotated(self.type, self.annotation)} {self.name}"
        return text if self.default is None else f"{text}={self.default}"


@record
class Return:
    """One returned value of a schema; ``name`` may be empty."""

    type: Type
    name: str = ""
    annotation: Annotation | None = None

    def __str__(self) -> str:
        text = _annotated(self.type, self.annotation)
        return f"{text} {self.name}" if self.name else text


@record
class FunctionSchema:
    """A parsed function schema."""

    name: OperatorName
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        """The keyword-only arguments the operator writes: its outputs."""
        return tuple(a for a in self.arguments if a.kwarg_only and a.is_write)

    def argument(self, name: str) -> Argument | None:
        """The argument called ``name``, if any."""
        for arg in self.arguments:
            if arg.name == name:
                return arg
        return None

    def __str__(self) -> str:
        args: list[str] = []
        star = False
        for arg in self.arguments:
            if arg.kwarg_only and not star:
                args.append("*")
                star = True
            args.append(str(arg))
        if len(self.returns) == 1:
            rets = str(self.returns[0])
        else:
            rets = f"({', '.join(map(str, self.returns))})"
        name = self.name.unqualified if self.name.namespace == DEFAULT_NAMESPACE else str(self.name)
        return f"{name}({', '.join(args)}) -> {rets}"
