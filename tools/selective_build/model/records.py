"""Immutable value types, cheap to define and to import.

``@record`` turns a class whose body lists annotated fields (with optional
defaults) into an immutable value type: a named tuple underneath, with the
class's own methods and properties on top. Instances compare equal only to
instances of the same class with equal fields, hash accordingly, print as
``Name(field=value, ...)``, refuse attribute assignment, and give a changed
copy through ``replace(**changes)``.

Why not ``dataclasses``: etsb's tools run as build actions, many per build,
and a run's own work is a few milliseconds. Importing ``dataclasses`` pulls in
``inspect`` (and ``ast``, ``dis``, ``enum``, ``tokenize``): about 20 ms in a
fresh process, and each frozen dataclass takes about 1 ms more to define
(exec of its generated methods), which made the data model alone cost more
than the work (``bench/results/bench_yaml.md``). A record costs a tenth of that.

Records hold only immutable values (tuples, strings, numbers, other records,
read-only mappings), so a default is shared safely between instances.
"""

from __future__ import annotations

from collections import namedtuple

# Attributes of the decorated class that the new class must not copy.
_NOT_COPIED = frozenset({"__dict__", "__weakref__", "__annotations__"})


def record(cls: type) -> type:
    """The immutable value type described by ``cls`` (see the module docstring)."""
    fields = tuple(cls.__dict__.get("__annotations__", {}))
    defaults = [cls.__dict__[name] for name in fields if name in cls.__dict__]
    if any(name in cls.__dict__ for name in fields[:len(fields) - len(defaults)]):
        raise TypeError(f"{cls.__name__}: fields with defaults must come last")
    base = namedtuple(cls.__name__, fields, defaults=defaults, module=cls.__module__)
    namespace = {key: value for key, value in cls.__dict__.items()
                 if key not in _NOT_COPIED and key not in fields}
    namespace["__slots__"] = ()
    namespace.setdefault("__eq__", _eq)
    namespace.setdefault("__ne__", _ne)
    namespace.setdefault("__hash__", _hash)
    namespace["replace"] = base._replace
    made = type(cls.__name__, (base,), namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _eq(self, other) -> bool:
    return type(other) is type(self) and tuple.__eq__(self, other)


def _ne(self, other) -> bool:
    return not (type(other) is type(self) and tuple.__eq__(self, other))


def _hash(self) -> int:
    return tuple.__hash__(self)
