"""The embedded index's ingest lock: an OS file lock plus the owner and TTL osrag reports.

Rule: the lock is ``flock(LOCK_EX | LOCK_NB)`` on ``<alias>/LOCK`` (``msvcrt``
byte-range locking on Windows), taken on an open file held for as long as the
ingest runs; the file's content names the owner, when it was taken and when
it goes stale (renewed while the ingest runs). The operating system releases
the lock when the process ends, however it ends, so a crashed ingest never
blocks the next one.

* Another **process** holding the lock is never overridden — even past its
  TTL (it is alive; the OS would have released it otherwise): the caller gets
  the holder's owner and times, and :class:`~osrag.errors.LockedError` follows.
* Another owner in **this** process (a second backend, a thread) is refused
  the same way; once its TTL has passed, the lock is taken over, as the ABC
  specifies, and the previous owner's renewal fails loudly.

Invariant: at most one owner per lock file at any moment, across processes
and threads.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import socket
import threading
import time
from pathlib import Path

from osrag.backends.base import LockInfo
from osrag.errors import IndexStateError

try:  # POSIX
    import fcntl

    def _try_exclusive(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # pragma: no cover - Windows
    import msvcrt

    def _try_exclusive(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]


_guard = threading.Lock()
_held: dict[tuple[str, str], int] = {}
"""(lock file, owner) → the open file descriptor holding the OS lock in this process."""


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _key(path: Path) -> str:
    return str(path.resolve())


def _write_record(fd: int, owner: str, ttl: dt.timedelta, acquired: dt.datetime) -> None:
    record = {
        "owner": owner,
        "acquired_at": acquired.isoformat(),
        "expires_at": (_utcnow() + ttl).isoformat(),
        "pid": os.getpid(),
        "host": socket.gethostname(),
    }
    data = json.dumps(record).encode()
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)


def read_holder(path: Path, *, held: bool = False) -> LockInfo | None:
    """Who the lock file says holds the lock (None if it names nobody).

    ``held``: the OS lock is known to be taken, so an empty or half-written file
    means the holder is rewriting it this very moment: read again.
    """
    for attempt in range(20 if held else 1):
        if attempt:
            time.sleep(0.005)
        try:
            record = json.loads(path.read_text(encoding="utf-8") or "null")
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            record = "unreadable"
        if record is None and not held:
            return None
        if isinstance(record, dict):
            try:
                return LockInfo(
                    owner=str(record["owner"]),
                    acquired_at=dt.datetime.fromisoformat(record["acquired_at"]),
                    expires_at=dt.datetime.fromisoformat(record["expires_at"]),
                )
            except (KeyError, TypeError, ValueError):
                pass
    now = _utcnow()
    return LockInfo(
        owner=f"(unknown: {path} does not name its owner)", acquired_at=now, expires_at=now
    )


def try_lock(path: Path, owner: str, ttl: dt.timedelta) -> LockInfo | None:
    """Take the lock for ``owner`` (None) or say who holds it. See the module docstring."""
    key = _key(path)
    with _guard:
        if (key, owner) in _held:
            _write_record(_held[key, owner], owner, ttl, _utcnow())
            return None
        for _attempt in range(2):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise IndexStateError(f"cannot open the lock file {path}: {exc.strerror}") from None
            if _try_exclusive(fd):
                _write_record(fd, owner, ttl, _utcnow())
                _held[key, owner] = fd
                return None
            os.close(fd)
            holder = read_holder(path, held=True)
            assert holder is not None  # held=True never answers "nobody"
            ours = [k for k in _held if k[0] == key]
            if ours and holder.expires_at <= _utcnow():
                for stale in ours:  # a stale lock of this process: take it over
                    _release_fd(_held.pop(stale))
                continue
            return holder
        return holder


def renew_lock(path: Path, owner: str, ttl: dt.timedelta) -> None:
    key = _key(path)
    with _guard:
        fd = _held.get((key, owner))
        if fd is None:
            holder = read_holder(path)
            raise IndexStateError(
                f"lost the ingest lock {path} to {holder.owner if holder else 'nobody'}"
            )
        held = read_holder(path)
        _write_record(fd, owner, ttl, held.acquired_at if held else _utcnow())


def _release_fd(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
    with contextlib.suppress(OSError):
        _unlock(fd)
    with contextlib.suppress(OSError):
        os.close(fd)


def release_lock(path: Path, owner: str) -> None:
    """Release ``owner``'s lock; a lock it does not hold is left alone."""
    with _guard:
        fd = _held.pop((_key(path), owner), None)
        if fd is not None:
            _release_fd(fd)


def release_all(path: Path) -> None:
    """Release every owner in this process holding ``path`` (the index is being removed)."""
    key = _key(path)
    with _guard:
        for held in [k for k in _held if k[0] == key]:
            _release_fd(_held.pop(held))
