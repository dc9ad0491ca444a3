"""The operator selection: which operators, and which kernel keys of each, a
binary needs. The model behind ``selected_operators.yaml``.

Selections come from several sources (see :mod:`selective_build.stages.sources`)
and combine with :func:`union`, which is associative, commutative and
idempotent, so the order in which inputs are given never changes the result.
"""

from __future__ import annotations

from types import MappingProxyType

from selective_build.model.dtypes import SCALAR_TYPES
from selective_build.model.keys import ANY_KEY, KernelKey
from selective_build.model.names import OperatorName
from selective_build.model.program import is_prim_operator
from selective_build.model.records import record

TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

_EMPTY: Mapping = MappingProxyType({})
# How debug_info names the command-line sources of a selection.
ROOT_OPS_SOURCE = "--root_ops"
OPS_DICT_SOURCE = "--ops_dict"


@record
class SelectedOperator:
    """One selected operator, with the fields of ExecuTorch's format.

    ``include_all_overloads`` on a name without overload (``aten::add``)
    selects every overload of it. ``debug_info`` names the sources that asked
    for the operator: model paths, ``--root_ops``, ``--ops_dict``, yaml paths."""

    name: OperatorName
    is_root_operator: bool = True
    is_used_for_training: bool = True
    include_all_overloads: bool = False
    debug_info: tuple[str, ...] = ()


@record
class Selection:
    """Everything a ``selected_operators.yaml`` says.

    ``et_kernel_metadata`` maps an operator to the kernel keys it is called
    with (:data:`~selective_build.model.keys.ANY_KEY` meaning any); an
    operator without an entry needs any key. ``kernel_metadata`` maps a kernel
    tag (etsb writes operator names) to the dtype names that reach its kernel
    through non-tensor arguments (``dtype=``), which no kernel key shows.
    ``backends`` maps each backend id that delegated programs need (see
    :mod:`selective_build.model.backends`) to the sources that need it.
    Mappings are sorted by key and their lists sorted."""

    operators: Mapping[OperatorName, SelectedOperator] = _EMPTY
    et_kernel_metadata: Mapping[OperatorName, tuple[KernelKey, ...]] = _EMPTY
    kernel_metadata: Mapping[str, tuple[str, ...]] = _EMPTY
    include_all_operators: bool = False
    include_all_non_op_selectives: bool = False
    custom_classes: tuple[str, ...] = ()
    build_features: tuple[str, ...] = ()
    debug_info: tuple[str, ...] = ()
    backends: Mapping[str, tuple[str, ...]] = _EMPTY

    def keys_for(self, operator: OperatorName) -> tuple[KernelKey, ...]:
        """The kernel keys ``operator`` needs; ``(ANY_KEY,)`` when any key may be looked up."""
        return self.et_kernel_metadata.get(operator, (ANY_KEY,))

    def sources_of(self, operator: OperatorName) -> tuple[str, ...]:
        """Who asked for ``operator`` (its ``debug_info``), or ``()``."""
        selected = self.operators.get(operator)
        return selected.debug_info if selected else ()


@record
class OperatorSources:
    """What gen-oplist read from the command line's sources of operators: each
    --root_ops list, each --ops_dict with the source it names, each program
    and each selection, in the order given."""

    root_ops: tuple[tuple[OperatorName, ...], ...] = ()
    ops_dicts: tuple[tuple[Mapping[OperatorName, tuple[KernelKey, ...]], str], ...] = ()
    programs: tuple = ()  # model.program.Program values
    selections: tuple[Selection, ...] = ()


def sorted_mapping(items: Mapping) -> Mapping:
    """A read-only copy of ``items`` with its keys in sorted order."""
    return MappingProxyType({key: items[key] for key in sorted(items)})


def _sorted_lists(mapping: Mapping[object, Iterable]) -> Mapping:
    return MappingProxyType({key: tuple(sorted(set(mapping[key]))) for key in sorted(mapping)})


def make_selection(operators: Iterable[SelectedOperator] = (),
                   et_kernel_metadata: Mapping[OperatorName, Iterable[KernelKey]] | None = None,
                   kernel_metadata: Mapping[str, Iterable[str]] | None = None,
                   include_all_operators: bool = False,
                   include_all_non_op_selectives: bool = False,
                   custom_classes: Iterable[str] = (),
                   build_features: Iterable[str] = (),
                   debug_info: Iterable[str] = (),
                   backends: Mapping[str, Iterable[str]] | None = None) -> Selection:
    """A Selection in canonical form (sorted, duplicates combined)."""
    by_name: dict[OperatorName, SelectedOperator] = {}
    for operator in operators:
        previous = by_name.get(operator.name)
        by_name[operator.name] = operator if previous is None else _combine(previous, operator)
    return Selection(
        operators=sorted_mapping(by_name),
        et_kernel_metadata=_sorted_lists(et_kernel_metadata or {}),
        kernel_metadata=_sorted_lists(kernel_metadata or {}),
        include_all_operators=include_all_operators,
        include_all_non_op_selectives=include_all_non_op_selectives,
        custom_classes=tuple(sorted(set(custom_classes))),
        build_features=tuple(sorted(set(build_features))),
        debug_info=tuple(sorted(set(debug_info))),
        backends=_sorted_lists(backends or {}),
    )


def _combine(a: SelectedOperator, b: SelectedOperator) -> SelectedOperator:
    return SelectedOperator(
        name=a.name,
        is_root_operator=a.is_root_operator or b.is_root_operator,
        is_used_for_training=a.is_used_for_training or b.is_used_for_training,
        include_all_overloads=a.include_all_overloads or b.include_all_overloads,
        debug_info=tuple(sorted(set(a.debug_info) | set(b.debug_info))),
    )


def union(selections: Iterable[Selection]) -> Selection:
    """Every operator, key and flag of any of ``selections``."""
    selections = list(selections)
    et_keys: dict[OperatorName, set[KernelKey]] = {}
    dtypes: dict[str, set[str]] = {}
    backends: dict[str, set[str]] = {}
    for selection in selections:
        for backend_id, sources in selection.backends.items():
            backends.setdefault(backend_id, set()).update(sources)
        for operator, keys in selection.et_kernel_metadata.items():
            et_keys.setdefault(operator, set()).update(keys)
        for tag, names in selection.kernel_metadata.items():
            dtypes.setdefault(tag, set()).update(names)
    return make_selection(
        (operator for selection in selections for operator in selection.operators.values()),
        et_keys,
        dtypes,
        include_all_operators=any(s.include_all_operators for s in selections),
        include_all_non_op_selectives=any(s.include_all_non_op_selectives for s in selections),
        custom_classes={c for s in selections for c in s.custom_classes},
        build_features={f for s in selections for f in s.build_features},
        debug_info={d for s in selections for d in s.debug_info},
        backends=backends,
    )


@record
class Overlap:
    """An operator that more than one selection selects, and where each came from."""

    operator: OperatorName
    origins: tuple[str, ...]


def overlaps(named: Iterable[tuple[str, Selection]]) -> tuple[Overlap, ...]:
    """Operators selected by more than one of the (origin, selection) pairs,
    sorted, whatever the order of the pairs. Prim ops are left out: no kernel
    library registers them (ExecuTorch's prim-op registry does)."""
    origins: dict[OperatorName, set[str]] = {}
    for origin, selection in named:
        for operator in selection.operators:
            if not is_prim_operator(operator):
                origins.setdefault(operator, set()).add(origin)
    return tuple(Overlap(op, tuple(sorted(found))) for op, found in sorted(origins.items()) if len(found) > 1)


def operators_including_all_overloads(selection: Selection) -> tuple[OperatorName, ...]:
    """Operators selected with ``include_all_overloads``."""
    return tuple(name for name, op in selection.operators.items() if op.include_all_overloads)


def dtypes_by_operator(selection: Selection) -> Mapping[OperatorName, tuple[int, ...]]:
    """Operator -> the dtype numbers its kernels may see: every dtype in its keys
    and its ``kernel_metadata``. Operators that accept any key (``default``, or no
    keys recorded) are left out: they keep every dtype."""
    result: dict[OperatorName, tuple[int, ...]] = {}
    for operator, selected in selection.operators.items():
        keys = selection.et_kernel_metadata.get(operator, ())
        if not keys or ANY_KEY in keys or selected.include_all_overloads:
            continue
        found = {dtype for key in keys for dtype in key.dtypes}
        found.update(_argument_dtypes(selection, operator))
        result[operator] = tuple(sorted(found))
    return MappingProxyType(result)


def _argument_dtypes(selection: Selection, operator: OperatorName) -> set[int]:
    """The dtype numbers passed to ``operator`` as ScalarType arguments (its ``kernel_metadata``)."""
    return {SCALAR_TYPES[name] for name in selection.kernel_metadata.get(str(operator), ()) if name in SCALAR_TYPES}


def mixed_dtype_spans(selection: Selection) -> Mapping[OperatorName, int | None]:
    """For each operator of ``dtypes_by_operator(selection)``, how far into its
    tensors (in kernel key order: tensor arguments in call order, then out) a
    selected call may still mix dtypes: n means that for some call the tensors
    from position j on differ in dtype for every j < n (add of Long and Float
    gives at least 1; where's Bool condition beside Float values gives exactly
    1, its values never mixing); 0 means no call mixes. ScalarType arguments
    naming a dtype a call's tensors lack count as mixing. A dtype-only key
    (an ops dict's ``v1/6;``) says nothing about pairs: None (mixing
    anywhere) when the operator has more than one dtype. Kernels use it to
    leave out mixed-dtype paths that no call needs (`selected_op_variants.h`)."""
    spans: dict[OperatorName, int | None] = {}
    for operator, dtypes in dtypes_by_operator(selection).items():
        from_arguments = _argument_dtypes(selection, operator)
        span: int | None = 0
        for key in selection.et_kernel_metadata[operator]:
            tensors = key.dtypes
            if len(tensors) == 1 and len(dtypes) > 1:
                span = None
                break
            mixed_from = [j for j in range(len(tensors)) if len(set(tensors[j:]) | from_arguments) > 1]
            span = max(span, len(mixed_from))
        spans[operator] = span
    return MappingProxyType(spans)
