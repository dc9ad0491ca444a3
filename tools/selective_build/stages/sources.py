"""Selection sources: root operator lists, ops dicts, models, kernel yamls and
"everything". Each turns its input into a :class:`~selective_build.model.selection.Selection`;
:func:`selective_build.model.selection.union` combines any number of them, as
:func:`select` (gen-oplist) and :func:`union_of_libraries` (gen-all-oplist) do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from selective_build.model.backends import BACKENDS_SOURCE, method_source
from selective_build.model.core_features import linear_feature
from selective_build.model.dtypes import SCALAR_TYPE_NAMES
from selective_build.model.keys import ANY_KEY, KernelKey
from selective_build.model.kernels import KernelYaml
from selective_build.model.names import OperatorName
from selective_build.model.program import Program
from selective_build.model.schema import FunctionSchema, base_of
from selective_build.model.errors import Problem, UserError
from selective_build.model.selection import (OPS_DICT_SOURCE, ROOT_OPS_SOURCE, OperatorSources, SelectedOperator,
                                             Selection, make_selection, operators_including_all_overloads,
                                             overlaps, union)

def from_root_ops(names: Sequence[OperatorName], include_all_overloads: bool = False,
                  source: str = ROOT_OPS_SOURCE) -> Selection:
    """Select ``names``, with any key. With ``include_all_overloads``, a name
    without overload (``aten::add``) stands for all of its overloads."""
    return make_selection(
        (SelectedOperator(name, include_all_overloads=include_all_overloads and not name.has_overload,
                          debug_info=(source,)) for name in names),
        {name: (ANY_KEY,) for name in names},
    )


def from_ops_dict(entries: Mapping[OperatorName, Sequence[KernelKey]], source: str = OPS_DICT_SOURCE) -> Selection:
    """Select the dict's operators with its keys."""
    return make_selection((SelectedOperator(name, debug_info=(source,)) for name in entries), entries)


def from_program(program: Program) -> Selection:
    """Every operator a program's methods call a kernel for, with the exact keys
    the runtime looks up, the dtypes passed to them as ScalarType values, and
    the backends their delegates need (each with the method needing it)."""
    keys: dict[OperatorName, set[KernelKey]] = {}
    dtypes: dict[str, set[str]] = {}
    backends: dict[str, set[str]] = {}
    features: set[str] = set()
    for method in program.methods:
        # The prim ops it calls too (no kernel library serves them; a prim-op selection does).
        for operator in method.runtime_operators:
            keys.setdefault(operator, {ANY_KEY})
        for backend_id in method.backends:
            backends.setdefault(backend_id, set()).add(method_source(program.path, method.name))
        for call in method.kernel_calls:
            if call.operator in method.operators:
                keys.setdefault(call.operator, set()).add(call.key)
                if call.scalar_type_arguments:
                    dtypes.setdefault(str(call.operator), set()).update(
                        SCALAR_TYPE_NAMES[d] for d in call.scalar_type_arguments)
                # What the program assumes of the core it runs on (Cortex-M programs).
                features.update(f for f in [linear_feature(call.operator, call.absent_arguments)] if f)
    return make_selection((SelectedOperator(name, debug_info=(program.path,)) for name in keys), keys, dtypes,
                          build_features=features, backends=backends)


def from_backends(backend_ids: Sequence[str], source: str = BACKENDS_SOURCE) -> Selection:
    """Select backends by id (the rules' ``backends``), with no operator."""
    return make_selection(backends={backend_id: (source,) for backend_id in backend_ids})


def scalar_type_positions(aten, custom: Mapping[OperatorName, FunctionSchema] = MappingProxyType({})):
    """A lookup for :func:`selective_build.readers.pte.read_program`: operator
    name -> positions of its ScalarType arguments, from the custom operators'
    schemas or else ATen's (an AtenSchemas); None if unknown. ATen schemas are
    parsed only when their text mentions a ScalarType."""
    cache: dict[OperatorName, tuple[int, ...] | None] = {}

    def positions(operator: OperatorName):
        if operator not in cache:
            cache[operator] = _scalar_type_positions(operator, aten, custom)
        return cache[operator]

    return positions


def _scalar_type_positions(operator: OperatorName, aten, custom: Mapping[OperatorName, FunctionSchema]):
    schema = custom.get(operator)
    if schema is None:
        text = aten.texts.get(operator.unqualified) if operator.namespace == "aten" else None
        if text is None:
            return None
        if "ScalarType" not in text:
            return ()
        schema = aten.lookup(operator.unqualified)
    return tuple(i for i, argument in enumerate(schema.arguments) if base_of(argument.type).name == "ScalarType")


def from_kernel_yaml(kernel_yaml: KernelYaml) -> Selection:
    """Every operator of a kernel yaml, with any key (``--ops_schema_yaml_path``)."""
    names = [entry.name for entry in kernel_yaml.entries]
    return make_selection((SelectedOperator(name, debug_info=(kernel_yaml.path,)) for name in names),
                          {name: (ANY_KEY,) for name in names})


def everything() -> Selection:
    """``include_all_operators``: a build that is not selective."""
    return make_selection(include_all_operators=True)


def schemas_of(kernel_yamls: Sequence[KernelYaml]) -> Mapping[OperatorName, FunctionSchema]:
    """Each operator of the kernel yamls with its schema (for :func:`scalar_type_positions`)."""
    return {entry.name: entry.schema for kernel_yaml in kernel_yamls for entry in kernel_yaml.entries}


def select(read: OperatorSources, kernel_yamls: Sequence[KernelYaml], backend_ids: Sequence[str],
           include_all_overloads: bool, include_all_operators: bool) -> Selection:
    """gen-oplist's selection: the union of every source's."""
    selections = [from_root_ops(names, include_all_overloads) for names in read.root_ops]
    selections += [from_ops_dict(entries, source) for entries, source in read.ops_dicts]
    selections += [from_program(program) for program in read.programs]
    selections += [*read.selections, *map(from_kernel_yaml, kernel_yamls)]
    if backend_ids:
        selections.append(from_backends(backend_ids))
    if include_all_operators:
        selections.append(everything())
    return union(selections)


def union_of_libraries(named: Sequence[tuple[str, Selection]], refuse_overlaps: bool,
                       allow_include_all_overloads: bool) -> Selection:
    """gen-all-oplist's union of the selections of several libraries (each with
    its path). With ``refuse_overlaps``, an operator two select is an error;
    without ``allow_include_all_overloads``, so is one selected with all its
    overloads (as ExecuTorch's gen_all_oplist.py refuses it)."""
    if refuse_overlaps:
        found = overlaps(named)
        if found:
            raise UserError.of(Problem(f"operator {o.operator} is selected by {len(o.origins)} libraries: "
                                       f"{', '.join(o.origins)}") for o in found)
    merged = union(selection for _, selection in named)
    if not allow_include_all_overloads:
        wide = operators_including_all_overloads(merged)
        if wide:
            raise UserError.of(Problem(f"operator {name} includes all overloads (selected by "
                                       f"{', '.join(merged.sources_of(name)) or 'an unnamed source'}); "
                                       f"pass --allow_include_all_overloads to accept it") for name in wide)
    return merged
