"""The file-system edge: reading inputs with user-facing errors, and atomic
writes (a temporary file in the same directory, then a rename, so a reader never
sees half an output and a failure leaves none). Only the commands and the build
driver call this module."""

from __future__ import annotations

import contextlib
import mmap
import os

from selective_build.model.errors import Location, UserError


def read_bytes(path: str | os.PathLike, what: str = "file") -> bytes:
    """The bytes of ``path``; a missing file, a directory or an unreadable file is a UserError."""
    with _opening(path, what):
        with open(path, "rb") as handle:
            return handle.read()


@contextlib.contextmanager
def mapped(path: str | os.PathLike, what: str = "file"):
    """``path`` memory-mapped read-only for the ``with`` block (``b""`` when
    empty), so that only the pages a reader touches are loaded."""
    with _opening(path, what):
        handle = open(path, "rb")
    with handle:
        if os.fstat(handle.fileno()).st_size == 0:
            yield b""
            return
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            yield data


@contextlib.contextmanager
def _opening(path: str | os.PathLike, what: str):
    """Turn the OS errors of opening ``path`` into UserErrors."""
    try:
        yield
    except FileNotFoundError:
        raise UserError(f"no such {what}", Location(str(path))) from None
    except IsADirectoryError:
        raise UserError(f"is a directory, expected a {what}", Location(str(path))) from None
    except PermissionError:
        raise UserError(f"permission denied reading this {what}", Location(str(path))) from None
    except OSError as error:
        raise UserError(f"cannot read this {what}: {error.strerror}", Location(str(path))) from None


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (see :func:`read_bytes`); other encodings are a UserError."""
    data = read_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise UserError(f"not UTF-8 text (byte 0x{data[error.start]:02x})",
                        Location(str(path), line, column)) from None


_counter = 0


def _holds(path: str, data: bytes) -> bool:
    """Whether the file at ``path`` already holds exactly ``data``."""
    try:
        if os.path.getsize(path) != len(data):
            return False
        with open(path, "rb") as handle:
            return handle.read() == data
    except OSError:
        return False


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, creating the parent directories.
    A file that already holds ``data`` is left untouched, modification time
    included, so that a build tool (ninja's ``restat``) skips what depends on it."""
    path = os.fspath(path)
    if _holds(path, data):
        return
    directory, name = os.path.split(path)
    try:
        os.makedirs(directory or ".", exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UserError("cannot create the output directory: a file is in the way",
                        Location(directory)) from None
    # A name no other writer uses (pid and a counter); O_EXCL guards the rest.
    global _counter
    _counter += 1
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{_counter}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))
