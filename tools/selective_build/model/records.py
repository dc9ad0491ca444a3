"""Immutable value types, cheap to define and to import.

``@record`` turns a class whose body lists annotated fields (with optional
defaults) into an immutable value type: a tuple underneath, as a named
tuple is, with the class's own methods and properties on top. Instances compare equal only to
instances of the same class with equal fields, hash accordingly, print as
``Name(field=value, ...)``, refuse attribute assignment, and give a changed
copy through ``replace(**changes)``.

Why not ``dataclasses``: etsb's tools run as build actions, many per build,
and a run's own work is a few milliseconds. Importing ``dataclasses`` pulls in
``inspect`` (and ``ast``, ``dis``, ``enum``, ``tokenize``): about 20 ms in a
fresh process, and each frozen dataclass takes about 1 ms more to define
(exec of its generated methods), which made the data model alone cost more
than the work (``bench/results/bench_yaml.md``). ``collections.namedtuple``
costs less, but still compiles a constructor per type (about 0.4 M
instructions each, and a command's modules define dozens it never makes):
a record compiles its constructor when the first value is made.

Records hold only immutable values (tuples, strings, numbers, other records,
read-only mappings), so a default is shared safely between instances.
"""

from __future__ import annotations

try:
    from _collections import _tuplegetter  # what namedtuple's fields use: a getter written in C
except ImportError:  # another Python implementation
    from operator import itemgetter as _itemgetter

    def _tuplegetter(index, doc):
        return property(_itemgetter(index), doc=doc)

# Attributes of the decorated class that the new class must not copy.
_NOT_COPIED = frozenset({"__dict__", "__weakref__", "__annotations__"})


def record(cls: type) -> type:
    """The immutable value type described by ``cls`` (see the module docstring)."""
    fields = tuple(cls.__dict__.get("__annotations__", {}))
    defaults = tuple(cls.__dict__[name] for name in fields if name in cls.__dict__)
    if any(name in cls.__dict__ for name in fields[:len(fields) - len(defaults)]):
        raise TypeError(f"{cls.__name__}: fields with defaults must come last")
    if any(name.startswith("_") for name in fields):
        raise TypeError(f"{cls.__name__}: field names may not start with '_'")
    namespace = {key: value for key, value in cls.__dict__.items()
                 if key not in _NOT_COPIED and key not in fields}
    namespace.update({name: _tuplegetter(index, f"Field {index}: {name}") for index, name in enumerate(fields)})
    namespace["__slots__"] = ()
    namespace["_fields"] = fields
    namespace.setdefault("__eq__", _eq)
    namespace.setdefault("__ne__", _ne)
    namespace.setdefault("__hash__", _hash)
    namespace.setdefault("__repr__", _repr)
    namespace["__getnewargs__"] = _getnewargs
    namespace["replace"] = _replace

    def first_new(kind, *args, **kwargs):
        # The constructor is compiled when the type is first used, not when it
        # is defined: most records of a command's modules are never made.
        new = _compiled_new(cls.__name__, fields, defaults)
        made.__new__ = staticmethod(new)
        return new(kind, *args, **kwargs)

    namespace["__new__"] = first_new
    made = type(cls.__name__, (tuple,), namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _compiled_new(name: str, fields: tuple[str, ...], defaults: tuple) -> object:
    """``__new__(cls, field, ..., field=default)``: positional and keyword
    arguments, the defaults filled in, checked as any call's."""
    required = len(fields) - len(defaults)
    parameters = ", ".join(field if index < required else f"{field}=_defaults[{index - required}]"
                           for index, field in enumerate(fields))
    namespace = {"_tuple_new": tuple.__new__, "_defaults": defaults}
    exec(f"def __new__(_cls, {parameters}):\n    return _tuple_new(_cls, ({', '.join(fields)}{',' if fields else ''}))\n",
         namespace)
    new = namespace["__new__"]
    new.__qualname__ = f"{name}.__new__"
    return new


def _eq(self, other) -> bool:
    return type(other) is type(self) and tuple.__eq__(self, other)


def _ne(self, other) -> bool:
    return not (type(other) is type(self) and tuple.__eq__(self, other))


def _hash(self) -> int:
    return tuple.__hash__(self)


def _repr(self) -> str:
    return f"{type(self).__name__}({', '.join(f'{name}={value!r}' for name, value in zip(self._fields, self))})"


def _getnewargs(self) -> tuple:
    return tuple(self)


def _replace(self, **changes):
    """A copy with ``changes`` (field name to value) made."""
    values = tuple(map(changes.pop, self._fields, self))
    if changes:
        raise ValueError(f"{type(self).__name__} has no field {', '.join(sorted(changes))}")
    return tuple.__new__(type(self), values)
