"""What a target's attribute values hold, as the evaluator writes them (lists,
and ``select()`` as ``{"$select": [...]}``): their strings, the labels and
``select()`` conditions a target names, the packages a package names, and the
genrule that makes each output file. Pure, and independent of any configuration:
what every branch of a ``select()`` could name (the packages to evaluate, the
repositories a target needs)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from selective_build.driver.evaluate import Package, Target
from selective_build.driver.labels import LabelError, parse_label
from selective_build.driver.primitives import label_attrs


def referenced_packages(package: Package, main_names: tuple[str, ...] = ()) -> set[str]:
    """Packages named by absolute labels in ``package``'s label attributes and
    ``select()`` conditions (the driver evaluates them too)."""
    found = set()
    for target in package.targets:
        for text in label_texts(target):
            if text.startswith(("//", "@")) and not text.startswith("//conditions:"):
                try:
                    found.add(parse_label(text, package.name, main_names).package)
                except LabelError:
                    pass  # reported with its target during analysis
    return found


def label_texts(target: Target) -> Iterable[str]:
    """Every string of ``target``'s label attributes, and the ``select()`` conditions
    of every attribute (a select() of compile flags names config_setting targets too)."""
    for attr in label_attrs(target.rule):
        yield from strings(target.attrs.get(attr))
    for value in target.attrs.values():
        yield from _select_keys(value)


def genrule_outputs(packages: Mapping[str, Package]) -> dict[tuple[str, str], Target]:
    """The genrule that makes each output file, by (package, output name)."""
    return {(name, out): target for name, package in packages.items() for target in package.targets
            if target.rule == "genrule" for out in strings(target.attrs.get("outs"))}


def strings(value: object) -> Iterable[str]:
    """Every string in an attribute's value (lists flattened, every branch of a ``select()``)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        if "$select" in value:
            for part in value["$select"]:
                if isinstance(part, dict) and "$conditions" in part:
                    for chosen in part["$conditions"].values():
                        yield from strings(chosen)
                else:
                    yield from strings(part)


def _select_keys(value: object) -> Iterable[str]:
    if isinstance(value, dict) and "$select" in value:
        for part in value["$select"]:
            if isinstance(part, dict) and "$conditions" in part:
                yield from part["$conditions"]
