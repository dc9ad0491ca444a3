"""Targets a pattern leaves out: those that need an external repository the
build does not have (an ExecuTorch tree, say). ``etsb build //examples/...``
in a checkout without a tree builds everything else and says what it left
out and why, as Bazel leaves out targets incompatible with its platform; a
target named on its own still fails with the missing repository's reason."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from selective_build.driver.analysis import Analysis, Config
from selective_build.driver.attr_values import genrule_outputs, label_texts
from selective_build.driver.labels import Label, LabelError, Pattern, parse_label, split_external


def needing_missing_repositories(packages: Mapping[str, object], missing: Collection[str],
                                 main_names: tuple[str, ...] = (),
                                 texts: Callable[[object], Iterable[str]] = label_texts) -> dict[Label, str]:
    """Each target of ``packages`` that names a repository in ``missing``,
    itself or through the targets it names, with that repository's name.
    ``texts`` gives the labels a target names: by default in every branch of
    its ``select()``s; a configuration's (``Analysis.configured_label_texts``)
    leaves out the branches it does not take."""
    direct: dict[Label, str] = {}
    named: dict[Label, list[Label]] = {}
    # A genrule's output file, named as a label, stands for the genrule.
    made_by = genrule_outputs(packages)
    for package in packages.values():
        for target in package.targets:
            named[target.label] = []
            for text in texts(target):
                try:
                    label = parse_label(text, package.name, main_names)
                except LabelError:
                    continue  # reported with its target during analysis
                external = split_external(label.package)
                if external is not None and external[0] in missing:
                    direct.setdefault(target.label, external[0])
                elif (label.package, label.name) in made_by:
                    named[target.label].append(made_by[(label.package, label.name)].label)
                else:
                    named[target.label].append(label)
    needing: dict[Label, str] = {}

    def visit(label: Label, on_path: set[Label]) -> str | None:
        if label in needing:
            return needing[label]
        if label in direct:
            needing[label] = direct[label]
            return direct[label]
        on_path.add(label)
        for other in named.get(label, ()):
            if other not in on_path and (repository := visit(other, on_path)):
                needing[label] = repository
                break
        on_path.discard(label)
        return needing.get(label)

    for label in sorted(named):
        visit(label, set())
    return needing


def configured_needing(packages: Mapping[str, object], missing: Collection[str], config: Config) -> dict[Label, str]:
    """``needing_missing_repositories`` in ``config``: a ``select()`` branch it does
    not take needs nothing (et_model_binary's default runtime names the wheel's
    runtime on the host's development configuration, the tree's elsewhere)."""
    chosen = Analysis(packages, config, {}).configured_label_texts
    return needing_missing_repositories(packages, missing, config.main_names, chosen)


def left_out(labels: Sequence[Label], patterns: Sequence[Pattern],
             needing: Mapping[Label, str]) -> tuple[tuple[str, str], ...]:
    """Of ``labels``, those only a wildcard pattern selected that need a
    missing repository: (label, repository) pairs, sorted."""
    named = {Label(p.package, p.name) for p in patterns if p.name is not None}
    return tuple(sorted((str(label), needing[label]) for label in labels
                        if label in needing and label not in named))


def left_out_note(pairs: Sequence[tuple[str, str]], reasons: Mapping[str, str], shown: int = 6) -> list[str]:
    """The lines that tell what a build left out, one per missing repository."""
    lines = []
    for repository in sorted({name for _, name in pairs}):
        labels = [label for label, name in pairs if name == repository]
        more = f" and {len(labels) - shown} more" if len(labels) > shown else ""
        lines.append(f"etsb: left out {len(labels)} target{'s' if len(labels) != 1 else ''} that need the repository "
                     f"'@{repository}' ({reasons.get(repository, 'not there')}): "
                     f"{', '.join(labels[:shown])}{more}")
    return lines
