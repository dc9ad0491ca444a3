"""Reading ``argv`` against the command declarations of
:mod:`selective_build.arguments`, and the help text made from them.

Every flag has a dashed and an underscored spelling (``--output-dir``,
``--output_dir``, as ExecuTorch's tools spell theirs), takes ``--flag value``
or ``--flag=value``, and is checked here: unknown flags, missing values and
required flags, integers and choices. What the declarations add across flags
(:func:`check`, at the end of this module) is checked once the values are known.

Not argparse: importing it costs more than many of these commands' whole
work, and build actions run them many times per build.
"""

from __future__ import annotations

import sys

from selective_build import __version__
from selective_build.arguments import (ANY, COMMANDS, EITHER, GROUP, INT, LIST, PAIRS, SWITCH, Command, Flag,
                                      Positional, Rule)
from selective_build.model.errors import CommandLine, UserError


# types.SimpleNamespace, the type of sys.implementation: the `types` module itself
# costs a no-op build more than a millisecond's worth of instructions to import.
SimpleNamespace = type(sys.implementation)


class UsageError(Exception):
    """A command line that does not fit its command; printed with the usage, exit status 2."""

    def __init__(self, message: str, command: str | None = None) -> None:
        super().__init__(message)
        self.command = command


_BY_NAME = {command.name: command for command in COMMANDS}
_HELP = ("-h", "--help")


def parse(argv: list[str]) -> tuple[Command, SimpleNamespace] | str:
    """The command ``argv`` runs and its values by destination; or the text to
    print and exit with 0 (``--help``, ``--version``, no command). Raise
    UsageError for anything that does not fit."""
    if not argv or argv[0] in _HELP:
        return main_help()
    if argv[0] == "--version":
        return f"etsb {__version__}"
    if argv[0] == "--cmakedir":
        import os

        from selective_build.driver.state import REPO

        # The folder of etsbConfig.cmake, for find_package(etsb) (-Detsb_DIR=...).
        return os.path.join(REPO, "rules", "cmake")
    if argv[0] == "--root":
        from selective_build.driver.state import REPO

        # etsb's tree (rules, kernels, runtime, Bazel module): a Bazel project's local_repository path.
        return REPO
    command = _BY_NAME.get(argv[0])
    if command is None:
        from selective_build.model.errors import did_you_mean

        what = "option" if argv[0].startswith("-") else "command"
        raise UsageError(f"unknown {what} '{argv[0]}'{did_you_mean(argv[0], _BY_NAME)}; commands: "
                         f"{', '.join(_BY_NAME)}")
    if any(arg in _HELP for arg in argv[1:argv.index("--") if "--" in argv else len(argv)]):
        return command_help(command)
    return command, read_values(command, argv[1:])


def read_values(command: Command, argv: list[str]) -> SimpleNamespace:
    """Each flag's value by destination, the positional arguments, and those
    after ``--`` (the command's ``passthrough``, if it has one), as ``command``
    declares them; a UsageError for what does not fit."""
    flags = {name: flag for flag in command.flags for name in flag.names}
    values: dict[str, object] = {}
    for flag in command.flags:
        values[flag.dest] = {LIST: lambda: list(flag.default), PAIRS: dict, SWITCH: lambda: False,
                             GROUP: list}.get(flag.kind, lambda: flag.default)()
    if command.passthrough:
        values[command.passthrough] = []
    given: set[str] = set()
    positional: list[str] = []
    # Where positional arguments go: the list itself, or the last GROUP flag's group.
    collecting = positional
    arguments = iter(argv)
    for argument in arguments:
        if argument == "--":
            (values[command.passthrough] if command.passthrough else collecting).extend(arguments)
            break
        if not argument.startswith("-") or argument == "-":
            collecting.append(argument)
            continue
        name, equals, inline = argument.partition("=")
        if not equals and name not in flags and name[:2] in flags and flags[name[:2]].kind == INT:
            name, equals, inline = name[:2], "=", name[2:]  # -j4
        flag = flags.get(name)
        if flag is None:
            from selective_build.model.errors import did_you_mean

            raise UsageError(f"unknown option '{name}'{did_you_mean(name, flags)}", command.name)
        given.add(flag.dest)
        if flag.kind == SWITCH:
            if equals:
                raise UsageError(f"{name} takes no value", command.name)
            values[flag.dest] = True
            continue
        value = inline if equals else next(arguments, None)
        if value is None:
            raise UsageError(f"{name} needs a value ({flag.metavar or 'VALUE'})", command.name)
        if flag.kind == LIST:
            values[flag.dest].append(value)
        elif flag.kind == GROUP:
            collecting = []
            values[flag.dest].append((value, collecting))
        elif flag.kind == PAIRS:
            key, equals, pair_value = value.partition("=")
            if not equals or not key:
                raise UsageError(f"{name} takes NAME=VALUE, not '{value}'", command.name)
            values[flag.dest][key] = pair_value
        else:
            values[flag.dest] = _checked(command, flag, name, value)
    missing = [flag.names[0] for flag in command.flags if flag.required and flag.dest not in given]
    if missing:
        raise UsageError(f"missing {', '.join(missing)}", command.name)
    if command.positional is not None:
        values[command.positional.dest] = _positional(command, command.positional, positional)
    elif positional:
        raise UsageError(f"unexpected argument '{positional[0]}'", command.name)
    return SimpleNamespace(**values)


def _checked(command: Command, flag: Flag, name: str, value: str) -> object:
    """A flag's value, converted and checked against its kind and choices."""
    if flag.kind == INT:
        if not (value.isdigit() and value.isascii()):
            raise UsageError(f"{name} takes a non-negative integer, not '{value}'", command.name)
        return int(value)
    if flag.choices and value not in flag.choices:
        raise UsageError(f"{name} must be one of {', '.join(flag.choices)}, not '{value}'", command.name)
    return value


def _positional(command: Command, spec: Positional, given: list[str]) -> object:
    """The positional arguments: a list, or the one value (None when none) when at most one is taken."""
    if len(given) < spec.at_least:
        raise UsageError(f"missing {spec.metavar} ({spec.help})", command.name)
    if spec.at_most is not None and len(given) > spec.at_most:
        raise UsageError(f"unexpected argument '{given[spec.at_most]}'", command.name)
    values = given or list(spec.default)
    if spec.at_most == 1:
        return values[0] if values else None
    return values


# -- help ---------------------------------------------------------------------------


def usage_line(command: Command) -> str:
    """``usage: etsb NAME [flags] ...`` for one command."""
    parts = [f"usage: etsb {command.name}"]
    for flag in command.flags:
        spelled = flag.names[0] if flag.kind == SWITCH else f"{flag.names[0]} {flag.metavar or 'VALUE'}"
        parts.append(spelled if flag.required else f"[{spelled}]")
    if command.positional is not None:
        spec = command.positional
        text = spec.metavar + (" ..." if spec.at_most != 1 else "")
        parts.append(text if spec.at_least else f"[{text}]")
    if command.passthrough:
        parts.append("[-- ARGUMENT ...]")
    return " ".join(parts)


def command_help(command: Command) -> str:
    """The ``etsb NAME --help`` text."""
    lines = [usage_line(command), "", command.help]
    if command.positional is not None:
        lines += ["", "arguments:", f"  {command.positional.metavar:28} {command.positional.help}"]
    if command.flags:
        lines += ["", "options:"]
        for flag in command.flags:
            spelled = ", ".join(flag.names) + ("" if flag.kind == SWITCH else f" {flag.metavar or 'VALUE'}")
            lines.append(f"  {spelled}")
            lines.append(f"      {flag.help}" + (" (required)" if flag.required else ""))
    return "\n".join(lines)


def main_help() -> str:
    """The ``etsb --help`` text: every command and its help line."""
    width = max(len(c.name) for c in COMMANDS)
    return "\n".join(["usage: etsb COMMAND [options]  (etsb COMMAND --help for a command's options)", "",
                      "Selective builds of ExecuTorch kernel libraries: select the operators a model needs, "
                      "resolve them to kernels, generate registration code and build a size-trimmed binary.",
                      "", "commands:"]
                     + [f"  {c.name:{width}}  {c.help}" for c in COMMANDS]
                     + ["", "  --version   print etsb's version",
                        "  --cmakedir  print the folder of etsbConfig.cmake (-Detsb_DIR=$(etsb --cmakedir))",
                        "  --root      print etsb's tree, a Bazel repository and module (local_repository(path = ...))"])


# -- the rules between a command's arguments ------------------------------------

def check(command: Command, values: SimpleNamespace) -> None:
    """Raise a UserError at the command (or flag) for the first of ``command``'s
    flag checks or rules that ``values`` break, or for a GROUP flag's group
    with no files."""
    for flag in command.flags:
        value = getattr(values, flag.dest)
        problem = flag.check(value) if flag.check is not None and value is not None else None
        if problem:
            raise UserError(f"{flag.names[0]} {problem}", CommandLine(flag.names[0]))
    given = {dest for dest in vars(values) if _given(command, dest, getattr(values, dest))}
    for rule in command.rules:
        if not _holds(rule, given):
            raise UserError(rule.message, CommandLine(command.name))
    for flag in command.flags:
        if flag.kind == GROUP:
            empty = [name for name, files in getattr(values, flag.dest) if not files]
            if empty:
                raise UserError(f"{flag.names[0]} {empty[0]}: no files follow it", CommandLine(command.name))


def _given(command: Command, dest: str, value: object) -> bool:
    """Whether the argument ``dest`` was given a value (a GROUP flag: a group with files)."""
    if any(flag.dest == dest and flag.kind == GROUP for flag in command.flags):
        return any(files for _, files in value)
    return bool(value)


def _holds(rule: Rule, given: set[str]) -> bool:
    """Whether ``rule`` holds when the arguments ``given`` are."""
    first, *others = rule.dests
    if rule.kind == ANY:
        return bool(given.intersection(rule.dests))
    if rule.kind == EITHER:
        return (first in given) != bool(given.intersection(others))
    return first not in given or others[0] in given  # NEEDS
