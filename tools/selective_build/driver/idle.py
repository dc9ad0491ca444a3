"""Whether ninja has nothing to do, known without running it.

ninja decides what to run from its ninja file, its logs (``.ninja_log``,
``.ninja_deps``) and the modification times of the files it names: every
path of the ninja file's build lines, of the dyndep files they name, and the
headers its deps log recorded. After a run of ninja that said ``ninja: no
work to do.``, the modification time of each of those files, taken *before*
that run, is kept (with the fingerprints of the ninja file, the logs and
ninja itself, and the targets asked for). While every one is the same, ninja
would see what it saw then and decide the same: nothing to do, and the no-op
build answers without it (parsing a large ninja file is most of ninja's own
no-op). A file changed between this snapshot and ninja's look at it shows a
different time at the next build, which then runs ninja: the snapshot never
hides a change ninja would have seen.

The sources' digest stamps (driver/freshness.py) are the one kind of file
left out, a third of the paths: etsb alone writes them (the workspace's lock
held), and only for a source whose fingerprint changed since the
configuration's last look, when the no-op build runs ninja without asking
this module (driver/fast.py). While no source's fingerprint changed, no
stamp of this configuration's sources changed either.

The paths of a ninja file are read once per ninja file (kept with its
fingerprint). The times are kept packed (freshness.pack) and compared as one
value. Only ``os`` and ``marshal`` here: the no-op path runs this.
"""

from __future__ import annotations

import marshal
import os
import sys

from selective_build.driver.freshness import fingerprint, pack
from selective_build.driver.layout import DIGESTS, idle_file, ninja_file, ninja_graph_file

IDLE_VERSION = 3
# What ninja prints when nothing is out of date.
NO_WORK = "ninja: no work to do."
# The times of a file that is missing.
MISSING = -1
_DEPS_SIGNATURE = b"# ninjadeps\n"
_DEPS_VERSION = 4
# The deps log's numbers are little-endian: read in place where the machine's are too.
_LITTLE_ENDIAN = sys.byteorder == "little"


def _load(root: str, folder: str) -> dict | None:
    try:
        with open(os.path.join(root, idle_file(folder)), "rb") as handle:
            saved = marshal.loads(handle.read())
        return saved if isinstance(saved, dict) and saved.get("version") == IDLE_VERSION else None
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _logs(folder: str) -> list[str]:
    """ninja's logs in the configuration folder (its builddir)."""
    return [f"{folder}/.ninja_log", f"{folder}/.ninja_deps"]


def _fixed(root: str, folder: str, ninja: str, targets) -> list:
    """What must not change besides the files' times: the ninja file, the logs, ninja, the targets."""
    return [fingerprint(os.path.join(root, path)) for path in [ninja_file(folder), *_logs(folder)]] \
        + [fingerprint(ninja), list(targets)]


def holds(root: str, folder: str, ninja: str, targets, known: dict | None = None) -> dict | None:
    """The kept snapshot when ninja would have nothing to do for ``targets``
    of the configuration folder ``folder`` (what :func:`keep` kept beside
    it: ``extra``); None when ninja must run. ``known`` gives the current
    modification time of some paths, taken by the caller a moment ago."""
    saved = _load(root, folder)
    if saved is None or saved["fixed"] != _fixed(root, folder, ninja, targets):
        return None
    return saved if pack(times(root, saved["paths"], known or {})) == saved["times"] else None


def times(root: str, paths, known: dict | None = None) -> list[int]:
    """The modification time (ns) of each path (relative to ``root``), MISSING
    for one that cannot be read; a path in ``known`` (its time) is not looked at again."""
    directory = os.open(root, os.O_RDONLY)
    stat, found, known = os.stat, [], known or {}
    try:
        for path in paths:
            now = known.get(path)
            if now is None:
                try:
                    now = stat(path, dir_fd=directory).st_mtime_ns
                except (OSError, ValueError):
                    now = MISSING
            found.append(now)
    finally:
        os.close(directory)
    return found


def prepare(root: str, folder: str, ninja: str, targets) -> dict | None:
    """The snapshot to keep if the ninja run about to start says it has no
    work (see :func:`keep`): taken now, before it runs, of every file ninja
    reaches from ``targets`` but the digest stamps (see the module's
    docstring). None when the ninja file or the deps log cannot be read as
    expected (ninja then always runs)."""
    fixed = _fixed(root, folder, ninja, targets)
    edges = _graph(root, folder, fixed[0])
    deps = deps_log(os.path.join(root, folder, ".ninja_deps"))
    if edges is None or deps is None:
        return None
    stamps = f"{DIGESTS}/"
    paths = [path for path in reached(root, edges, deps, targets) if not path.startswith(stamps)]
    return {"version": IDLE_VERSION, "fixed": fixed, "paths": paths, "times": pack(times(root, paths)), "extra": None}


def reached(root: str, edges: list, deps: dict, targets) -> list[str]:
    """Every path ninja looks at to bring ``targets`` up to date: the nodes
    reached through the edges that make them (``edges``: outputs, inputs and
    dyndep file of each, see :func:`manifest_edges`), the paths the dyndep
    files of those edges add, and the dependencies the deps log ``deps``
    recorded for their outputs (a generated header leads on to its edge)."""
    producer = {output: index for index, edge in enumerate(edges) for output in edge[0]}
    seen: dict[str, None] = {}
    stack = list(reversed(targets))
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen[node] = None
        index = producer.pop(node, None)
        if index is None:
            continue  # a source, or an edge already taken through another of its outputs
        outputs, inputs, dyndep = edges[index]
        stack.extend(outputs)
        stack.extend(inputs)
        for output in outputs:
            stack.extend(deps.get(output, ()))
        if dyndep:
            try:
                stack.extend(path for edge in manifest_edges(os.path.join(root, dyndep)) for part in edge[:2]
                             for path in part)
            except (OSError, UnicodeDecodeError):
                pass  # not written yet: its own time (MISSING) is watched
    return list(seen)


def _graph(root: str, folder: str, manifest: list | None) -> list | None:
    """The edges of the ninja file of ``folder`` (its fingerprint ``manifest``):
    read once per ninja file, then kept beside it."""
    if manifest is None:
        return None
    path = os.path.join(root, ninja_graph_file(folder))
    try:
        with open(path, "rb") as handle:
            kept = marshal.loads(handle.read())
        if isinstance(kept, dict) and kept.get("version") == IDLE_VERSION and kept.get("manifest") == manifest:
            return kept["edges"]
    except (OSError, ValueError, EOFError, TypeError):
        pass
    try:
        edges = manifest_edges(os.path.join(root, ninja_file(folder)))
    except (OSError, UnicodeDecodeError):
        return None
    _write(path, {"version": IDLE_VERSION, "manifest": manifest, "edges": edges})
    return edges


def _write(path: str, value: object) -> None:
    """Write ``value`` (marshal) to ``path``: a temporary file, then a rename."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as handle:
        handle.write(marshal.dumps(value))
    os.replace(temporary, path)


def keep(root: str, folder: str, snapshot: dict, extra: object = None) -> None:
    """Keep ``snapshot`` (from :func:`prepare`, before a ninja run that said
    NO_WORK), with ``extra`` (what the build printed that the outputs decide)."""
    _write(os.path.join(root, idle_file(folder)), {**snapshot, "extra": extra})


def manifest_edges(path: str) -> list[tuple[tuple[str, ...], tuple[str, ...], str]]:
    """The edges of the ninja (or dyndep) file ``path``: the outputs, the
    inputs (explicit, implicit, order-only) and the dyndep file ('' : none)
    of each, paths unescaped. etsb writes each build line on one line (no
    ``$`` continuations)."""
    edges: list = []
    names: dict[str, str] = {}  # one string per path: the kept graph stores each once
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("build "):
                outputs, inputs = _build_line(line[6:].rstrip("\n"))
                edges.append([tuple(names.setdefault(p, p) for p in outputs),
                              tuple(names.setdefault(p, p) for p in inputs), ""])
            elif line.startswith("  dyndep = ") and edges:
                edges[-1][2] = _unescape(line[len("  dyndep = "):].rstrip("\n"))
    return [tuple(edge) for edge in edges]


def _build_line(text: str) -> tuple[list[str], list[str]]:
    """The outputs (explicit and implicit) and inputs (explicit, implicit,
    order-only, validations) of a build line (after ``build ``)."""
    escaped = "$" in text
    if escaped:  # "$$", "$ " and "$:" stand for '$', ' ' and ':' in a path
        text = text.replace("$$", "\0").replace("$ ", "\1").replace("$:", "\2")
    outputs, _, rest = text.partition(":")
    lists = [[word for word in words.split() if word not in ("|", "||", "|@")]
             for words in (outputs, " ".join(rest.split()[1:]))]  # the rule's name left out
    if escaped:
        lists = [[p.replace("\0", "$").replace("\1", " ").replace("\2", ":") for p in paths] for paths in lists]
    return lists[0], lists[1]


def _unescape(path: str) -> str:
    return path.replace("$ ", " ").replace("$:", ":").replace("$$", "$")


def deps_log(path: str) -> dict[str, tuple[str, ...]] | None:
    """What ninja's deps log ``path`` recorded: each output's dependencies
    (the headers a compile read; the last record of an output wins, as in
    ninja); {} when there is none yet, None when it is not a deps log this
    reader knows (format version 4, ninja 1.10 and later)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return {}
    except OSError:
        return None
    start = len(_DEPS_SIGNATURE) + 4
    if data[:len(_DEPS_SIGNATURE)] != _DEPS_SIGNATURE or \
            int.from_bytes(data[len(_DEPS_SIGNATURE):start], "little") != _DEPS_VERSION:
        return None
    paths: list[str] = []
    found: dict[str, tuple[str, ...]] = {}
    position, end = start, len(data)
    try:
        while position + 4 <= end:
            header = int.from_bytes(data[position:position + 4], "little")
            size = header & 0x7FFFFFFF
            position += 4
            if position + size > end:
                break  # a record cut short (ninja stopped while writing it): ninja drops it too
            record = data[position:position + size]
            position += size
            if header >> 31:  # output id, its time (8 bytes), then the ids of its dependencies
                ids = memoryview(record).cast("I") if _LITTLE_ENDIAN else \
                    [int.from_bytes(record[at:at + 4], "little") for at in range(0, size, 4)]
                found[paths[ids[0]]] = tuple(map(paths.__getitem__, ids[3:]))
            else:  # a path, NUL-padded to 4 bytes, then a checksum
                paths.append(record[:-4].rstrip(b"\0").decode("utf-8", "surrogateescape"))
    except (IndexError, TypeError):  # an id with no path, a record not of whole numbers: not a log it knows
        return None
    return found
