"""``etsb cmake-platform``: what etsb's CMake rules (rules/etsb.cmake) take
from the driver when a project is configured, so that the driver's
definitions stay the only ones: the flags of a platform and a configuration
(:mod:`~selective_build.driver.platforms`) and, for an ExecuTorch tree, the
runtime the overlay (rules/executorch_tree/BUILD.overlay) compiles from it:
each C++ library's sources and own flags, the prim ops' and the registry's
sources, and the command writing the program schema's headers.

The overlay is analysed as ``etsb build`` would analyse it, in a scratch
workspace (the caller's folder; the tree is linked there), and every path
comes out absolute. :func:`cmake_variables` turns the result into the
variables CMake reads (``ETSB_PLATFORM_*``, ``ETSB_TREE_*``)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from selective_build.driver.cxx import c_flags
from selective_build.driver.platforms import CONFIGS, PLATFORMS, choice_defines, toolchain
from selective_build.model.records import record

# The overlay's targets etsb's CMake rules build (rules/executorch_tree/BUILD.overlay).
RUNTIME_CORE = "@executorch//:runtime_core"
PRIM_OPS = "@executorch//:prim_ops_sources"
REGISTRY = "@executorch//:registry_sources"
SCHEMA = "@executorch//:program_schema"
# The program loader, with its flatbuffer verifier and without (programs embedded in the binary).
PROGRAMS = ("@executorch//:program", "@executorch//:program_unverified")


@record
class Library:
    """A C++ library of the runtime: its sources, the flags they compile with
    besides the toolchain's, and what a binary linking it adds."""

    name: str
    sources: tuple[str, ...]
    flags: tuple[str, ...]
    link_flags: tuple[str, ...] = ()
    link_whole: bool = False
    link_inputs: tuple[str, ...] = ()  # files the link reads (a linker script its flags name)


@record
class TreeRuntime:
    """ExecuTorch's runtime from a tree, as the overlay defines it."""

    core: Library
    board: tuple[Library, ...]     # the libraries runtime_core depends on (a board's support)
    programs: tuple[Library, ...]  # the program loaders: PROGRAMS' libraries, in order
    includes: tuple[str, ...]      # what everything compiled against it includes
    defines: tuple[str, ...]
    prim_ops: tuple[str, ...]
    registry: tuple[str, ...]
    schema_inputs: tuple[str, ...]
    schema_outputs: tuple[str, ...]
    schema_command: str            # a shell command, run in ``directory``
    directory: str


def tree_runtime(workspace) -> TreeRuntime:
    """The runtime the overlay compiles from ``workspace``'s ExecuTorch tree
    for its platform and configuration (a
    :class:`~selective_build.driver.workspace.Workspace`, whose root is a
    scratch folder)."""
    from selective_build.driver.graph import analyse
    from selective_build.driver.labels import parse_label

    labels = [parse_label(text, "", ()) for text in (RUNTIME_CORE, PRIM_OPS, REGISTRY, SCHEMA, *PROGRAMS)]
    packages = workspace.evaluate(sorted({label.package for label in labels}))
    config = workspace.config()
    graph = analyse(packages, labels, config)
    core, prim_ops, registry, schema, *programs = (graph.nodes[label] for label in labels)
    root = workspace.root
    action = next(a for a in graph.actions if a.outputs == schema.outputs)
    return TreeRuntime(
        core=_library(core, root, len(config.compile_flags)),
        board=tuple(_library(node, root, len(config.compile_flags)) for node in _reached(core)),
        programs=tuple(_library(node, root, len(config.compile_flags)) for node in programs),
        includes=_paths(core.includes, root),
        defines=core.defines,
        prim_ops=_paths(prim_ops.outputs, root),
        registry=_paths(registry.outputs, root),
        schema_inputs=_paths(action.inputs, root),
        schema_outputs=_paths(action.outputs, root),
        schema_command=action.command,
        directory=root,
    )


def _reached(node) -> list:
    """Every C++ library ``node`` depends on, directly or not, each once."""
    found = []
    for library in node.libraries:
        for each in (library, *_reached(library)):
            if each not in found:
                found.append(each)
    return found


def _library(node, root: str, toolchain_flags: int) -> Library:
    """An analysed cxx_library as CMake builds it: its compile flags less the
    toolchain's (the first ``toolchain_flags``), which CMake adds itself."""
    flags = tuple(_absolute_flag(flag, root) for flag in node.compile_flags[toolchain_flags:])
    return Library(node.target.name, _paths((source for source, _ in node.objects), root), flags,
                   tuple(_absolute_flag(flag, root) for flag in node.linkopts), node.link_whole,
                   _paths(node.linker_inputs, root))


def _paths(paths, root: str) -> tuple[str, ...]:
    """``paths`` (relative to the workspace root, or absolute) made absolute."""
    return tuple(os.path.normpath(os.path.join(root, path)) for path in paths)


def _absolute_flag(flag: str, root: str) -> str:
    """A flag naming a workspace-relative directory or file (``-I``, ``-T``) with it made absolute."""
    for prefix in ("-I", "-T"):
        if flag.startswith(prefix) and len(flag) > len(prefix) and not flag[len(prefix):].startswith("/"):
            return prefix + _paths([flag[len(prefix):]], root)[0]
    return flag


def cmake_variables(platform: str, config: str, runtime: TreeRuntime | None) -> Mapping[str, str | tuple[str, ...]]:
    """The variables rules/etsb.cmake reads, by name: the platform's and
    configuration's (``ETSB_PLATFORM_*``) and, given a tree, its runtime's
    (``ETSB_TREE_*``; ``ETSB_TREE_BOARD_LIBRARIES`` names the board's libraries, each
    with its ``ETSB_TREE_<NAME>_*``)."""
    chosen = PLATFORMS[platform]
    tools = toolchain(choice_defines(platform, config), "")
    variables: dict[str, str | tuple[str, ...]] = {
        "ETSB_PLATFORM_NAME": platform,
        "ETSB_PLATFORM_CONFIG": config,
        "ETSB_PLATFORM_CONFIGS": tuple(CONFIGS),
        "ETSB_PLATFORM_COMPILE_OPTIONS": tools.compile_flags,
        # The same for C sources (CMSIS-NN's): without the flags only C++ takes.
        "ETSB_PLATFORM_C_COMPILE_OPTIONS": c_flags(tools.compile_flags),
        "ETSB_PLATFORM_LINK_OPTIONS": tools.link_flags,
        "ETSB_PLATFORM_HOSTED": "ON" if chosen.hosted else "OFF",
        "ETSB_PLATFORM_EMULATOR": chosen.emulator,
        "ETSB_PLATFORM_STRIP": chosen.strip,
    }
    if runtime is None:
        return variables
    for part in (runtime.core, *runtime.board, *runtime.programs):
        prefix = f"ETSB_TREE_{part.name.upper()}"
        variables.update({f"{prefix}_SOURCES": part.sources, f"{prefix}_FLAGS": part.flags,
                          f"{prefix}_LINK_OPTIONS": part.link_flags,
                          f"{prefix}_LINK_WHOLE": "ON" if part.link_whole else "OFF",
                          f"{prefix}_LINK_DEPENDS": part.link_inputs})
    variables.update({
        "ETSB_TREE_BOARD_LIBRARIES": tuple(part.name.upper() for part in runtime.board),
        "ETSB_TREE_INCLUDES": runtime.includes,
        "ETSB_TREE_DEFINES": runtime.defines,
        "ETSB_TREE_PRIM_OPS_SOURCES": runtime.prim_ops,
        "ETSB_TREE_REGISTRY_SOURCES": runtime.registry,
        "ETSB_TREE_SCHEMA_INPUTS": runtime.schema_inputs,
        "ETSB_TREE_SCHEMA_OUTPUTS": runtime.schema_outputs,
        "ETSB_TREE_SCHEMA_COMMAND": runtime.schema_command,
        "ETSB_TREE_DIRECTORY": runtime.directory,
    })
    return variables
