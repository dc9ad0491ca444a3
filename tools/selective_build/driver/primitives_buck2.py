"""The primitive rules as Buck2's prelude declares them: the evaluator's Buck2 dialect.

``etsb-starlark --emulate buck2`` (and ``etsb query --emulate buck2``) checks
rule calls against this table instead of the driver's (:mod:`primitives`), so
that etsb's macros are evaluated as Buck2 would see them through
``rules/private/shim_buck2.bzl``: an attribute Buck2's rule does not declare
(``tags``, ``hdrs``, ``copts``, ``testonly``...) is an error at the BUILD line.

Each rule lists the attributes of Buck2's prelude (``prelude/decls``) that
etsb's rules may call, with their kinds; Buck2 has many more (platform
variants, Apple and Android ones) that no etsb macro uses. Nothing here is
built: the driver analyses only its own dialect.
"""

from __future__ import annotations

from selective_build.driver.primitives import BOOL, STRING, STRING_DICT, STRING_LIST, STRING_LIST_DICT, Attr

# The attributes every Buck2 rule has (Buck2's own, beside the rule's).
_COMMON = {
    "name": Attr(STRING, "the target's name", required=True, configurable=False),
    "visibility": Attr(STRING_LIST, "who may depend on the target ('PUBLIC': everyone)", configurable=False),
    "within_view": Attr(STRING_LIST, "the targets this one may depend on", configurable=False),
    "target_compatible_with": Attr(STRING_LIST, "constraints a configuration must meet", labels=True),
    "compatible_with": Attr(STRING_LIST, "configurations any one of which the target works in", labels=True),
    "default_target_platform": Attr(STRING, "the platform used when none is asked for", labels=True),
    "tests": Attr(STRING_LIST, "the tests of this target", labels=True),
}
# What most of Buck2's prelude rules declare besides.
_DESCRIBED = {
    "labels": Attr(STRING_LIST, "free-form labels (etsb's tags)", configurable=False),
    "licenses": Attr(STRING_LIST, "license files", labels=True),
    "contacts": Attr(STRING_LIST, "who owns the target"),
}
_FLAGS = Attr(STRING_LIST, "flags (with string parameter macros such as $(location ...))")
_SOURCES = Attr(STRING_LIST, "source files or targets", labels=True)
_INCLUDE_DIRS = Attr(STRING_LIST, "include directories relative to the package (for raw headers)")

_RULES: dict[str, dict[str, Attr]] = {
    "genrule": {
        "srcs": _SOURCES,
        "cmd": Attr(STRING, "the shell command ($OUT, $SRCS, $SRCDIR, $(location ...), $(exe ...))"),
        "bash": Attr(STRING, "the command on Linux and macOS (wins over cmd)"),
        "out": Attr(STRING, "the one output file or directory (or outs)"),
        "outs": Attr(STRING_LIST_DICT, "named outputs: name -> [path relative to $OUT] (or out)"),
        "default_outs": Attr(STRING_LIST, "the output a consumer gets without naming one"),
        "env": Attr(STRING_DICT, "environment variables of the command"),
        "type": Attr(STRING, "a category of genrules, for logs and queries"),
        "executable": Attr(BOOL, "the output is a program ($(exe ...), buck2 run)"),
        "remote": Attr(BOOL, "the command may run remotely"),
        "cacheable": Attr(BOOL, "the output may be cached"),
        "enable_sandbox": Attr(BOOL, "run the command in a sandbox"),
        "environment_expansion_separator": Attr(STRING, "the separator of paths in $SRCS"),
        **_DESCRIBED,
    },
    "cxx_library": {
        "srcs": _SOURCES,
        "headers": Attr(STRING_LIST, "headers of its own sources only", labels=True),
        "exported_headers": Attr(STRING_LIST, "headers its dependents include too", labels=True),
        "header_namespace": Attr(STRING, "the path prefix its headers are included under"),
        "raw_headers": Attr(STRING_LIST, "headers found through include directories", labels=True),
        "include_directories": _INCLUDE_DIRS,
        "public_include_directories": Attr(STRING_LIST, "include directories for it and its dependents"),
        "public_system_include_directories": Attr(STRING_LIST, "the same, as system include directories"),
        "deps": Attr(STRING_LIST, "libraries it depends on", labels=True),
        "exported_deps": Attr(STRING_LIST, "libraries its dependents depend on too", labels=True),
        "compiler_flags": _FLAGS,
        "preprocessor_flags": _FLAGS,
        "exported_preprocessor_flags": _FLAGS,
        "linker_flags": _FLAGS,
        "exported_linker_flags": _FLAGS,
        "exported_post_linker_flags": _FLAGS,
        "link_whole": Attr(BOOL, "link every object even if nothing refers to it"),
        "preferred_linkage": Attr(STRING, "'any', 'static' or 'shared'"),
        "reexport_all_header_dependencies": Attr(BOOL, "dependents see its deps' headers"),
        "force_static": Attr(BOOL, "always link it statically"),
        "soname": Attr(STRING, "the shared library's soname"),
        **_DESCRIBED,
    },
    "cxx_binary": {
        "srcs": _SOURCES,
        "headers": Attr(STRING_LIST, "headers of its own sources", labels=True),
        "include_directories": _INCLUDE_DIRS,
        "deps": Attr(STRING_LIST, "libraries it links", labels=True),
        "compiler_flags": _FLAGS,
        "preprocessor_flags": _FLAGS,
        "linker_flags": _FLAGS,
        "link_style": Attr(STRING, "'static', 'static_pic' or 'shared'"),
        **_DESCRIBED,
    },
    "filegroup": {
        "srcs": Attr(STRING_LIST, "the files (or targets whose outputs to include)", labels=True),
        "copy": Attr(BOOL, "copy the files rather than link them"),
        **_DESCRIBED,
    },
    "export_file": {
        "src": Attr(STRING, "the file (default: the target's name)", labels=True),
        "out": Attr(STRING, "the name others see it by"),
        "mode": Attr(STRING, "'reference' or 'copy'"),
        **_DESCRIBED,
    },
    "config_setting": {
        "values": Attr(STRING_DICT, "buckconfig values that must hold ('section.key': value)"),
        "constraint_values": Attr(STRING_LIST, "constraint values that must hold", labels=True),
    },
}
RULES: dict[str, dict[str, Attr]] = {rule: {**_COMMON, **attrs} for rule, attrs in _RULES.items()}
