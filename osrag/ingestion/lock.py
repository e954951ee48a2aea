"""One writer per alias: the ingest lock, a record in the alias's record store.

Taking it is one conditional write (``create`` only if absent — ``op_type=create``
on OpenSearch, a primary key in SQLite), so two ingests can never both hold it.
The record names its owner: host, process id, the process's start time and a
random token, and when it goes stale (``ttl`` after the last renewal; an
ingest renews it as it goes).

What happens to a lock whose owner is gone:

* **owner on this host, process no longer running** (killed, crashed): the
  lock is broken at once, with a warning naming the dead process — nobody
  waits for its TTL;
* **owner on this host, still running**: the lock is held, even past its TTL
  (the process may be slow, it is not gone);
* **owner on another host**: the lock is held until its TTL has passed, then
  taken over (that host's processes cannot be checked from here).

By hand: ``osrag index unlock`` breaks a lock whose owner is dead or stale, and
``osrag index unlock --force`` breaks any lock (only when you know its ingest
is gone: a live ingest that loses its lock stops at its next renewal).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import socket
import time
import uuid
from types import TracebackType

from pydantic import BaseModel

from osrag.engines.base import RecordConflict, RecordStore
from osrag.errors import IndexStateError, LockedError
from osrag.pids import pid_alive

log = logging.getLogger("osrag.ingestion.lock")

_HELD: set[str] = set()
"""Owners held by :class:`IngestLock` objects of this process right now: a record that
names this process but none of these was left by an ingest of this process that could
not release it (the cluster was down), and is as dead as a crashed process's."""

LOCK, LOCK_KEY = "lock", "ingest"
DEFAULT_TTL = dt.timedelta(minutes=10)


class LockRecord(BaseModel):
    """Who holds the ingest lock of an alias, since when, and until when it is fresh."""

    owner: str
    host: str
    pid: int
    process_start: str
    acquired_at: dt.datetime
    expires_at: dt.datetime

    def describe(self) -> str:
        return (
            f"{self.owner} (pid {self.pid} on {self.host}, since "
            f"{self.acquired_at:%Y-%m-%d %H:%M:%S} UTC, stale after "
            f"{self.expires_at:%H:%M:%S} UTC)"
        )


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), or "" where
    that cannot be read. Tells a dead owner from a new process that reused its pid."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return ""
    return stat.rpartition(")")[2].split()[19]


def owner_alive(record: LockRecord) -> bool | None:
    """True/False for an owner on this host; None when it runs elsewhere (unknowable)."""
    if record.host != socket.gethostname():
        return None
    if record.pid == os.getpid():
        return record.owner in _HELD
    if not pid_alive(record.pid):
        return False
    started = process_start(record.pid)
    return not (record.process_start and started and started != record.process_start)


def holder(store: RecordStore) -> LockRecord | None:
    """The current lock record, if any."""
    found = store.get(LOCK, LOCK_KEY)
    return LockRecord.model_validate(found.data) if found else None


def break_lock(store: RecordStore, *, force: bool = False) -> LockRecord | None:
    """Remove a lock whose owner is dead or stale (any lock with ``force``).

    Returns the record removed, None when there was no lock. Raises
    :class:`LockedError` for a live, fresh owner without ``force``.
    """
    found = store.get(LOCK, LOCK_KEY)
    if found is None:
        return None
    record = LockRecord.model_validate(found.data)
    alive = owner_alive(record)
    if not force and alive is not False and (alive or record.expires_at > _utcnow()):
        raise LockedError(
            f"the lock is held by a running ingest: {record.describe()}; wait for it, or "
            "`osrag index unlock --force` if you know it is gone"
        )
    try:
        store.delete(LOCK, LOCK_KEY, version=found.version)
    except RecordConflict:
        raise LockedError("the lock changed hands while it was being broken; look again") from None
    return record


class IngestLock:
    """``with IngestLock(store, alias): …`` — hold the alias's ingest lock (see the module)."""

    def __init__(
        self,
        store: RecordStore,
        alias: str,
        *,
        ttl: dt.timedelta = DEFAULT_TTL,
        wait: float = 0.0,
    ) -> None:
        self.store, self.alias, self.ttl, self.wait = store, alias, ttl, wait
        pid = os.getpid()
        self.host = socket.gethostname()
        self.pid = pid
        self.owner = f"{self.host}:{pid}:{uuid.uuid4().hex[:8]}"
        self._start = process_start(pid)
        self._renewed = 0.0
        self._acquired: dt.datetime | None = None
        self.waited = 0.0
        """Seconds spent waiting for another owner."""

    def _record(self, acquired: dt.datetime) -> dict[str, object]:
        return LockRecord(
            owner=self.owner,
            host=self.host,
            pid=self.pid,
            process_start=self._start,
            acquired_at=acquired,
            expires_at=_utcnow() + self.ttl,
        ).model_dump(mode="json")

    def _try(self) -> LockRecord | None:
        """Take the lock (None) or return its holder; a dead or stale holder is removed."""
        now = _utcnow()
        try:
            self.store.put(LOCK, LOCK_KEY, self._record(now), create=True)
            self._acquired = now
            return None
        except RecordConflict:
            pass
        found = self.store.get(LOCK, LOCK_KEY)
        if found is None:
            return self._try_again()
        current = LockRecord.model_validate(found.data)
        alive = owner_alive(current)
        if alive is False:
            log.warning(
                "broke the ingest lock of %r: its owner (pid %d on this host) is no longer running",
                self.alias,
                current.pid,
            )
        elif alive or current.expires_at > now:
            return current
        else:
            log.warning("took over the stale ingest lock of %r from %s", self.alias, current.owner)
        with contextlib.suppress(RecordConflict):
            self.store.delete(LOCK, LOCK_KEY, version=found.version)
        return self._try_again()

    def _try_again(self) -> LockRecord | None:
        now = _utcnow()
        try:
            self.store.put(LOCK, LOCK_KEY, self._record(now), create=True)
        except RecordConflict:
            current = holder(self.store)
            return current or LockRecord(
                owner="(contended)",
                host="?",
                pid=0,
                process_start="",
                acquired_at=now,
                expires_at=now,
            )
        self._acquired = now
        return None

    def __enter__(self) -> IngestLock:
        started = time.monotonic()
        deadline = started + self.wait
        # announced before the record exists, so another thread of this process never
        # sees it without its owner being known to be alive
        _HELD.add(self.owner)
        try:
            while True:
                current = self._try()
                if current is None:
                    self._renewed = time.monotonic()
                    self.waited = self._renewed - started
                    return self
                if time.monotonic() >= deadline:
                    raise LockedError(
                        f"another ingest holds the lock on alias {self.alias!r}: "
                        f"{current.describe()}. Wait for it (--wait SECONDS), or break it "
                        "with `osrag index unlock` if that ingest is gone"
                    )
                time.sleep(min(1.0, max(0.05, deadline - time.monotonic())))
        except BaseException:
            _HELD.discard(self.owner)
            raise

    def renew_if_due(self) -> None:
        """Push the expiry forward (a third of the TTL after the last renewal)."""
        if time.monotonic() - self._renewed < self.ttl.total_seconds() / 3:
            return
        found = self.store.get(LOCK, LOCK_KEY)
        current = LockRecord.model_validate(found.data) if found else None
        if found is None or current is None or current.owner != self.owner:
            taken = current.describe() if current else "nobody (it was broken)"
            raise IndexStateError(f"lost the ingest lock on {self.alias!r} to {taken}")
        assert self._acquired is not None
        try:
            self.store.put(LOCK, LOCK_KEY, self._record(self._acquired), version=found.version)
        except RecordConflict:
            raise IndexStateError(f"lost the ingest lock on {self.alias!r}") from None
        self._renewed = time.monotonic()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        _HELD.discard(self.owner)
        try:
            found = self.store.get(LOCK, LOCK_KEY)
            if found is None or found.data.get("owner") != self.owner:
                return
            self.store.delete(LOCK, LOCK_KEY, version=found.version)
        except RecordConflict:
            pass
        except Exception as exc:  # the store is unreachable: never hide the ingest's own error
            log.warning(
                "could not release the ingest lock of %r (%s): the next ingest breaks it, "
                "as its owner is then gone",
                self.alias,
                exc,
            )
