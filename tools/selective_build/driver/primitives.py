"""The primitive rules a BUILD file may call in etsb's driver, declared once.

For each rule, every attribute with its kind, whether it is required, whether
it holds labels, and, for Buck2's and Bazel's other spellings, the attribute
it stands for (``compiler_flags`` is ``copts``). The Go evaluator checks calls
against this table (its ``rules_table.go`` is generated from it:
``python -m selective_build.driver.rules_table > tools/starlark/rules_table.go``,
and a test keeps it current), and the graph reads attributes through it, so
an attribute is either honoured or refused: none is accepted and dropped.
"""

from __future__ import annotations

from selective_build.model.records import record

# Attribute kinds (the Go evaluator's names).
STRING = "string"
BOOL = "bool"
STRING_LIST = "string_list"
STRING_DICT = "string_dict"
STRING_LIST_DICT = "string_list_dict"  # Buck2's genrule outs: name -> [path]


@record
class Attr:
    """One attribute of a primitive rule.

    ``same_as`` names the attribute this one is another spelling of (their
    values are joined). ``inert`` marks attributes that are checked but do not
    change what is built (``visibility``: the driver does not enforce it).
    Attributes that are not ``configurable`` take no ``select()``, as in Bazel."""

    kind: str
    doc: str
    required: bool = False
    non_empty: bool = False
    labels: bool = False
    same_as: str = ""
    inert: bool = False
    configurable: bool = True


_COMMON = {
    "name": Attr(STRING, "the target's name", required=True, configurable=False),
    "tags": Attr(STRING_LIST, "free-form tags; 'manual' keeps the target out of '...' and ':all'",
                 configurable=False),
    "labels": Attr(STRING_LIST, "Buck2's spelling of tags", same_as="tags", configurable=False),
    "visibility": Attr(STRING_LIST, "who may depend on the target (not enforced by the driver)", inert=True,
                       configurable=False),
    "licenses": Attr(STRING_LIST, "license kinds (recorded, no effect on the build)", inert=True,
                     configurable=False),
    "testonly": Attr(BOOL, "only test targets may depend on it (not enforced by the driver)", inert=True,
                     configurable=False),
}
_SOURCES = Attr(STRING_LIST, "source files or targets", labels=True)
_COPTS = Attr(STRING_LIST, "compiler flags for the target's own sources")
_LINKOPTS = Attr(STRING_LIST, "linker flags")
_DEFINES = Attr(STRING_LIST, "preprocessor definitions (NAME or NAME=VALUE)")
_INCLUDES = Attr(STRING_LIST, "include directories, relative to the package")

RULES: dict[str, dict[str, Attr]] = {
    "genrule": {
        "srcs": _SOURCES,
        "outs": Attr(STRING_LIST, "output files, relative to the package", required=True, non_empty=True),
        "cmd": Attr(STRING, "the shell command, with Bazel's make variables", required=True),
        "tools": Attr(STRING_LIST, "programs (and their files) that cmd runs", labels=True),
        "message": Attr(STRING, "the progress message shown while the command runs"),
    },
    "cxx_library": {
        "srcs": _SOURCES,
        "hdrs": Attr(STRING_LIST, "headers that dependents may include", labels=True),
        "headers": Attr(STRING_LIST, "Buck2's spelling of hdrs", labels=True, same_as="hdrs"),
        "exported_headers": Attr(STRING_LIST, "Buck2's spelling of hdrs", labels=True, same_as="hdrs"),
        "deps": Attr(STRING_LIST, "C++ libraries it depends on", labels=True),
        "exported_deps": Attr(STRING_LIST, "Buck2's spelling of deps", labels=True, same_as="deps"),
        "copts": _COPTS,
        "compiler_flags": Attr(STRING_LIST, "Buck2's spelling of copts", same_as="copts"),
        "preprocessor_flags": Attr(STRING_LIST, "Buck2's preprocessor flags for its own sources",
                                   same_as="copts"),
        "linkopts": Attr(STRING_LIST, "linker flags for every binary that links it"),
        "linker_flags": Attr(STRING_LIST, "Buck2's spelling of linkopts", same_as="linkopts"),
        "exported_linker_flags": Attr(STRING_LIST, "Buck2's spelling of linkopts", same_as="linkopts"),
        "defines": Attr(STRING_LIST, "preprocessor definitions for it and its dependents"),
        "includes": Attr(STRING_LIST, "include directories (relative to the package) for it and its dependents"),
        "include_directories": Attr(STRING_LIST, "Buck2's spelling of includes", same_as="includes"),
        "link_whole": Attr(BOOL, "link every object even if nothing refers to it"),
        "alwayslink": Attr(BOOL, "Bazel's spelling of link_whole", same_as="link_whole"),
        "objects_of": Attr(STRING_LIST, "libraries whose objects this one holds instead of linking them whole: "
                           "those of the sources `object_list` names (compiled again with this target's copts "
                           "when it has any)", labels=True),
        "object_list": Attr(STRING, "a file listing, one path a line, the sources of `objects_of` to take; only "
                            "they are compiled (a line `=path`: as its library compiles it, even where this "
                            "target has flags of its own)", labels=True),
        "linker_scripts": Attr(STRING_LIST, "GNU ld scripts every binary that links it takes as link inputs "
                               "(e.g. generated, naming the libraries to link)", labels=True),
        "linker_inputs": Attr(STRING_LIST, "files a linker script may name: inputs of every link that takes it "
                              "(shared libraries among them are found at run time like the others)", labels=True),
    },
    "cxx_binary": {
        "srcs": _SOURCES,
        "deps": Attr(STRING_LIST, "C++ libraries it links", labels=True),
        "copts": _COPTS,
        "compiler_flags": Attr(STRING_LIST, "Buck2's spelling of copts", same_as="copts"),
        "preprocessor_flags": Attr(STRING_LIST, "Buck2's preprocessor flags for its own sources",
                                   same_as="copts"),
        "linkopts": _LINKOPTS,
        "linker_flags": Attr(STRING_LIST, "Buck2's spelling of linkopts", same_as="linkopts"),
        "defines": _DEFINES,
        "includes": _INCLUDES,
        "include_directories": Attr(STRING_LIST, "Buck2's spelling of includes", same_as="includes"),
    },
    "filegroup": {
        "srcs": Attr(STRING_LIST, "the files (or targets whose outputs to include)", labels=True),
    },
    "export_file": {
        "src": Attr(STRING, "the file, relative to the package (default: the target's name)", labels=True),
    },
    "config_setting": {
        "values": Attr(STRING_DICT, "settings that must hold; only 'define': 'NAME=VALUE'"),
        "define_values": Attr(STRING_DICT, "--define NAME=VALUE pairs that must all hold"),
    },
}
RULES = {rule: {**_COMMON, **attrs} for rule, attrs in RULES.items()}


def label_attrs(rule: str) -> tuple[str, ...]:
    """The attributes of ``rule`` that hold labels (every spelling)."""
    return tuple(name for name, attr in RULES.get(rule, {}).items() if attr.labels)


def canonical_attrs(rule: str, attrs: dict) -> dict:
    """``attrs`` (as the evaluator recorded them) under canonical names: the
    values of every spelling joined, in the table's order; bools or-ed. The
    evaluator has already refused attributes the table does not have."""
    result: dict = {}
    for name, spec in RULES[rule].items():
        if name not in attrs:
            continue
        target = spec.same_as or name
        value = attrs[name]
        if target not in result:
            result[target] = value
        elif spec.kind == BOOL:
            result[target] = result[target] or value
        else:
            result[target] = _joined(result[target], value)
    return result


def joined_list(value) -> list:
    """A non-configurable list attribute's value (spellings joined) as one list."""
    if isinstance(value, dict):
        return [item for part in value["$select"] for item in part]
    return list(value or ())


def _joined(first, second):
    """Two list values (plain lists or select() values) as one."""
    parts = []
    for value in (first, second):
        parts.extend(value["$select"] if isinstance(value, dict) and "$select" in value else [value])
    return {"$select": parts}
