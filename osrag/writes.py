"""One write discipline for every file osrag writes: never through a link, never half.

Caches (the model cache's graphs, records and digest memo; the vector cache), the
embedded index's own files (its marker, its alias pointer, its generation records, its
lock files, its record store), evaluation outputs (runs, span judgments, the HTML
report) and the development nodes' files are all written the same way:

1. **The folder is what it should be**: a folder (a link given as the folder itself is
   followed: that is a configuration's choice), not writable by everyone unless it is
   sticky (``/tmp``): else :class:`UnsafeFileError`. (Its owner is not checked: the
   development nodes' folders belong to the engine's service user.)
2. **The destination is not a link**, nor anything but a regular file: checked with
   ``lstat``; a link planted there is refused with :class:`UnsafeFileError` naming it,
   never written through, never replaced silently.
3. **A temporary name nobody can predict or plant**: ``tempfile.mkstemp`` in the
   destination's folder creates it with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (a random
   name; an existing file or link of that name is never opened).
4. Written, ``fsync``-ed, then ``os.replace``-d onto the destination (the old file or
   the new one, never half), and the folder ``fsync``-ed.

What osrag reads back to overwrite it (the digest memo, a graph's record, the alias
pointer) is read with :func:`read_own`: ``O_NOFOLLOW``, a regular file, or refused.
Files that must stay in place (a lock, a log appended to) are opened with
:func:`open_in_place`: ``O_NOFOLLOW``, checked to be a regular file. SQLite opens its
database by path and follows a link there, so every store checks the database and its
journal files with :func:`check_destination` before it connects (SQLite itself opens
the journal files with ``O_NOFOLLOW``).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from osrag.errors import UnsafeFileError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_DEFAULT_MODE = 0o666 & ~_umask()
"""The mode ``open()`` would give a new file (read once, at import: ``umask`` cannot be
read without setting it)."""


def check_folder(folder: Path) -> None:
    """Refuse a folder that is not one, or that someone else could fill (see rule 1)."""
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        raise
    except OSError as exc:  # a path through a file, a loop of links, no permission
        raise UnsafeFileError(f"{folder}: cannot be read as a folder ({exc.strerror})") from None
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeFileError(f"{folder}: not a folder, so osrag writes nothing in it")
    if info.st_mode & stat.S_IWOTH and not info.st_mode & stat.S_ISVTX:
        raise UnsafeFileError(
            f"{folder}: anyone may write in it (mode {stat.filemode(info.st_mode)}), so "
            "osrag writes nothing in it: make it private or sticky"
        )


def check_destination(path: Path) -> os.stat_result | None:
    """Refuse ``path`` when it is a link or anything but a regular file (rule 2), and its
    folder when rule 1 fails; the destination's ``lstat`` (None: it does not exist)."""
    check_folder(path.parent)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeFileError(
            f"{path}: a symbolic link where osrag writes a file (to {os.readlink(path)}): "
            "not written through; remove the link"
        )
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFileError(f"{path}: not a regular file, so osrag does not write over it")
    return info


def check_sqlite(path: Path) -> None:
    """:func:`check_destination` of a SQLite database and of its journal files."""
    check_destination(path)
    for suffix in SQLITE_COMPANIONS:
        check_destination(path.with_name(path.name + suffix))


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (not every platform opens a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def writing(
    path: Path, *, binary: bool = False, encoding: str = "utf-8", newline: str | None = None
) -> Iterator[IO[Any]]:
    """A handle on a fresh temporary file beside ``path``; when the block ends without an
    exception, it is fsync-ed and replaces ``path`` (rules 1–4). On an exception nothing
    changes at ``path`` and the temporary file is removed."""
    path = Path(path)
    existing = check_destination(path)
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else _DEFAULT_MODE
    fd, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        os.fchmod(fd, mode)
        with (
            os.fdopen(fd, "wb")
            if binary
            else os.fdopen(fd, "w", encoding=encoding, newline=newline)
        ) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        check_destination(path)  # planted while this was written: still never followed
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
    fsync_folder(path.parent)


def write_file(path: Path, data: bytes | str, *, encoding: str = "utf-8") -> None:
    """Write ``data`` to ``path`` whole, never through a link (see the module docstring)."""
    if isinstance(data, str):
        data = data.encode(encoding)
    with writing(path, binary=True) as handle:
        handle.write(data)


def replace_with(staged: Path, path: Path) -> None:
    """Move ``staged`` (a file osrag made in a private folder beside ``path``) onto
    ``path``: the destination checked first (rules 1–2), then ``os.replace``."""
    check_destination(path)
    os.replace(staged, path)
    fsync_folder(path.parent)


def read_own(path: Path) -> bytes:
    """The bytes of a file osrag wrote and may overwrite, never read through a link:
    ``FileNotFoundError`` when it is absent, :class:`UnsafeFileError` when it is a link
    or not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafeFileError(
                f"{path}: a symbolic link where osrag keeps a file: not read; remove the link"
            ) from None
        raise exc from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise UnsafeFileError(f"{path}: not a regular file where osrag keeps one: not read")
        return handle.read()


def open_in_place(path: Path, flags: int = os.O_RDWR, mode: int = 0o600) -> int:
    """A descriptor on ``path`` opened (created when missing) without following a link,
    for files kept in place — a lock, a log appended to; refused unless a regular file."""
    check_folder(path.parent)
    try:
        fd = os.open(path, flags | os.O_CREAT | _NOFOLLOW | _NONBLOCK | _CLOEXEC, mode)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafeFileError(
                f"{path}: a symbolic link where osrag keeps a file: not opened; remove the link"
            ) from None
        raise UnsafeFileError(f"{path}: cannot be opened ({exc.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafeFileError(f"{path}: not a regular file where osrag keeps one")
    os.set_blocking(fd, True)
    return fd
