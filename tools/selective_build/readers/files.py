"""The file-system edge: reading inputs with user-facing errors, and atomic
writes (a temporary file in the same directory, then a rename, so a reader never
sees half an output and a failure leaves none). Only the commands and the build
driver call this module."""

from __future__ import annotations

import mmap
import os

from selective_build.model.errors import Location, UserError

# The largest text input etsb reads (a kernel yaml, a selection, an ops dict):
# ExecuTorch's largest yaml is well under 1 MB.
MAX_TEXT_BYTES = 16 * 2**20


def read_bytes(path: str | os.PathLike, what: str = "file", limit: int | None = None) -> bytes:
    """The bytes of ``path``; a missing file, a directory, something that is
    not a regular file (a device, a pipe), an unreadable file, or one larger
    than ``limit`` bytes is a UserError."""
    try:
        with _open_regular(path, what) as handle:
            data = handle.read() if limit is None else handle.read(limit + 1)
    except OSError as error:
        raise _reading_error(error, path, what) from None
    if limit is not None and len(data) > limit:
        raise UserError(f"larger than {limit // 2**20} MB: not a {what} etsb reads", Location(str(path)))
    return data


def _open_regular(path: str | os.PathLike, what: str):
    """``path`` opened for reading in binary, when it is a regular file (opened
    without blocking, so that a named pipe cannot hang the read)."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "is a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise UserError(f"{kind}, expected a {what}", Location(str(path)))
    return os.fdopen(fd, "rb")


class mapped:
    """``with mapped(path) as data``: ``path`` memory-mapped read-only for the
    block (``b""`` when empty), so that only the pages a reader touches are
    loaded. Opening problems are UserErrors, as for :func:`read_bytes`."""

    def __init__(self, path: str | os.PathLike, what: str = "file") -> None:
        self.path, self.what = path, what
        self.handle = self.map = None

    def __enter__(self):
        try:
            self.handle = _open_regular(self.path, self.what)
        except OSError as error:
            raise _reading_error(error, self.path, self.what) from None
        if os.fstat(self.handle.fileno()).st_size == 0:
            return b""
        self.map = mmap.mmap(self.handle.fileno(), 0, access=mmap.ACCESS_READ)
        return self.map

    def __exit__(self, *exception) -> None:
        if self.map is not None:
            self.map.close()
        self.handle.close()


def _reading_error(error: OSError, path: str | os.PathLike, what: str) -> UserError:
    """An OS error of opening or reading ``path`` as a UserError."""
    where = Location(str(path))
    if isinstance(error, FileNotFoundError):
        return UserError(f"no such {what}", where)
    if isinstance(error, IsADirectoryError):
        return UserError(f"is a directory, expected a {what}", where)
    if isinstance(error, PermissionError):
        return UserError(f"permission denied reading this {what}", where)
    return UserError(f"cannot read this {what}: {error.strerror}", where)


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    """The UTF-8 text of ``path``, at most :data:`MAX_TEXT_BYTES` (see
    :func:`read_bytes`); other encodings are a UserError."""
    data = read_bytes(path, what, MAX_TEXT_BYTES)
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
    included, so that a build tool (ninja's ``restat``) skips what depends on it.
    What the system refuses (a file in the way, no space, a read-only place)
    is a UserError naming the path, and leaves nothing behind."""
    path = os.fspath(path)
    if _holds(path, data):
        return
    directory, name = os.path.split(path)
    try:
        os.makedirs(directory or ".", exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UserError("cannot create the output directory: a file is in the way",
                        Location(directory)) from None
    except OSError as error:
        raise UserError(f"cannot create the output directory: {error.strerror}", Location(directory)) from None
    # A name no other writer uses (pid and a counter); O_EXCL guards the rest.
    global _counter
    _counter += 1
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{_counter}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as error:
        raise UserError(f"cannot write: {error.strerror}", Location(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException as error:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(error, OSError):
            raise UserError(f"cannot write: {error.strerror}", Location(path)) from None
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))
