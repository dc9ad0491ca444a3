"""Precompiled headers for a library's compiles (g++ only): the headers every
source of the library includes, named by its ``etsb_precompile=`` tags
(an et_kernel_library's ``precompiled_headers``), parsed once per
library and set of flags into a ``.gch`` that each compile then loads instead
of parsing them again.

GCC uses a precompiled header only as the first thing a translation unit
includes, and only when it was built with the compile's flags. So the header
written here starts with the compile's own forced includes (``-include FILE``:
a dtype-selective build's ``selected_op_variants.h``, which must come before
ExecuTorch's headers), then includes the tagged headers, and one ``-include``
of it replaces the forced ones; the ``.gch`` is built with exactly the
compile's other flags, and is an input of every compile using it. The
compiler sees the same text as before, the tagged headers only earlier (every
source includes them anyway): the objects are the same bytes with or without
it (tests/test_pch.py). A header whose place changes what the compiler emits
must not be tagged: ahead of ExecuTorch's own op_var.cpp, even exec_aten.h
changes the order of its functions in the object.
A compile that the ``.gch`` does not fit falls back to the header's text,
with GCC's -Winvalid-pch warning.

Under ccache, a compile using a precompiled header is cached only with the
sloppiness ``pch_defines,time_macros`` (otherwise ccache runs the compiler
and counts "could not use precompiled header"): those compiles run with it
added to the sloppiness ccache has already. And ccache would hash the whole
``.gch`` (about 40 MB) on every lookup, as much CPU as a hit otherwise takes
five times over: a checksum of it is written beside it, which ccache hashes
instead (``pch_external_checksum``).

Pure. ``ETSB_PCH=0`` turns precompiled headers off (``Config.precompiled_headers``,
read with the compile launcher in driver/platforms.py)."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable

from selective_build.driver.analysis import Action, Config
from selective_build.driver.layout import TAG_NOT_PRECOMPILED, TAG_PRECOMPILE
from selective_build.model.records import record

# The folder, in a target's object folder, of its precompiled headers (objects there are files named *.o).
FOLDER = "_pch"
# The fewest sources a library compiles for a precompiled header to pay: making
# one of ExecuTorch's kernel_includes.h costs about 1.3 s of CPU, and each
# compile reading it saves about 0.25 s (g++ 12, -O2). (A library whose objects another
# compiles again counts all its sources, though its selection may take fewer.) Libraries
# with fewer share one with the other libraries' compiles of the same headers and flags
# (driver/pch_shared.py).
MIN_SOURCES = 6
# What the compiler driver is called when it is GCC's (g++, aarch64-linux-gnu-g++, g++-12).
_GCC = re.compile(r"(?:.*-)?g\+\+(?:-[0-9.]+)?")
# A header as #include spells it.
_SPELLING = re.compile(r'<[^<>"\s]+>|"[^<>"\s]+"')
# ccache's settings without which it runs, uncached, every compile using one (`man ccache`).
_CCACHE_SLOPPINESS = "pch_defines,time_macros"


@record
class Precompiled:
    """A precompiled header for one library and flag set: the actions that
    make it, and how its compiles take it."""

    actions: tuple[Action, ...]
    flags: tuple[str, ...]     # the compiles' flags: the forced includes replaced by the header
    gch: str                   # the compiled header: an input of every compile that uses it
    launcher: tuple[str, ...]  # what those compiles run under (ccache with the sloppiness it needs)


def tagged_headers(tags: Iterable[str]) -> tuple[str, ...]:
    """The headers a target's ``etsb_precompile=`` tags name, as ``#include``
    spells them (``<a/b.h>`` or ``"a/b.h"``), in their order."""
    return tuple(tag[len(TAG_PRECOMPILE):] for tag in tags if tag.startswith(TAG_PRECOMPILE))


def not_precompiled(tags: Iterable[str], package: str) -> frozenset[str]:
    """The sources (workspace-relative) a target's ``etsb_not_precompiled=``
    tags name: those that include something else before its tagged headers
    (a precompiled header ahead of them could change their objects)."""
    return frozenset(f"{package}/{tag[len(TAG_NOT_PRECOMPILED):]}" if package else tag[len(TAG_NOT_PRECOMPILED):]
                     for tag in tags if tag.startswith(TAG_NOT_PRECOMPILED))


def bad_spellings(headers: Iterable[str]) -> tuple[str, ...]:
    """Those of ``headers`` not spelled as ``#include`` spells a header."""
    return tuple(header for header in headers if not _SPELLING.fullmatch(header))


def is_gcc(cxx: str) -> bool:
    """Whether the compiler driver ``cxx`` is GCC's, by its name (another
    compiler, or a name that does not say, gets no precompiled header)."""
    return bool(_GCC.fullmatch(os.path.basename(cxx)))


def precompile(config: Config, directory: str, headers: tuple[str, ...], flags: tuple[str, ...],
               order_only: tuple[str, ...], sources: int, label: str) -> Precompiled | None:
    """The precompiled header of ``headers`` for compiles with ``flags``,
    kept in ``directory``; None where there is none to use: switched off, no
    header named, not GCC, fewer than ``MIN_SOURCES`` ``sources``, or flags
    whose forced includes cannot move into it (``-includeFILE`` in one word)."""
    if not (config.precompiled_headers and headers and sources >= MIN_SOURCES and is_gcc(config.cxx)):
        return None
    split = split_forced_includes(flags)
    if split is None:
        return None
    rest, forced = split
    header = f"{directory}/pch.h"
    gch = f"{header}.gch"
    lines = header_lines(forced, headers, directory)
    write = Action((header,), (), "printf '%s\\n' " + " ".join(shlex.quote(line) for line in lines)
                   + f" > {shlex.quote(header)}", f"PCH header {header} ({label})")
    launcher = ccache_launcher(config.launcher)
    command = " ".join([*launcher, config.cxx, *(shlex.quote(f) for f in rest), "-MMD -MF", shlex.quote(f"{gch}.d"),
                        "-x c++-header", shlex.quote(header), "-o", shlex.quote(gch)])
    if launcher != config.launcher:
        command = _with_checksum(command, gch, config.launcher[0])
    build = Action((gch,), (header,), command, f"PCH {gch} ({label})", order_only=order_only, depfile=True)
    return Precompiled((write, build), (*rest, "-Winvalid-pch", "-include", header), gch, launcher)


def _with_checksum(command: str, gch: str, ccache: str) -> str:
    """``command`` (making ``gch`` under ccache) followed by the checksum
    ccache hashes instead of the 40 MB file on each lookup (``<gch>.sum``,
    ``pch_external_checksum``); removed first, so that it never outlives its
    ``.gch`` (without it ccache hashes the ``.gch``)."""
    checksum = shlex.quote(f"{gch}.sum")
    return (f"rm -f {checksum} && {command} && {shlex.quote(ccache)} --checksum-file {shlex.quote(gch)} "
            f"> {checksum}.tmp && mv {checksum}.tmp {checksum}")


def split_forced_includes(flags: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``flags`` without their ``-include FILE`` pairs, and those files in
    order; None when a flag forces an include in another spelling."""
    rest, forced, words = [], [], iter(flags)
    for flag in words:
        if flag == "-include":
            forced.append(next(words, ""))
        elif flag.startswith(("-include", "-imacros")) or flag == "-include-pch":
            return None
        else:
            rest.append(flag)
    if "" in forced:
        return None
    return tuple(rest), tuple(forced)


def header_lines(forced: tuple[str, ...], headers: tuple[str, ...], directory: str) -> tuple[str, ...]:
    """The precompiled header's lines: the forced includes (found as
    ``-include`` finds them, from the working directory: spelled relative to
    the header's ``directory``), then ``headers``."""
    includes = [f'"{path if os.path.isabs(path) else os.path.relpath(path, directory)}"' for path in forced]
    return ("// Generated by etsb build (driver/pch.py): what each compile of the library includes first.",
            *(f"#include {spelled}" for spelled in (*includes, *headers)))


def ccache_launcher(launcher: tuple[str, ...]) -> tuple[str, ...]:
    """``launcher`` for compiles that read a precompiled header: when it is
    ccache, with ccache's present sloppiness (``ccache -k``: its
    configuration and environment) plus what ccache needs for them, and
    reading the header's checksum file instead of the header."""
    if not launcher or os.path.basename(launcher[0]) != "ccache":
        return launcher
    return (f'CCACHE_SLOPPINESS="$({shlex.quote(launcher[0])} -k sloppiness),{_CCACHE_SLOPPINESS}"',
            "CCACHE_PCH_EXTSUM=1", *launcher)
