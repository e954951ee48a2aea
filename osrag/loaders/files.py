"""Open one corpus file safely: regular files inside the corpus folder only, bounded reads.

Rule (:func:`open_corpus_file`):

- the path is resolved (every symbolic link on the way followed); unless
  ``follow_symlinks`` is set, a path that resolves outside the corpus folder is
  refused without being opened, naming where it leads;
- what it resolves to must be a regular file: a device (``/dev/zero``), a FIFO,
  a socket or a folder is refused without being opened;
- the resolved path is opened with ``O_NOFOLLOW`` (where the platform has it)
  and ``O_NONBLOCK``, and the open descriptor is checked again with ``fstat``
  (and, on Linux, where ``/proc/self/fd`` says it points): a file swapped for a
  link, a FIFO or a device between the walk and the open is refused, never read;
- a file larger than ``max_file_bytes`` is refused before any byte is read, and
  no read takes more than ``max_file_bytes`` (a file growing meanwhile is refused).
"""

from __future__ import annotations

import os
import stat
from io import BufferedReader
from pathlib import Path

from osrag.loaders.base import UnreadableFile
from osrag.loaders.limits import OverLimit, ReadOptions

__all__ = ["open_corpus_file", "read_bounded"]

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def open_corpus_file(base: Path, path: Path, options: ReadOptions) -> BufferedReader:
    """``path`` (in the corpus folder ``base``) opened for reading, or :class:`UnreadableFile`."""
    root = os.path.realpath(base)
    try:
        link = os.lstat(path)
    except OSError as exc:
        raise UnreadableFile(f"unreadable: {exc.strerror or exc}") from None
    resolved = os.path.realpath(path)
    is_link = stat.S_ISLNK(link.st_mode)
    if not options.follow_symlinks and not _inside(resolved, root):
        raise UnreadableFile(
            f"a symbolic link to {resolved}, outside the corpus folder: not read "
            "(follow_symlinks / --follow-symlinks reads such links)"
        )
    try:
        target = os.stat(resolved)
    except OSError as exc:
        what = "unreadable: a symbolic link to a missing file" if is_link else "unreadable"
        raise UnreadableFile(f"{what}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(target.st_mode):
        via = f"a symbolic link to {resolved}, " if is_link else ""
        raise UnreadableFile(f"{via}{_kind(target.st_mode)}, not a regular file: not read")
    _check_size(target.st_size, options)
    try:
        fd = os.open(resolved, _OPEN_FLAGS)
    except OSError as exc:
        raise UnreadableFile(f"unreadable: {exc.strerror or exc}") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise UnreadableFile(f"{_kind(opened.st_mode)}, not a regular file: not read")
        if not options.follow_symlinks:
            _check_descriptor(fd, root)
        _check_size(opened.st_size, options)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _check_size(size: int, options: ReadOptions) -> None:
    if size > options.max_file_bytes:
        raise OverLimit("max_file_bytes", options.max_file_bytes, f"{size:,} bytes:")


def _check_descriptor(fd: int, root: str) -> None:
    """On Linux: the open file is inside ``root`` (a folder on the way swapped for a link
    after the path was resolved is caught here)."""
    try:
        where = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return  # no /proc: the resolved-path check above is what there is
    if where.startswith("/") and not _inside(where, root):
        raise UnreadableFile(f"opened as {where}, outside the corpus folder: not read")


def read_bounded(file: BufferedReader, limit: int, what: str = "") -> bytes:
    """The rest of ``file``, refused with :class:`OverLimit` past ``limit`` bytes."""
    data = file.read(limit + 1)
    if len(data) > limit:
        raise OverLimit("max_file_bytes", limit, what or "the file grew while being read:")
    return data
