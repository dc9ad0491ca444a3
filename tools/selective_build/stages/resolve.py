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
from collections.abc import Callable, Iterable, Mapping, Sequence

from selective_build.model.dtypes import SCALAR_TYPES
from selective_build.model.errors import Problem, UserError
from selective_build.model.keys import ANY_KEY, KernelKey, TensorMeta, exact_key
from selective_build.model.kernels import Kernel, KernelYaml, OperatorEntry
from selective_build.model.names import OperatorName
from selective_build.model.program import is_prim_operator
from selective_build.model.resolution import Registration, Resolution, ResolvedOperator
from selective_build.model.schema import is_single_tensor, is_tensor
from selective_build.model.selection import Selection


def kernel_keys_of(entry: OperatorEntry, kernel: Kernel) -> tuple[KernelKey, ...]:
    """The runtime keys a specialised kernel serves (sorted); ``()`` for the default kernel."""
    if kernel.arg_meta is None:
        return ()
    meta = {m.argument: m for m in kernel.arg_meta}
    ordered = [meta[a.name] for a in entry.schema.arguments if a.name in meta and is_single_tensor(a.type)]
    returns = entry.schema.returns
    if len(returns) == 1 and is_tensor(returns[0].type):
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
            keys.add(exact_key(TensorMeta(SCALAR_TYPES[bound_types[m.type_alias]], bound_orders[m.dim_order_alias])
                               for m in ordered))
    return tuple(sorted(keys))


def _selected_entries(entries: Mapping[OperatorName, OperatorEntry], selection: Selection
                      ) -> Iterable[tuple[OperatorName, OperatorEntry | None, tuple[KernelKey, ...]]]:
    """(operator name, entry or None, keys needed) for every selected operator."""
    if selection.include_all_operators:
        for name, entry in entries.items():
            yield name, entry, (ANY_KEY,)
        return
    for name, selected in selection.operators.items():
        if is_prim_operator(name):
            continue  # ExecuTorch's prim-op registry serves it, not a kernel library
        keys = selection.keys_for(name)
        if selected.include_all_overloads and not name.has_overload:
            matches = [n for n in entries if name.covers(n)]
            if not matches:
                yield name, None, keys
            for match in matches:
                yield match, entries[match], (ANY_KEY,)
            continue
        yield name, entries.get(name), keys


def resolve(kernel_yamls: Sequence[KernelYaml], selection: Selection, strict: bool = True,
            hint: Callable[[OperatorName], str] | None = None) -> Resolution:
    """The kernels serving ``selection`` from the (merged) kernel yamls. Raise one
    UserError listing every gap (a selected operator or key that no kernel
    serves) and every key claimed by two kernels; with ``strict`` False, the
    part that resolves (the gaps are for another step to report). ``hint``
    says where an operator that no yaml has could come from (appended to its
    problem; see :func:`selective_build.stages.coverage.missing_kernel_hint`)."""
    entries: dict[OperatorName, OperatorEntry] = {}
    for parsed in kernel_yamls:
        for entry in parsed.entries:
            entries.setdefault(entry.name, entry)
    yamls = ", ".join(parsed.path for parsed in kernel_yamls)
    problems: list[Problem] = []
    resolved: dict[OperatorName, ResolvedOperator] = {}
    for name, entry, needed in _selected_entries(entries, selection):
        sources = ", ".join(selection.sources_of(name)) or "the selection"
        if entry is None:
            where = f"; {hint(name)}" if hint is not None else ""
            problems.append(Problem(f"{name}: no kernel yaml entry for this operator (needed by {sources}; "
                                    f"not in {yamls}){where}"))
            continue
        result = _resolve_entry(entry, needed, sources, problems)
        if result is not None and name not in resolved:
            resolved[name] = result
    if problems and strict:
        raise UserError.of(_dedupe(problems))
    return Resolution(tuple(resolved[name] for name in sorted(resolved)))


def _dedupe(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))


def _resolve_entry(entry: OperatorEntry, needed: Sequence[KernelKey], sources: str,
                   problems: list[Problem]) -> ResolvedOperator | None:
    name = entry.name
    claims: dict[KernelKey, Kernel] = {}
    for kernel in entry.kernels:
        for key in kernel_keys_of(entry, kernel):
            other = claims.get(key)
            if other is not None and other.kernel_name != kernel.kernel_name:
                problems.append(Problem(
                    f"{name}: kernels {other.kernel_name} and {kernel.kernel_name} both claim key {key} "
                    f"({key.describe()})", kernel.location))
            claims.setdefault(key, kernel)
    default = entry.default_kernel
    rows: dict[tuple[KernelKey | None, str], Registration] = {}

    def add(key: KernelKey | None, kernel: Kernel) -> None:
        rows.setdefault((key, kernel.kernel_name), Registration(name, key, kernel))

    for key in needed:
        if key.is_any:
            for claimed, kernel in claims.items():
                add(claimed, kernel)
            if default is not None:
                add(None, default)
            elif not claims:
                problems.append(Problem(f"{name}: no kernel in {entry.location.path} (needed by {sources})"))
            continue
        dtype = key.dtype_only
        if dtype is not None:  # from an ops dict's dtype name
            matching = [(k, kernel) for k, kernel in claims.items() if all(d == dtype for d in k.dtypes)]
            for claimed, kernel in matching:
                add(claimed, kernel)
            if default is not None:
                add(None, default)
            elif not matching:
                problems.append(Problem(f"{name}: no kernel serves dtype {key.tensors[0].dtype_name} "
                                        f"(needed by {sources})"))
            continue
        if key in claims:
            add(key, claims[key])
        elif default is not None:
            add(None, default)
        else:
            problems.append(Problem(f"{name}: no kernel for key {key} ({key.describe()}); "
                                    f"needed by {sources}; add a kernel with arg_meta: null or one for these "
                                    f"dtypes and dim orders to {entry.location.path}", entry.location))
    ordered = sorted(rows.values(), key=lambda r: (r.key is None, r.key.text if r.key else "", r.kernel.kernel_name))
    return ResolvedOperator(entry, tuple(ordered)) if ordered else None
