"""Operator lists given as text: ``--root_ops`` (names separated by commas or
spaces) and ``--ops_dict`` (a JSON object of operator -> dtype names or kernel
keys). Problems are UserErrors located at the flag, or at the line and column
of a JSON file given as ``@path``."""

from __future__ import annotations

from collections.abc import Mapping

from selective_build.model.errors import CommandLine, Location, UserError
from selective_build.model.keys import ANY_KEY, KernelKey, dtype_key_named, looks_like_key, parse_kernel_key
from selective_build.model.names import OperatorName, SchemaSyntaxError, parse_operator_name
from selective_build.model.selection import OPS_DICT_SOURCE, ROOT_OPS_SOURCE


def read_operator_name(text: str, origin: Location | CommandLine) -> OperatorName:
    """``add.out`` -> ``aten::add.out``; a malformed name is a UserError at ``origin``."""
    try:
        return parse_operator_name(text.strip())
    except SchemaSyntaxError as error:
        raise UserError(f"'{text.strip()}' is not an operator name ({error.message}); expected "
                        f"namespace::name.overload, e.g. aten::add.out", origin) from None


def parse_root_ops(text: str, origin: Location | CommandLine = CommandLine(ROOT_OPS_SOURCE)
                   ) -> tuple[OperatorName, ...]:
    """Operator names separated by commas or white space, normalised and sorted."""
    separator = "," if "," in text else None
    names = [name for name in (part.strip() for part in text.split(separator)) if name]
    return tuple(sorted({read_operator_name(name, origin) for name in names}))


def parse_ops_dict(text: str, origin: Location | CommandLine = CommandLine(OPS_DICT_SOURCE)
                   ) -> Mapping[OperatorName, tuple[KernelKey, ...]]:
    """A JSON object: operator name -> list of dtype names (``Float``) or kernel
    keys (``v1/6;0,1|6;0,1|6;0,1``); an empty list means every key. Returns
    names -> kernel keys (the any key for an empty list), sorted."""
    import json

    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        in_file = isinstance(origin, Location)
        where = Location(origin.path, error.lineno, error.colno) if in_file else origin
        position = "" if in_file else f" at line {error.lineno} column {error.colno}"
        raise UserError(f"invalid JSON{position}: {error.msg}", where) from None
    if not isinstance(data, dict):
        raise UserError(f"expected a JSON object of operator -> list of dtypes, got {_json_kind(data)}", origin)
    result: dict[OperatorName, set[KernelKey]] = {}
    for name, entries in data.items():
        operator = read_operator_name(name, origin)
        if not isinstance(entries, list):
            raise UserError(f"'{name}': expected a list of dtype names or kernel keys, got {_json_kind(entries)}",
                            origin)
        if not all(isinstance(e, str) for e in entries):
            raise UserError(f"'{name}': every dtype must be a string such as \"Float\"", origin)
        keys = result.setdefault(operator, set())
        if not entries:
            keys.add(ANY_KEY)
        for entry in entries:
            keys.add(_key_of_entry(entry.strip(), name, origin))
    return {name: tuple(sorted(keys)) for name, keys in sorted(result.items())}


def _key_of_entry(entry: str, operator: str, origin: Location | CommandLine) -> KernelKey:
    try:
        return parse_kernel_key(entry) if entry == ANY_KEY.text or looks_like_key(entry) else dtype_key_named(entry)
    except ValueError as error:
        raise UserError(f"'{operator}': {error}", origin) from None


def _json_kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")
