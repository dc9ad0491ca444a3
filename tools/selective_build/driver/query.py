"""``etsb query``: the targets patterns match, as labels, rules or JSON; what
they depend on; their outputs; or the operators they register."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from selective_build.model.errors import CommandLine, UserError

# Formats answered from the BUILD files alone, without analysing targets.
DECLARED_FORMATS = ("label", "rule", "json")


def query(workspace, targets: Sequence[str], output: str) -> tuple[int, list[str]]:
    """The exit status and the lines to print for ``etsb query --output
    OUTPUT TARGETS`` in ``workspace`` (a :class:`~selective_build.driver.workspace.Workspace`)."""
    if workspace.dialect != "etsb" and output not in DECLARED_FORMATS:
        raise UserError(f"--emulate {workspace.dialect} lists targets as that build system declares them, which "
                        f"etsb's driver does not analyse or build: use --output {', '.join(DECLARED_FORMATS)}, "
                        f"not '{output}'", CommandLine("--emulate"))
    patterns = workspace.patterns(targets)
    packages = workspace.evaluate(workspace.packages_for(patterns))
    labels = workspace.matching(packages, patterns)
    if output in DECLARED_FORMATS:
        return 0, _declared(packages, labels, output)
    if output == "ops":
        return operators(workspace, packages, labels)
    from selective_build.driver.graph import analyse

    graph = analyse(packages, labels, workspace.config())
    if output == "deps":
        return 0, [str(label) for label in sorted(graph.nodes)]
    return 0, [f"{label}: {path}" for label in labels for path in graph.nodes[label].outputs]


def _declared(packages, labels, output: str) -> list[str]:
    """Each target as its label, its rule and place, or all of it as JSON."""
    targets = {t.label: t for p in packages.values() for t in p.targets}
    missing = [label for label in labels if label not in targets]
    if missing:
        raise UserError(f"no target '{missing[0]}'")
    if output == "json":
        return [json.dumps([{"label": str(label), "rule": targets[label].rule, "attrs": targets[label].attrs,
                             "location": str(targets[label].location)} for label in labels],
                           indent=1, sort_keys=True)]
    return [str(label) if output == "label" else f"{targets[label].rule:14} {label}  ({targets[label].location})"
            for label in labels]


def _selections(workspace, packages, labels) -> dict[str, list[tuple[str, str]]]:
    """Each target's selections: the et_operator_libraries its registration
    libraries register, else its own selection if it is one; label ->
    (selection label, the selection's yaml)."""
    from selective_build.driver.graph import analyse
    from selective_build.driver.labels import parse_label
    from selective_build.driver.layout import TAG_REGISTERS

    config = workspace.config()
    selections: dict[str, list[tuple[str, str]]] = {}
    for label in labels:
        graph = analyse(packages, [label], config)
        found = {}
        for node in graph.nodes.values():
            for tag in node.target.tags:
                if tag.startswith(TAG_REGISTERS):
                    chosen = parse_label(tag[len(TAG_REGISTERS):], node.target.package, config.main_names)
                    found[str(chosen)] = graph.nodes[chosen].outputs[0]
        if not found:
            own = [path for path in graph.nodes[label].outputs if path.endswith("/selected_operators.yaml")]
            if own:
                found[str(label)] = own[0]
        if found:
            selections[str(label)] = sorted(found.items())
    return selections


def operators(workspace, packages, labels) -> tuple[int, list[str]]:
    """``query --output ops``: each target's operators, a ``label: operator``
    line each. A target's operators are those its registration libraries
    register (their selections built first); an et_operator_library's, those
    it selects."""
    from selective_build.readers.inputs import selection

    selections = _selections(workspace, packages, labels)
    if not selections:
        raise UserError(f"{', '.join(map(str, labels))}: no target registers or selects operators (an "
                        "et_operator_library, an executorch_generated_lib or a binary linking one does)")
    wanted = sorted({chosen for pairs in selections.values() for chosen, _ in pairs})
    status, _ = workspace.build(wanted, quiet=True)
    if status != 0:
        return 1, []
    lines = []
    for label, pairs in selections.items():
        names = set()
        for _, path in pairs:
            read = selection(os.path.join(workspace.root, path))
            names.update(str(name) for name in read.operators)
            if read.include_all_operators:
                names.add("(every operator of its kernel yaml)")
        lines += [f"{label}: {name}" for name in sorted(names)]
    return 0, lines
