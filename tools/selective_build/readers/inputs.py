"""The files a command names, read: kernel yamls, selections, programs,
lists of them and the like, with the problems of every file reported
together (:func:`collect`). Each function is one kind of input, by the path
or the command-line text that names it."""

from __future__ import annotations

import os

from selective_build.model.errors import CommandLine, Location, UserError
from selective_build.readers.files import mapped, read_text

# The models of selections, programs and backends are imported where they are
# read: a command reading kernel yamls alone (merge-yaml) does not import them.
TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from selective_build.model.backends import BackendLibrary
    from selective_build.model.names import OperatorName
    from selective_build.model.program import Program
    from selective_build.model.selection import OperatorSources, Selection

SELECTED_OPERATORS = "selected_operators.yaml"
# The kernels' folder of an ExecuTorch tree, when kernel-sources is given a tree and no folder.
DEFAULT_KERNEL_FOLDERS = ("kernels/portable/cpu",)


def collect(tasks: Sequence[Callable[[], object]]) -> list:
    """Run every task; raise one UserError with the problems of all that failed."""
    results, problems = [], []
    for task in tasks:
        try:
            results.append(task())
        except UserError as error:
            problems.extend(error.problems)
    if problems:
        raise UserError.of(problems)
    return results


def aten_schemas(path: str | None):
    """The ATen schemas of the yaml at ``path``; etsb's own when None."""
    from selective_build.readers.aten_schemas import load_default_aten_schemas, parse_aten_schemas

    if path is None:
        return load_default_aten_schemas()
    return parse_aten_schemas(read_text(path, "ATen yaml file"), path)


def kernel_yamls(paths: Sequence[str], aten) -> list:
    """Every kernel yaml of ``paths``, read and checked."""
    if not paths:  # gen-oplist of a program alone: no yaml reader to import
        return []
    from selective_build.readers.kernel_yaml import parse_kernel_yaml

    return collect([lambda path=path: parse_kernel_yaml(read_text(path, "kernel yaml file"), path, aten)
                    for path in paths])


def selection(path: str) -> Selection:
    """The selected_operators.yaml at ``path``."""
    from selective_build.readers.selected_yaml import parse_selected_operators

    return parse_selected_operators(read_text(path, SELECTED_OPERATORS), path)


def selection_or_everything(path: str | None) -> Selection:
    """The selection at ``path``; every operator when there is none."""
    from selective_build.model.selection import make_selection

    return selection(path) if path else make_selection(include_all_operators=True)


def named_selections(paths: Sequence[str]) -> list[tuple[str, Selection]]:
    """Each path with its selection, every file's problems together."""
    return list(zip(paths, collect([lambda path=path: selection(path) for path in paths])))


def program(path: str, positions) -> Program:
    """The .pte program at ``path`` (``positions``: the ScalarType arguments to read)."""
    from selective_build.readers.pte import read_program

    with mapped(path, ".pte file") as data:
        return read_program(data, path, positions)


def ops_dict(text: str) -> tuple[Mapping, str]:
    """An --ops_dict value, JSON or ``@FILE``, and the source it names."""
    from selective_build.model.selection import OPS_DICT_SOURCE
    from selective_build.readers.operator_lists import parse_ops_dict

    if text.startswith("@"):
        path = text[1:]
        return parse_ops_dict(read_text(path, "ops dict file"), Location(path)), path
    return parse_ops_dict(text), OPS_DICT_SOURCE


def operator_sources(root_ops: Sequence[str], ops_dicts: Sequence[str], programs: Sequence[str],
                     selections: Sequence[str], positions) -> OperatorSources:
    """gen-oplist's sources of operators, read in this order, every problem together."""
    from selective_build.model.selection import OperatorSources
    from selective_build.readers.operator_lists import parse_root_ops

    tasks = [lambda text=text: parse_root_ops(text) for text in root_ops]
    tasks += [lambda text=text: ops_dict(text) for text in ops_dicts]
    tasks += [lambda path=path: program(path, positions) for path in programs]
    tasks += [lambda path=path: selection(path) for path in selections]
    read = collect(tasks)
    ends = [len(root_ops), len(root_ops) + len(ops_dicts), len(tasks) - len(selections)]
    return OperatorSources(tuple(read[:ends[0]]), tuple(read[ends[0]:ends[1]]), tuple(read[ends[1]:ends[2]]),
                           tuple(read[ends[2]:]))


def in_directory(path: str, name: str = SELECTED_OPERATORS) -> str:
    """``path``, or ``path/name`` when ``path`` is a directory."""
    return os.path.join(path, name) if os.path.isdir(path) else path


def selection_paths(values: Sequence[str]) -> list[str]:
    """The selected_operators.yaml paths of --model_file_list_path values (@LIST
    files expanded, directories completed), sorted, each once."""
    paths = []
    for value in values:
        if value.startswith("@"):
            listed = read_text(value[1:], "list file").split()
            if not listed:
                raise UserError("the list file names no selected_operators.yaml", Location(value[1:]))
            paths.extend(listed)
        else:
            paths.append(value)
    return sorted({in_directory(path) for path in paths})


def backend_ids(values: Sequence[str], flag: str) -> tuple[str, ...]:
    """The backend ids of a repeatable flag whose values separate them by commas or spaces."""
    ids = sorted({word for value in values for word in value.replace(",", " ").split()})
    if not ids:
        raise UserError(f"{flag} names no backend id", CommandLine(flag))
    for backend_id in ids:
        from selective_build.model.backends import check_backend_id

        problem = check_backend_id(backend_id)
        if problem:
            raise UserError(problem, CommandLine(flag))
    return tuple(ids)


def backend_libraries(paths: Sequence[str]) -> list[BackendLibrary]:
    """The backend libraries the declaration files at ``paths`` declare, in order."""
    from selective_build.readers.backend_yaml import parse_backend_libraries

    return [library for path in paths
            for library in parse_backend_libraries(read_text(path, "backend library declaration"), path)]


def existing(libraries: Sequence[BackendLibrary]) -> Sequence[BackendLibrary]:
    """``libraries``, once every file they declare is checked to exist."""
    for library in libraries:
        for path in (library.library, *library.needs):
            if not os.path.isfile(path):
                raise UserError(f"the backend library '{path}' it declares does not exist", Location(library.path))
    return libraries


def switch_names(path: str) -> dict[str, tuple[OperatorName, ...]]:
    """kernel-sources' switch names: ``name operator...`` a line."""
    from selective_build.model.names import parse_operator_name

    aliases = {}
    for number, line in enumerate(read_text(path, "switch names").splitlines(), 1):
        words = line.split()
        if len(words) < 2:
            raise UserError("expected a switch name and the operators that may run it", Location(path, number))
        try:
            aliases[words[0]] = tuple(parse_operator_name(word) for word in words[1:])
        except ValueError as error:
            raise UserError(str(error), Location(path, number)) from None
    return aliases


def kernel_library(root: str | None, folders: Sequence[str], files: Sequence[str], libraries: Sequence):
    """The index of a kernel library's sources, and the prefix its listed
    paths take: a tree's ``folders`` (absolute paths), or the files given
    (loose and by --library group, as given)."""
    from selective_build.readers.kernel_sources import index_kernel_sources, library_sources

    if root:
        return (index_kernel_sources(root, library_sources(root, folders or DEFAULT_KERNEL_FOLDERS)),
                os.path.abspath(root))
    return index_kernel_sources("", files, libraries), ""


def library_operators(yamls: Mapping[str, str]) -> list[tuple[str, frozenset]]:
    """Each library of ``yamls`` (name -> its kernel yaml's path, in order) with the operator names the yaml has."""
    from selective_build.readers.kernel_catalog import yaml_operator_names

    return [(name, yaml_operator_names(read_text(path, "kernel yaml"))) for name, path in yamls.items()]
