"""Precompiled headers shared across libraries: the compiles of libraries
too small for one of their own (fewer than ``pch.MIN_SOURCES`` sources, such
as each registration library's one ``register_kernels.cpp``) that tag the
same headers and compile with the same flags read one precompiled header made
for all of them, when there are enough of them in the whole build for it to
pay (``pch.MIN_SOURCES`` compiles, as for one library's: in //examples/...,
making the registration sources' header costs 1.6-1.9 s of CPU, and each
compile reading it takes 0.34-0.35 s instead of 0.72-0.83 s; g++ 12, -O2).
So a build of many models' binaries parses the registration sources' common
headers once per flag set, and a build of one or two binaries makes no header
that would cost more than it saves. A header made stays in use: a later build
of fewer of its compiles reads it too (``kept``).

The header is what :func:`~selective_build.driver.pch.precompile` makes for
one library, kept in a folder named by a digest of its headers and flags (the
same whatever the order the targets are analysed in), built only after the
generated headers that every one of its compiles needs first. Pure, but for
asking ``config.exists`` whether a header was made."""

from __future__ import annotations

import hashlib

from selective_build.driver.analysis import Config
from selective_build.driver.pch import FOLDER, MIN_SOURCES, Precompiled, precompile
from selective_build.model.records import record


@record
class Sharer:
    """A compile that could read a shared precompiled header: what its
    action and a precompiled header for it are made of."""

    source: str
    obj: str
    label: str                    # the target compiling it
    headers: tuple[str, ...]      # its library's tagged headers, as #include spells them
    flags: tuple[str, ...]
    order_only: tuple[str, ...]   # the headers that must exist before it compiles


@record
class Shared:
    """A precompiled header shared by ``users``."""

    precompiled: Precompiled
    users: tuple[Sharer, ...]


def share(config: Config, sharers: list[Sharer]) -> tuple[Shared, ...]:
    """The shared precompiled headers of ``sharers``: one for each set of
    tagged headers and flags that at least ``MIN_SOURCES`` compiles have (each
    compile once), or fewer when an earlier build made its header (it is on
    disk: see ``kept``), in the order of their folders."""
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], dict[str, Sharer]] = {}
    for sharer in sharers:
        groups.setdefault((sharer.headers, sharer.flags), {}).setdefault(sharer.obj, sharer)
    made = []
    for (headers, flags), by_object in groups.items():
        users = tuple(by_object[obj] for obj in sorted(by_object))
        digest = hashlib.sha256("\0".join((*headers, "", *flags)).encode()).hexdigest()[:16]
        others = [frozenset(user.order_only) for user in users[1:]]
        order_only = tuple(path for path in users[0].order_only if all(path in other for other in others))
        directory = f"{config.obj}/{FOLDER}/shared-{digest}"
        # precompile's gate counts the compiles a header serves; one an earlier build made serves these few too
        sources = max(len(users), MIN_SOURCES) if kept(config, directory) else len(users)
        precompiled = precompile(config, directory, headers, flags, order_only, sources,
                                 f"shared by {len(users)} compiles")
        if precompiled:
            made.append(Shared(precompiled, users))
    return tuple(sorted(made, key=lambda shared: shared.precompiled.gch))


def kept(config: Config, directory: str) -> bool:
    """Whether the shared header of ``directory`` is on disk, made by an
    earlier build of enough compiles: then a build of fewer of them reads it
    too, so that building part of what was built (one model of many) does
    not compile their sources again without it, nor the next build of all of
    them again with it (a first build of part, then of all, compiles the
    part's sources again once, through the header then made). Their objects
    are the same bytes either way (tests/test_pch_shared.py); only the
    commands, which ninja compares, differ."""
    return config.exists(f"{directory}/pch.h.gch")
