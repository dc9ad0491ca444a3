"""The kernels of a kernel yaml entry (:mod:`selective_build.readers.kernel_yaml`):
its ``type_alias`` and ``dim_order_alias`` mappings, and each kernel's
``kernel_name`` and ``arg_meta``, checked against the entry's schema and
aliases. Problems are collected by the reader, located at their node."""

from __future__ import annotations

from selective_build.model.dtypes import SCALAR_TYPES
from selective_build.model.errors import Location, did_you_mean
from selective_build.model.kernels import ArgMeta, Kernel
from selective_build.model.schema import FunctionSchema, is_single_tensor, is_tensor
from selective_build.readers.node_reader import NodeReader
from selective_build.readers.yaml_nodes import SCALAR, SEQUENCE, int_of, is_null

KERNEL_KEYS = ("arg_meta", "kernel_name")
_KERNEL_KEYS = frozenset(KERNEL_KEYS)
_CPP_KEYWORDS = frozenset(
    "alignas alignof and asm auto bool break case catch char class const constexpr continue "
    "decltype default delete do double else enum explicit export extern false float for friend "
    "goto if inline int long mutable namespace new noexcept not nullptr operator or private "
    "protected public register return short signed sizeof static struct switch template this "
    "throw true try typedef typeid typename union unsigned using virtual void volatile while".split())


def _is_cpp_qualified_name(name: str) -> bool:
    """An optionally global (leading ::) C++ qualified name of ASCII identifiers."""
    return all(part.isidentifier() and part.isascii() for part in name.removeprefix("::").split("::"))


class KernelsReader(NodeReader):
    """Reads an entry's aliases and kernels (the entry reader builds on it)."""

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
        if not _is_cpp_qualified_name(name) or not _CPP_KEYWORDS.isdisjoint(parts):
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
