"""Resolution: which C++ kernel serves each selected operator and kernel key,
and the build-time proof that every need is served.

A specialised kernel (``arg_meta`` given) serves the keys its aliases expand to:
one entry per tensor argument named in ``arg_meta``, in the schema's argument
order, then the returned ``out`` again when the operator returns a single
tensor (the key the runtime builds; see NOTES "Kernel keys"). Arguments that
share an alias share its value; distinct aliases vary independently. The
default kernel (``arg_meta: null``) is registered without a key: the runtime
falls back to it for any key no specialised kernel claims.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from selective_build.dtypes import SCALAR_TYPES
from selective_build.errors import Problem, UserError
from selective_build.kernel_keys import DEFAULT_KEY, VERSION_PREFIX, parse_kernel_key
from selective_build.kernel_yaml import Kernel, KernelYaml, OperatorEntry
from selective_build.schema import BaseType, is_single_tensor
from selective_build.selection import Selection, names_an_overload


@dataclass(frozen=True)
class Registration:
    """One row of the kernel table: ``kernel`` registered for ``operator`` under
    ``key`` (None: the fallback for every key)."""

    operator: str
    key: str | None
    kernel: Kernel


@dataclass(frozen=True)
class ResolvedOperator:
    """A selected operator, its entry, and its kernel table rows (fallback last)."""

    entry: OperatorEntry
    registrations: tuple[Registration, ...]

    @property
    def kernels(self) -> tuple[Kernel, ...]:
        """The distinct kernels registered, in first-registration order."""
        seen: dict[str, Kernel] = {}
        for registration in self.registrations:
            seen.setdefault(registration.kernel.kernel_name, registration.kernel)
        return tuple(seen.values())


@dataclass(frozen=True)
class Resolution:
    """Every selected operator with its kernels, sorted by operator name."""

    operators: tuple[ResolvedOperator, ...]

    @property
    def registrations(self) -> tuple[Registration, ...]:
        """Every kernel table row."""
        return tuple(r for op in self.operators for r in op.registrations)


def kernel_keys_of(entry: OperatorEntry, kernel: Kernel) -> tuple[str, ...]:
    """The runtime keys a specialised kernel serves (sorted); ``()`` for the default kernel."""
    if kernel.arg_meta is None:
        return ()
    meta = {m.argument: m for m in kernel.arg_meta}
    ordered = [meta[a.name] for a in entry.schema.arguments if a.name in meta and is_single_tensor(a.type)]
    returns = entry.schema.returns
    if len(returns) == 1 and isinstance(returns[0].type, BaseType) and returns[0].type.name == "Tensor":
        written = [a for a in entry.schema.out_arguments if a.name in meta]
        if len(written) == 1:
            ordered.append(meta[written[0].name])
    dtypes = dict(entry.type_alias)
    orders = dict(entry.dim_order_alias)
    type_names = sorted({m.type_alias for m in ordered})
    order_names = sorted({m.dim_order_alias for m in ordered})
    keys = set()
    for type_choice in itertools.product(*(dtypes[name] for name in type_names)):
        bound_types = dict(zip(type_names, type_choice))
        for order_choice in itertools.product(*(orders[name] for name in order_names)):
            bound_orders = dict(zip(order_names, order_choice))
            keys.add(VERSION_PREFIX + "|".join(
                f"{SCALAR_TYPES[bound_types[m.type_alias]]};{','.join(map(str, bound_orders[m.dim_order_alias]))}"
                for m in ordered))
    return tuple(sorted(keys))


def _dtype_only_matches(key: str, dtype: int) -> bool:
    return all(t.dtype == dtype for t in parse_kernel_key(key).tensors)


def _selected_entries(entries: Mapping[str, OperatorEntry], selection: Selection):
    """(operator name, entry or None, keys needed) for every selected operator."""
    if selection.include_all_operators:
        for name, entry in entries.items():
            yield name, entry, (DEFAULT_KEY,)
        return
    for name, selected in selection.operators.items():
        keys = selection.keys_for(name)
        if selected.include_all_overloads and not names_an_overload(name):
            prefix = name + "."
            matches = [n for n in entries if n.startswith(prefix) or n == name]
            if not matches:
                yield name, None, keys
            for match in matches:
                yield match, entries[match], (DEFAULT_KEY,)
            continue
        yield name, entries.get(name), keys


def resolve(kernel_yamls: Sequence[KernelYaml], selection: Selection) -> Resolution:
    """The kernels serving ``selection`` from the (merged) kernel yamls. Raise one
    UserError listing every gap (a selected operator or key that no kernel
    serves) and every key claimed by two kernels."""
    entries: dict[str, OperatorEntry] = {}
    for parsed in kernel_yamls:
        for entry in parsed.entries:
            entries.setdefault(str(entry.name), entry)
    problems: list[Problem] = []
    resolved: dict[str, ResolvedOperator] = {}
    for name, entry, needed in _selected_entries(entries, selection):
        sources = ", ".join(selection.sources_of(name)) or "the selection"
        if entry is None:
            problems.append(Problem(f"{name}: no kernel yaml entry for this operator (needed by {sources})"))
            continue
        result = _resolve_entry(entry, needed, sources, problems)
        if result is not None and name not in resolved:
            resolved[name] = result
    if problems:
        raise UserError.of(_dedupe(problems))
    return Resolution(tuple(resolved[name] for name in sorted(resolved)))


def _dedupe(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))


def _resolve_entry(entry: OperatorEntry, needed: Sequence[str], sources: str,
                   problems: list[Problem]) -> ResolvedOperator | None:
    name = str(entry.name)
    claims: dict[str, Kernel] = {}
    for kernel in entry.kernels:
        for key in kernel_keys_of(entry, kernel):
            other = claims.get(key)
            if other is not None and other.kernel_name != kernel.kernel_name:
                problems.append(Problem(
                    f"{name}: kernels {other.kernel_name} and {kernel.kernel_name} both claim key {key} "
                    f"({parse_kernel_key(key).describe()})", kernel.location))
            claims.setdefault(key, kernel)
    default = entry.default_kernel
    rows: dict[tuple[str | None, str], Registration] = {}

    def add(key: str | None, kernel: Kernel) -> None:
        rows.setdefault((key, kernel.kernel_name), Registration(name, key, kernel))

    for key in needed:
        if key == DEFAULT_KEY:
            for claimed, kernel in claims.items():
                add(claimed, kernel)
            if default is not None:
                add(None, default)
            elif not claims:
                problems.append(Problem(f"{name}: no kernel in {entry.location.path} (needed by {sources})"))
            continue
        tensors = parse_kernel_key(key).tensors
        if len(tensors) == 1 and not tensors[0].dim_order and key.endswith(";"):  # dtype only, from an ops dict
            matching = [(k, kernel) for k, kernel in claims.items() if _dtype_only_matches(k, tensors[0].dtype)]
            for claimed, kernel in matching:
                add(claimed, kernel)
            if default is not None:
                add(None, default)
            elif not matching:
                problems.append(Problem(f"{name}: no kernel serves dtype {tensors[0].describe().split()[0]} "
                                        f"(needed by {sources})"))
            continue
        if key in claims:
            add(key, claims[key])
        elif default is not None:
            add(None, default)
        else:
            problems.append(Problem(f"{name}: no kernel for key {key} ({parse_kernel_key(key).describe()}); "
                                    f"needed by {sources}; add a kernel with arg_meta: null or one for these "
                                    f"dtypes and dim orders to {entry.location.path}", entry.location))
    ordered = sorted(rows.values(), key=lambda r: (r.key is None, r.key or "", r.kernel.kernel_name))
    return ResolvedOperator(entry, tuple(ordered)) if ordered else None
