"""Freshness by content, not by clock.

ninja rebuilds what is older than its inputs, so a model or yaml replaced by
a file with an older modification time (``cp -p``, ``tar x``, ``rsync -a``)
would leave stale outputs. Every source file an action reads therefore has a
digest stamp under the output root, an implicit input of that action; the
driver rewrites a stamp (and so makes it newer than the outputs) exactly when
the file's content digest changed.

Hashing every input on every build would cost too much (a model can be a
gigabyte), so each source's fingerprint is kept with its digest: modification
time, size, inode and change time. The change time cannot be set back by a
user, so a replaced file always shows a new fingerprint; only then is it
hashed again. Only ``os`` and ``marshal``-friendly values here: the no-op
path runs this.

The kept fingerprints are packed (:func:`pack`): one ``bytes`` value that
loads at once and is compared with the current fingerprints packed the same
way, where a list of thousands of numbers took most of a no-op build's
reading of its state. The records with their digests are opened only when a
fingerprint changed (:func:`seal`, :func:`refresh_sealed`).
"""

from __future__ import annotations

import marshal
import os

from selective_build.driver.layout import DIGESTS


def fingerprint(path: str) -> list[int] | None:
    """``[mtime_ns, size, inode, ctime_ns]`` of ``path``, or None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns]


def fingerprints(root: str, paths) -> list[list[int] | None]:
    """The fingerprint of each of ``paths`` (relative to ``root``, '' for
    ``root`` itself; absolute ones as they are), one directory handle for
    them all: no path joined in Python, the no-op build takes thousands."""
    directory = os.open(root, os.O_RDONLY)
    stat, found = os.stat, []
    try:
        for path in paths:
            try:
                st = stat(path or ".", dir_fd=directory)
            except (OSError, ValueError):
                found.append(None)
                continue
            found.append([st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns])
    finally:
        os.close(directory)
    return found


def pack(values: list) -> bytes:
    """``values`` (lists of numbers, None) as bytes: equal exactly when the
    values are (marshal's format 2 stores no back-references, so the same
    values give the same bytes)."""
    return marshal.dumps(values, 2)


def seal(records: dict) -> list:
    """The source records ``records`` (see :func:`refresh`) as kept: their
    paths, their fingerprints packed, and the records themselves packed (read
    only when a fingerprint changed)."""
    paths = sorted(records)
    return [paths, pack([records[path][:4] for path in paths]), marshal.dumps(records)]


def unseal(sealed: list) -> dict:
    """The source records of :func:`seal`'s ``sealed``."""
    return marshal.loads(sealed[2])


def refresh_sealed(root: str, sealed: list, seen: dict | None = None) -> list | None:
    """:func:`refresh` for records kept by :func:`seal`: None when no
    fingerprint changed (the records are not even read), else the records
    refreshed, sealed again. ``seen`` as for :func:`refresh`."""
    paths, kept = sealed[0], sealed[1]
    current = fingerprints(root, paths)
    if pack(current) == kept:
        if seen is not None:
            seen.update({path: found[0] for path, found in zip(paths, current) if found is not None})
        return None
    records = unseal(sealed)
    refresh(root, paths, records, seen, current)
    return seal(records)


def stamp_path(source: str) -> str:
    """The digest stamp of ``source`` (relative to the workspace root)."""
    return f"{DIGESTS}/{source}"


def _digest(path: str) -> str:
    import hashlib  # only when a file is new or changed

    hasher = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    return hasher.hexdigest()


def _write_stamp(path: str, digest: str) -> None:
    """Write ``digest`` to ``path`` unless it already holds it (a temporary file, then a rename)."""
    try:
        with open(path, encoding="ascii") as handle:
            if handle.read() == digest:
                return
    except (OSError, ValueError):
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="ascii") as handle:
        handle.write(digest)
    os.replace(temporary, path)


def refresh(root: str, sources, records: dict, seen: dict | None = None, taken: list | None = None) -> bool:
    """Bring the digest stamps of ``sources`` (paths relative to ``root``) up
    to date. ``records`` maps a source to its fingerprint and digest as last
    seen, and is updated; returns whether it changed. A source that cannot be
    read is left to ninja, which reports it missing.
    With ``seen``, the modification time of each source found goes there
    (what driver/idle.py would otherwise stat again). ``taken``: the
    fingerprints of ``sources``, when the caller has just taken them."""
    changed = False
    sources = list(sources)
    for source, current in zip(sources, fingerprints(root, sources) if taken is None else taken):
        if current is None:
            continue
        if seen is not None:
            seen[source] = current[0]
        record = records.get(source)
        if record is not None and record[:4] == current:
            continue
        path = os.path.join(root, source)
        try:
            digest = _digest(path)
        except OSError:
            continue
        records[source] = current + [digest]
        _write_stamp(os.path.join(root, stamp_path(source)), digest)
        changed = True
    return changed
