"""Selection sources: root operator lists, ops dicts, models, kernel yamls and
"everything". Each turns its input into a :class:`~selective_build.selection.Selection`;
:func:`selective_build.selection.union` combines any number of them.

The text parsers here (``--root_ops``, ``--ops_dict``) raise UserError located
at the flag, or at the line and column in a JSON file given as ``@path``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from selective_build.errors import Location, UserError
from selective_build.selection import DEFAULT_KEY
from selective_build.pte import Program
from selective_build.selection import SelectedOperator, Selection, make_selection, names_an_overload
from selective_build.dtypes import SCALAR_TYPE_NAMES

ROOT_OPS_SOURCE = "--root_ops"
OPS_DICT_SOURCE = "--ops_dict"


def normalize_operator_name(text: str, origin: Location) -> str:
    """``add.out`` -> ``aten::add.out``; a malformed name is a UserError at ``origin``."""
    from selective_build.schema import SchemaSyntaxError, parse_operator_name

    try:
        return str(parse_operator_name(text.strip()))
    except SchemaSyntaxError as error:
        raise UserError(f"'{text.strip()}' is not an operator name ({error.message}); expected "
                        f"namespace::name.overload, e.g. aten::add.out", origin) from None


# -- root operators -------------------------------------------------------------


def parse_root_ops(text: str, origin: Location = Location(ROOT_OPS_SOURCE)) -> tuple[str, ...]:
    """Operator names separated by commas or white space, normalised and sorted."""
    separator = "," if "," in text else None
    names = [name for name in (part.strip() for part in text.split(separator)) if name]
    return tuple(sorted({normalize_operator_name(name, origin) for name in names}))


def from_root_ops(names: Sequence[str], include_all_overloads: bool = False,
                  source: str = ROOT_OPS_SOURCE) -> Selection:
    """Select ``names``, with any key. With ``include_all_overloads``, a name
    without overload (``aten::add``) stands for all of its overloads."""
    return make_selection(
        (SelectedOperator(name, include_all_overloads=include_all_overloads and not names_an_overload(name),
                          debug_info=(source,)) for name in names),
        {name: (DEFAULT_KEY,) for name in names},
    )


# -- ops dict -------------------------------------------------------------------


def parse_ops_dict(text: str, origin: Location = Location(OPS_DICT_SOURCE)) -> Mapping[str, tuple[str, ...]]:
    """A JSON object: operator name -> list of dtype names (``Float``) or kernel
    keys (``v1/6;0,1|6;0,1|6;0,1``); an empty list means every key. Returns
    normalised names -> kernel keys (``default`` for an empty list)."""
    import json

    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        where = Location(origin.path, error.lineno, error.colno) if origin.path != OPS_DICT_SOURCE \
            else Location(origin.path)
        position = "" if where.line else f" at line {error.lineno} column {error.colno}"
        raise UserError(f"invalid JSON{position}: {error.msg}", where) from None
    if not isinstance(data, dict):
        raise UserError(f"expected a JSON object of operator -> list of dtypes, got {_json_kind(data)}", origin)
    result: dict[str, set[str]] = {}
    for name, entries in data.items():
        operator = normalize_operator_name(name, origin)
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise UserError(f"'{name}': expected a list of dtype names or kernel keys, got {_json_kind(entries)}"
                            if not isinstance(entries, list) else
                            f"'{name}': every dtype must be a string such as \"Float\"", origin)
        keys = result.setdefault(operator, set())
        if not entries:
            keys.add(DEFAULT_KEY)
        for entry in entries:
            keys.add(_key_from_dict_entry(entry.strip(), name, origin))
    return {name: tuple(sorted(keys)) for name, keys in sorted(result.items())}


def _key_from_dict_entry(entry: str, operator: str, origin: Location) -> str:
    from selective_build.kernel_keys import VERSION_PREFIX, dtype_only_key, parse_kernel_key

    try:
        if entry == DEFAULT_KEY:
            return entry
        if entry.startswith(VERSION_PREFIX) or entry[:1].isdigit() or entry.startswith("v"):
            return parse_kernel_key(entry).text
        return dtype_only_key(entry)
    except ValueError as error:
        raise UserError(f"'{operator}': {error}", origin) from None


def _json_kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def from_ops_dict(entries: Mapping[str, Sequence[str]], source: str = OPS_DICT_SOURCE) -> Selection:
    """Select the dict's operators with its keys."""
    return make_selection((SelectedOperator(name, debug_info=(source,)) for name in entries), entries)


# -- models ---------------------------------------------------------------------


def from_program(program: Program) -> Selection:
    """Every operator a program's methods call a kernel for, with the exact keys
    the runtime looks up, and the dtypes passed to them as ScalarType values."""
    keys: dict[str, set[str]] = {}
    dtypes: dict[str, set[str]] = {}
    for method in program.methods:
        for call in method.kernel_calls:
            if call.operator in method.operators:
                keys.setdefault(call.operator, set()).add(call.key)
                if call.scalar_type_arguments:
                    dtypes.setdefault(call.operator, set()).update(
                        SCALAR_TYPE_NAMES[d] for d in call.scalar_type_arguments)
    return make_selection((SelectedOperator(name, debug_info=(program.path,)) for name in keys), keys, dtypes)


def scalar_type_positions(aten, custom: Mapping[str, object] = MappingProxyType({})):
    """A lookup for :func:`selective_build.pte.read_program`: operator name ->
    positions of its ScalarType arguments, from the custom operators' schemas
    (name -> FunctionSchema) or else ATen's (an AtenSchemas); None if unknown.
    ATen schemas are parsed only when their text mentions a ScalarType."""
    cache: dict[str, tuple[int, ...] | None] = {}

    def positions(operator: str):
        if operator not in cache:
            cache[operator] = _scalar_type_positions(operator, aten, custom)
        return cache[operator]

    return positions


def _scalar_type_positions(operator: str, aten, custom: Mapping[str, object]):
    schema = custom.get(operator)
    if schema is None:
        namespace, _, name = operator.partition("::")
        text = aten.texts.get(name) if namespace == "aten" else None
        if text is None:
            return None
        if "ScalarType" not in text:
            return ()
        schema = aten.lookup(name)
    from selective_build.schema import base_of

    return tuple(i for i, argument in enumerate(schema.arguments) if base_of(argument.type).name == "ScalarType")


# -- kernel yamls and everything -----------------------------------------------------


def from_kernel_yaml(kernel_yaml) -> Selection:
    """Every operator of a kernel yaml, with any key (``--ops_schema_yaml_path``)."""
    names = [str(entry.name) for entry in kernel_yaml.entries]
    return make_selection((SelectedOperator(name, debug_info=(kernel_yaml.path,)) for name in names),
                          {name: (DEFAULT_KEY,) for name in names})


def everything() -> Selection:
    """``include_all_operators``: a build that is not selective."""
    return make_selection(include_all_operators=True)
