"""The values of a build rule's call that reach etsb's commands, checked where
the call is: operator names, an ops dict (operator -> dtype names or kernel
keys) and backend ids, read by the parsers the commands use. CMake's rules
run this while configuring (``etsb check-attrs``), so that a mistake stops
the configuration at the CMakeLists.txt call rather than the build."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from selective_build.model.backends import check_backend_id
from selective_build.model.errors import Location, Problem, UserError
from selective_build.readers.operator_lists import parse_ops_dict, read_operator_name


def _backend_id(text: str) -> None:
    problem = check_backend_id(text)
    if problem:
        raise UserError(problem)


def rule_value_problems(call: Location, rule: str, name: str, values: Sequence[tuple[str, str]]
                        ) -> tuple[Problem, ...]:
    """Every problem of ``values``, (attribute, value) pairs of a call of
    ``rule`` making ``name``, at ``call``; attributes are OPS (an operator
    name), OPS_DICT (a JSON object) and BACKENDS (a backend id). Each message
    names the rule, the target and the attribute, as the rules' own do."""
    readers: dict[str, Callable[[str], object]] = {
        "OPS": lambda text: read_operator_name(text, call),
        "OPS_DICT": parse_ops_dict,
        "BACKENDS": _backend_id,
    }
    problems = []
    for attribute, value in values:
        try:
            readers[attribute](value)
        except UserError as error:
            problems.extend(Problem(f"{rule} '{name}': {attribute}: {problem.message}", call)
                            for problem in error.problems)
    return tuple(problems)
