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

import re

from selective_build.model.dtypes import SCALAR_TYPES
from selective_build.model.errors import Location, did_you_mean
from selective_build.model.evalue_types import unsupported_reason
from selective_build.model.kernels import FUNC, OP, ArgMeta, FrozenMapping, Kernel, KernelYaml, OperatorEntry
from selective_build.model.names import OperatorName, SchemaSyntaxError, parse_operator_name
from selective_build.model.schema import FunctionSchema, base_of, is_single_tensor, is_tensor, parse_schema
from selective_build.readers.aten_schemas import AtenSchemas
from selective_build.readers.node_reader import NodeReader
from selective_build.readers.yaml_nodes import SCALAR, SEQUENCE, end_line, int_of, is_null

# Keys of an operator entry, and the native_functions.yaml keys ExecuTorch's
# files carry that etsb keeps but does not act on.
ENTRY_KEYS = ("op", "func", "kernels", "type_alias", "dim_order_alias")
PASSTHROUGH_KEYS = ("variants", "tags", "dispatch", "cpp_no_default_args")
KERNEL_KEYS = ("arg_meta", "kernel_name")
_ENTRY_KEYS = frozenset(ENTRY_KEYS)
_ENTRY_OR_PASSTHROUGH_KEYS = frozenset(ENTRY_KEYS + PASSTHROUGH_KEYS)
_KERNEL_KEYS = frozenset(KERNEL_KEYS)
VARIANTS = frozenset({"function", "method"})
# How deep a carried-through value (`tags`, `dispatch`...) may nest.
MAX_PASSTHROUGH_DEPTH = 32

_CPP_KEYWORDS = frozenset(
    "alignas alignof and asm auto bool break case catch char class const constexpr continue "
    "decltype default delete do double else enum explicit export extern false float for friend "
    "goto if inline int long mutable namespace new noexcept not nullptr operator or private "
    "protected public register return short signed sizeof static struct switch template this "
    "throw true try typedef typeid typename union unsigned using virtual void volatile while".split())
# An optionally global (leading ::) C++ qualified name of ASCII identifiers.
_CPP_QUALIFIED_NAME = re.compile(r"(?:::)?[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*")


# ----------------------------------------------------------------------------
# Reading a kernel yaml
# ----------------------------------------------------------------------------


class _KernelYamlReader(NodeReader):
    """Reads the operator entries of one kernel yaml file."""

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
            self.problem(node, f"{name}: an operator without out arguments returns at most one Tensor")

    # -- aliases --------------------------------------------------------------

    def aliases(self, node, section: str, what: str, example: str, read_values) -> tuple:
        """A ``type_alias`` or ``dim_order_alias`` mapping: name -> non-empty list,
        whose items ``read_values(name, list node)`` turns into a tuple (or None)."""
        if node is None:
            return ()
        result = []
        for key, value in self.mapping(node, section) or ():
            if not key.value.isidentifier():
                self.problem(key, f"{what} name '{key.value}' is not an identifier")
            elif value.id != SEQUENCE or not value.value:
                self.problem(value, f"{what} {key.value} must be a non-empty list of {example}, "
                                    f"not {self.describe(value)}")
            else:
                values = read_values(key.value, value)
                if values is not None:
                    result.append((key.value, values))
        return tuple(result)

    def type_alias(self, node) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return self.aliases(node, "type_alias", "type alias", "dtypes such as [Float, Double]", self.dtypes)

    def dtypes(self, alias: str, node) -> tuple[str, ...]:
        dtypes: list[str] = []
        for item in node.value:
            if item.id != SCALAR or item.value not in SCALAR_TYPES:
                word = item.value if item.id == SCALAR else self.describe(item)
                self.problem(item, f"unknown dtype '{word}' in type alias {alias}"
                                   f"{did_you_mean(str(word), SCALAR_TYPES)}; dtypes are ScalarType "
                                   "names: Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16, ...")
            elif item.value in dtypes:
                self.problem(item, f"dtype {item.value} appears twice in type alias {alias}")
            else:
                dtypes.append(item.value)
        return tuple(dtypes)

    def dim_order_alias(self, node) -> tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]:
        return self.aliases(node, "dim_order_alias", "dim order alias", "dim orders such as [[0, 1, 2, 3]]",
                            self.dim_orders)

    def dim_orders(self, alias: str, node) -> tuple[tuple[int, ...], ...] | None:
        if all(item.id == SCALAR for item in node.value):
            flat = ", ".join(item.value for item in node.value)
            self.problem(node, f"dim order alias {alias} is a list of dim orders: write [[{flat}]], not [{flat}]")
            return None
        orders = []
        for item in node.value:
            order = self.dim_order(item, alias)
            if order is not None:
                orders.append(order)
        return tuple(orders)

    def dim_order(self, node, alias: str) -> tuple[int, ...] | None:
        if node.id != SEQUENCE:
            self.problem(node, f"a dim order of alias {alias} must be a list of integers, not {self.describe(node)}")
            return None
        order = tuple(int_of(item) for item in node.value)
        if None in order:
            item = node.value[order.index(None)]
            self.problem(item, f"a dim order of alias {alias} is a list of integers; {self.describe(item)} is not one")
            return None
        if sorted(order) != list(range(len(order))):
            self.problem(node, f"dim order {list(order)} of alias {alias} is not a permutation "
                               f"of 0..{len(order) - 1}")
            return None
        return order

    # -- kernels --------------------------------------------------------------

    def kernels(self, node, schema: FunctionSchema, type_alias: dict, dim_order_alias: dict) -> tuple[Kernel, ...]:
        if node.id != SEQUENCE or not node.value:
            self.problem(node, f"'kernels' of {schema.name} must be a non-empty list, not {self.describe(node)}")
            return ()
        kernels: list[Kernel] = []
        default_at: Location | None = None
        for item in node.value:
            kernel = self.kernel(item, schema, type_alias, dim_order_alias)
            if kernel is None:
                continue
            if kernel.is_default:
                if default_at is not None:
                    self.problem(kernel.location, f"{schema.name} has a second default kernel (arg_meta: null); "
                                                  f"the first is at line {default_at.line}")
                    continue
                default_at = kernel.location
            kernels.append(kernel)
        return tuple(kernels)

    def kernel(self, node, schema: FunctionSchema, type_alias: dict, dim_order_alias: dict) -> Kernel | None:
        fields = self.fields(node, "a kernel", _KERNEL_KEYS, " and ".join(KERNEL_KEYS))
        if fields is None:
            return None
        if "kernel_name" not in fields:
            if not self.has_unknown_key(node, _KERNEL_KEYS):  # else that key is the mistake
                self.problem(node, f"a kernel of {schema.name} has no 'kernel_name'")
            return None
        kernel_name = self.kernel_name(fields["kernel_name"])
        meta_node = fields.get("arg_meta")
        arg_meta = None
        if meta_node is not None and not is_null(meta_node):
            arg_meta = self.arg_meta(meta_node, schema, type_alias, dim_order_alias)
        if kernel_name is None:
            return None
        return Kernel(kernel_name, arg_meta, self.at(node))

    def kernel_name(self, node) -> str | None:
        name = self.string(node, "kernel_name")
        if name is None:
            return None
        parts = name.split("::")
        if not _CPP_QUALIFIED_NAME.fullmatch(name) or not _CPP_KEYWORDS.isdisjoint(parts):
            self.problem(node, f"kernel_name '{name}' is not a C++ qualified name such as torch::executor::add_out")
            return None
        if len(parts) > 1 and parts[-2] == "native":
            suggestion = "::".join(parts[:-2] + parts[-1:])
            self.problem(node, f"kernel_name '{name}' already names the 'native' namespace; etsb inserts "
                               f"native:: before the function itself, so write '{suggestion}'")
            return None
        return name

    def arg_meta(self, node, schema: FunctionSchema, type_alias: dict, dim_order_alias: dict) -> tuple[ArgMeta, ...]:
        pairs = self.mapping(node, "arg_meta")
        if pairs is None:
            return ()
        arguments = {arg.name: arg for arg in schema.arguments}
        metas = []
        for key, value in pairs:
            arg = arguments.get(key.value)
            if arg is None or not is_single_tensor(arg.type):
                self.arg_meta_argument_problem(key, arg, schema)
                continue
            items = value.value
            if value.id != SEQUENCE or len(items) != 2 or items[0].id != SCALAR or items[1].id != SCALAR:
                self.problem(value, f"arg_meta of '{key.value}' must be [type alias, dim order alias], "
                                    f"such as [T0, D0], not {self.describe(value)}")
                continue
            dtype_node, order_node = items
            if dtype_node.value in type_alias and order_node.value in dim_order_alias:
                metas.append(ArgMeta(key.value, dtype_node.value, order_node.value, self.at(key)))
                continue
            if dtype_node.value not in type_alias:
                self.problem(dtype_node, f"type alias '{dtype_node.value}' is not defined in type_alias"
                                         f"{did_you_mean(dtype_node.value, type_alias)}")
            if order_node.value not in dim_order_alias:
                self.problem(order_node, f"dim order alias '{order_node.value}' is not defined in dim_order_alias"
                                         f"{did_you_mean(order_node.value, dim_order_alias)}")
        if len(metas) == len(pairs):  # else what is wrong is already said
            described = {meta.argument for meta in metas}
            missing = [arg.name for arg in schema.arguments
                       if arg.name not in described and is_tensor(arg.type)]
            if missing:
                self.problem(node, f"arg_meta must describe every tensor argument of {schema.name}: "
                                   f"missing {', '.join(missing)}")
        return tuple(metas)

    def arg_meta_argument_problem(self, key, arg, schema: FunctionSchema) -> None:
        """arg_meta names something other than a single tensor argument."""
        names = ", ".join(a.name for a in schema.arguments if is_single_tensor(a.type))
        if arg is None:
            self.problem(key, f"arg_meta names '{key.value}', which is not an argument of "
                              f"{schema.name}{did_you_mean(key.value, [a.name for a in schema.arguments])}; "
                              f"its tensor arguments are {names}")
        else:
            self.problem(key, f"arg_meta names '{key.value}', a {arg.type} argument; arg_meta describes "
                              f"single tensor arguments only ({names})")


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
