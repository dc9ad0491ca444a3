"""From evaluated packages to build actions: each requested target analysed
by its rule kind's analysis (the table :data:`RULE_ANALYSES`), and the
actions they need, each once. The core of analysis (attributes, ``select()``,
labels) is :mod:`~selective_build.driver.analysis`; the rule kinds are
``analysis`` (export_file, filegroup, config_setting), ``genrule`` and ``cxx``.
Pure: the file system is seen only through ``Config.exists``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from selective_build.driver import analysis, cxx, genrule
from selective_build.driver.analysis import Action, Analysis, Config, Graph, RuleAnalysis
from selective_build.driver.evaluate import Package
from selective_build.driver.labels import Label
from selective_build.model.errors import Location, Problem, UserError, did_you_mean

# Rule kind -> the function analysing a target of that kind (one per rule of driver/primitives.py).
RULE_ANALYSES: Mapping[str, RuleAnalysis] = MappingProxyType({
    "config_setting": analysis.config_setting,
    "cxx_binary": cxx.cxx_binary,
    "cxx_library": cxx.cxx_library,
    "export_file": analysis.export_file,
    "filegroup": analysis.filegroup,
    "genrule": genrule.genrule,
})


def analyse(packages: Mapping[str, Package], requested: Iterable[Label], config: Config) -> Graph:
    """The actions that build ``requested`` (and everything they need). Every
    problem found (missing file, unknown target, bad select, bad command) is
    raised together as one UserError located at the BUILD lines."""
    state = Analysis(packages, config, RULE_ANALYSES)
    for label in requested:
        target = state.targets.get(label.package, {}).get(label.name)
        if target is None:
            state.problems.append(Problem(f"no target '{label.name}' in package '//{label.package}'"
                                          + did_you_mean(label.name, list(state.targets.get(label.package, {}))),
                                          Location(packages[label.package].build_file
                                                   if label.package in packages else label.package)))
            continue
        state.request(target)
    if state.problems:
        raise UserError.of(state.problems)
    cxx.share_precompiled_headers(state)
    unique: dict[tuple[str, ...], Action] = {}
    for action in state.actions:
        unique.setdefault(action.outputs, action)
    return Graph(tuple(sorted(unique.values(), key=lambda a: a.outputs)), dict(state.nodes))
