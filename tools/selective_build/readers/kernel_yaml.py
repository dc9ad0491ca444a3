"""Kernel yaml: the contract between operators and C++ kernels.

A kernel yaml file is a list of operator entries (see ExecuTorch's kernel
library README)::

    - op: add.out                        # an ATen operator, or
    - func: ns::op.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)   # a custom one
      type_alias: {T0: [Float, Double]}
      dim_order_alias: {D0: [[0, 1]]}
      kernels:
        - arg_meta: {self: [T0, D0], out: [T0, D0]}
          kernel_name: custom::op_out     # calls custom::native::op_out
        - arg_meta: null                  # the default kernel, any dtype
          kernel_name: custom::op_out_any

:func:`parse_kernel_yaml` reads such text into an immutable
:class:`~selective_build.model.kernels.KernelYaml` and validates it; every object keeps its source location, and every problem
in the file is reported at once as a :class:`~selective_build.model.errors.UserError`.
"""

from __future__ import annotations

from selective_build.model.errors import Location
from selective_build.model.evalue_types import unsupported_reason
from selective_build.model.kernels import FUNC, OP, FrozenMapping, KernelYaml, OperatorEntry
from selective_build.model.names import OperatorName, SchemaSyntaxError, parse_operator_name
from selective_build.model.schema import FunctionSchema, base_of, is_tensor
from selective_build.model.schema_parser import parse_schema
from selective_build.readers.aten_schemas import AtenSchemas
from selective_build.readers.kernel_yaml_kernels import KernelsReader
from selective_build.readers.yaml_nodes import SCALAR, SEQUENCE, end_line, is_null

# Keys of an operator entry, and the native_functions.yaml keys ExecuTorch's
# files carry that etsb keeps but does not act on.
ENTRY_KEYS = ("op", "func", "kernels", "type_alias", "dim_order_alias")
PASSTHROUGH_KEYS = ("variants", "tags", "dispatch", "cpp_no_default_args")
_ENTRY_KEYS = frozenset(ENTRY_KEYS)
_ENTRY_OR_PASSTHROUGH_KEYS = frozenset(ENTRY_KEYS + PASSTHROUGH_KEYS)
VARIANTS = frozenset({"function", "method"})
# How deep a carried-through value (`tags`, `dispatch`...) may nest.
MAX_PASSTHROUGH_DEPTH = 32


# ----------------------------------------------------------------------------
# Reading a kernel yaml
# ----------------------------------------------------------------------------


class _KernelYamlReader(KernelsReader):
    """Reads the operator entries of one kernel yaml file (their kernels: :class:`KernelsReader`)."""

    def __init__(self, path: str, aten: AtenSchemas) -> None:
        super().__init__(path)
        self.aten = aten

    # -- the file -----------------------------------------------------------

    def read(self, root) -> tuple[OperatorEntry, ...]:
        if root is None:
            self.problem(Location(self.path, 1, 1), "empty file: expected a list of operator entries")
            return ()
        if root.id != SEQUENCE:
            self.problem(root, f"expected a list of operator entries ('- op: ...'), not {self.describe(root)}")
            return ()
        entries: list[OperatorEntry] = []
        first_seen: dict[OperatorName, Location] = {}
        for item in root.value:
            entry = self.entry(item)
            if entry is None:
                continue
            if entry.name in first_seen:
                self.problem(entry.location, f"operator {entry.name} is already declared at line "
                                             f"{first_seen[entry.name].line}; an operator appears once per file")
                continue
            first_seen[entry.name] = entry.location
            entries.append(entry)
        return tuple(entries)

    def entry(self, node) -> OperatorEntry | None:
        fields = self.fields(node, "an operator entry", _ENTRY_OR_PASSTHROUGH_KEYS,
                             ", ".join(ENTRY_KEYS + PASSTHROUGH_KEYS))
        if fields is None:
            return None
        if ("op" in fields) == ("func" in fields):
            self.problem(node, "an operator entry needs exactly one of 'op' (an ATen operator) "
                               "or 'func' (a custom operator's schema)")
            return None
        kind = OP if OP in fields else FUNC
        named = self.operator(kind, fields[kind])
        if named is None:
            return None
        spelling, schema = named
        location = self.at(fields[kind])
        type_alias = self.type_alias(fields["type_alias"]) if "type_alias" in fields else ()
        dim_order_alias = self.dim_order_alias(fields["dim_order_alias"]) if "dim_order_alias" in fields else ()
        passthrough = ()
        if not fields.keys() <= _ENTRY_KEYS:
            passthrough = tuple((key, self.passthrough(key, value)) for key, value in fields.items()
                                if key in PASSTHROUGH_KEYS)
        self.check_schema(schema, fields[kind])
        if "kernels" not in fields:
            if not self.has_unknown_key(node, _ENTRY_OR_PASSTHROUGH_KEYS):  # else that key is the mistake
                self.problem(node, f"{schema.name} has no 'kernels' list")
            return None
        kernels = self.kernels(fields["kernels"], schema, dict(type_alias), dict(dim_order_alias))
        return OperatorEntry(schema.name, kind, spelling, schema, type_alias, dim_order_alias,
                             kernels, passthrough, location)

    def passthrough(self, key: str, node) -> object:
        value = self.plain(node, key, 0)
        if key == "variants":
            words = {w.strip() for w in str(value).split(",")} if isinstance(value, str) else set()
            if not words or not words <= VARIANTS:
                self.problem(node, f"variants must be 'function', 'method' or 'function, method', not {value!r}")
        return value

    def plain(self, node, key: str, depth: int) -> object:
        """A node as plain immutable data (for the keys etsb carries but does
        not interpret): scalars as text, lists as tuples, mappings of plain
        names as FrozenMappings, at most MAX_PASSTHROUGH_DEPTH levels deep."""
        if node.id == SCALAR:
            return None if is_null(node) else node.value
        if depth >= MAX_PASSTHROUGH_DEPTH:
            self.problem(node, f"'{key}' is nested more than {MAX_PASSTHROUGH_DEPTH} levels deep")
            return None
        if node.id == SEQUENCE:
            return tuple(self.plain(item, key, depth + 1) for item in node.value)
        pairs = self.mapping(node, f"'{key}'") or ()
        return FrozenMapping((name.value, self.plain(value, key, depth + 1)) for name, value in pairs)

    def operator(self, kind: str, node) -> tuple[str, FunctionSchema] | None:
        text = self.string(node, f"'{kind}'")
        if text is None:
            return None
        if kind == FUNC:
            try:
                return text, parse_schema(text)
            except SchemaSyntaxError as error:
                self.problem(self.column_in(node, error.column), f"bad schema: {error.message}")
                return None
        schema = self.aten.lookup(text[6:] if text.startswith("aten::") else text)
        if schema is not None:  # a known name is a well-formed one
            return text, schema
        try:
            name = parse_operator_name(text)
        except SchemaSyntaxError as error:
            self.problem(self.column_in(node, error.column), f"bad operator name: {error.message}")
            return None
        if "(" in text:
            self.problem(node, "'op' takes an operator name such as 'add.out'; "
                               "write a full schema with 'func' instead")
            return None
        if name.namespace != "aten":
            self.problem(node, f"'op' names ATen operators; declare {name} with 'func' and its schema")
            return None
        schema = self.aten.lookup(name.unqualified)
        if schema is None:
            self.problem(node, f"'{text}' is not an ATen operator with an out or in-place variant in "
                               f"{self.aten.source}{self.aten.suggest(name.unqualified)}; "
                               "declare custom operators with 'func' and their schema")
            return None
        return text, schema

    def column_in(self, node, column: int) -> Location:
        """The place of a column within a scalar, when the scalar sits on one line as written."""
        start = self.at(node)
        if start.line != end_line(node) or node.style not in ("", "'", '"'):
            return start
        offset = 1 if node.style else 0  # the opening quote
        return Location(self.path, start.line, start.column + offset + column - 1)

    # -- schema rules ---------------------------------------------------------

    def check_schema(self, schema: FunctionSchema, node) -> None:
        name = schema.name
        writes = []
        for arg in schema.arguments:
            type_ = arg.type
            problem = unsupported_reason(type_)
            if problem:
                self.problem(node, f"{name}: argument '{arg.name}' has type {type_}: {problem}")
            if arg.annotation is not None and arg.annotation.is_write:
                writes.append(arg)
                if base_of(type_).name != "Tensor":
                    self.problem(node, f"{name}: argument '{arg.name}' is written but is a {type_}")
        for ret in schema.returns:
            if not is_tensor(ret.type):
                self.problem(node, f"{name}: returns {ret.type}; an ExecuTorch operator returns "
                                   "only Tensors (its out arguments) or ()")
                return
        outs = [arg for arg in writes if arg.kwarg_only]
        if outs:
            # Written positional arguments are state the operator updates in
            # place (batch norm's running statistics); the outputs are the outs.
            if schema.returns and not _returns_alias(schema.returns, outs):
                self.problem(node, f"{name}: an out variant returns its out arguments "
                                   f"({', '.join(a.name for a in outs)}) in order, or ()")
        elif writes:
            if not name.name.endswith("_"):
                self.problem(node, f"{name}: argument '{writes[0].name}' is written but not keyword-only; "
                                   "ExecuTorch operators write to out arguments after '*' "
                                   "(or to self in an in-place operator, whose name ends in '_')")
            elif schema.returns and not _returns_alias(schema.returns, writes):
                self.problem(node, f"{name}: an in-place operator returns the argument it writes, or ()")
            elif len(schema.returns) > 1:
                # Its one result goes to the runtime's one result value, as in ExecuTorch's codegen.
                self.problem(node, f"{name}: an in-place operator returns at most one Tensor")
        elif len(schema.returns) > 1:
            self.problem(node, f"{name}: an operator without out arguments returns at most one Tensor")


def _returns_alias(returns, written) -> bool:
    """The returns are the written arguments, in order, by alias annotation."""
    if len(returns) != len(written):
        return False
    for ret, arg in zip(returns, written):
        if ret.annotation is None or arg.annotation is None:
            return False
        if ret.annotation.alias_sets != arg.annotation.alias_sets or not ret.annotation.is_write:
            return False
    return True


def parse_kernel_yaml(text: str, path: str, aten: AtenSchemas) -> KernelYaml:
    """Parse and validate a kernel yaml file's text; raise UserError with every problem."""
    return KernelYaml(path, _KernelYamlReader(path, aten).read_text(text))
