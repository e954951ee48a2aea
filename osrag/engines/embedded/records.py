"""The embedded index's record store: one SQLite table beside the alias's generations.

Rule: ``<alias>/records.sqlite`` (write-ahead log, ``synchronous=FULL``) holds
``records(kind, key, data, version)`` with ``(kind, key)`` as primary key;
``data`` is the record's JSON and ``version`` counts its writes, so a
conditional put or delete names the version it read. A ``create`` put is an
``INSERT`` that the primary key refuses when the record exists — the ingest
lock's one atomic step.

Invariant: every call is one transaction, durable when it returns; a crash
leaves the table as it was before or after a call. A file that is not such a
database (corrupt, foreign, from another osrag) raises
:class:`~osrag.errors.IndexStateError` naming it, never a traceback. A write the
disk refuses (full, a file grown past what the system allows, an I/O error) is
tried once more after the write-ahead log is checkpointed and truncated (which
gives back its space), then raises :class:`~osrag.errors.StorageError` naming the
cause — not a corrupt store: nothing in it was lost.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import orjson

from osrag.engines.base import Record, RecordConflict, RecordStore
from osrag.errors import IndexStateError, StorageError, no_room
from osrag.writes import check_sqlite

T = TypeVar("T")


def storage_failure(exc: BaseException, where: Path | str | None, what: str) -> StorageError:
    """The :class:`StorageError` of a write to ``where`` that failed with ``exc``."""
    return StorageError(
        f"cannot write {what} to {where} ({exc}): is its disk full, or a file over the "
        "system's size limit? What was written before is intact"
    )


RECORDS_FORMAT = 2
PAGE = 1000
_OPEN_TIMEOUT = 30.0
"""Seconds a connection waits for another writer's lock (opening included)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS osrag_format (format INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    kind TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, version INTEGER NOT NULL,
    PRIMARY KEY (kind, key));
"""


class SQLiteRecords(RecordStore):
    """The records of one alias. Thread-safe; one connection, opened on first use.

    ``folder`` is called to find (``create=False``) or make (``create=True``) the
    alias's folder; reads of an alias that has no folder yet find nothing.
    """

    def __init__(self, folder: Callable[[bool], Path | None]) -> None:
        self._folder = folder
        self._connection: sqlite3.Connection | None = None
        self._guard = threading.RLock()
        self.path: Path | None = None

    # -------------------------------------------------------------------- plumbing

    def _broken(self, exc: Exception) -> IndexStateError:
        return IndexStateError(
            f"{self.path} is not a readable osrag record store ({exc}); restore it from a "
            "backup, or delete its folder and ingest again"
        )

    def _connect(self, *, create: bool) -> sqlite3.Connection | None:
        if self._connection is not None:
            return self._connection
        folder = self._folder(create)
        if folder is None:
            return None
        self.path = folder / "records.sqlite"
        if (folder / "manifest.sqlite").exists() and not self.path.exists():
            raise IndexStateError(
                f"{folder} was written by an older osrag (manifest.sqlite, format 1): delete "
                "the folder and ingest again, or use another --alias"
            )
        if not create and not self.path.exists():
            return None
        connection = self._open_initialised(self.path)
        self._connection = connection
        return connection

    def _open_initialised(self, path: Path) -> sqlite3.Connection:
        """A connection to the store, its schema and format checked. Two processes creating
        the same new store race for the switch to WAL, which SQLite answers "database is
        locked" without waiting on its busy handler: that answer is retried, bounded."""
        deadline = time.monotonic() + _OPEN_TIMEOUT
        pause = 0.01
        check_sqlite(path)  # SQLite follows a link at the database's own path: refused here
        while True:
            connection = sqlite3.connect(path, check_same_thread=False, timeout=_OPEN_TIMEOUT)
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=FULL")
                with connection:
                    connection.executescript(_SCHEMA)
                    row = connection.execute("SELECT format FROM osrag_format").fetchone()
                    if row is None:
                        connection.execute("INSERT INTO osrag_format VALUES (?)", (RECORDS_FORMAT,))
                    elif int(row[0]) != RECORDS_FORMAT:
                        raise IndexStateError(
                            f"{path} is in record-store format {row[0]}; this osrag reads "
                            f"{RECORDS_FORMAT}: use the osrag that wrote it, or ingest into a "
                            "new alias"
                        )
                return connection
            except sqlite3.OperationalError as exc:
                connection.close()
                busy = "locked" in str(exc) or "busy" in str(exc)
                if not busy or time.monotonic() + pause > deadline:
                    raise self._broken(exc) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.5)
            except sqlite3.Error as exc:
                connection.close()
                raise self._broken(exc) from None
            except IndexStateError:
                connection.close()
                raise

    @contextmanager
    def _transaction(self, *, create: bool = False) -> Iterator[sqlite3.Connection | None]:
        with self._guard:
            connection = self._connect(create=create)
            if connection is None:
                yield None
                return
            try:
                with connection:
                    yield connection
            except sqlite3.OperationalError as exc:
                if no_room(exc):
                    raise storage_failure(exc, self.path, "osrag's records") from None
                raise self._broken(exc) from None
            except sqlite3.Error as exc:
                raise self._broken(exc) from None

    def _write(self, work: Callable[[sqlite3.Connection], T], *, create: bool = True) -> T | None:
        """``work`` in one transaction; a write the disk refused is tried once more after
        the write-ahead log is checkpointed and truncated (its space given back)."""
        for attempt in (1, 2):
            try:
                with self._transaction(create=create) as db:
                    return None if db is None else work(db)
            except StorageError:
                if attempt == 2:
                    raise
                self._checkpoint()
        raise AssertionError("unreachable")

    def _checkpoint(self) -> None:
        with self._guard:
            if self._connection is not None:
                with suppress(sqlite3.Error):
                    self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _data(self, raw: str) -> dict[str, Any]:
        try:
            # orjson: a scan reads thousands of rows; the standard reader for what it
            # refuses and ``json.dumps`` writes (NaN, integers past 64 bits)
            data: dict[str, Any] = orjson.loads(raw)
        except orjson.JSONDecodeError:
            data = self._data_standard(raw)
        return data

    def _data_standard(self, raw: str) -> dict[str, Any]:
        try:
            data: dict[str, Any] = json.loads(raw)
        except ValueError as exc:
            raise self._broken(exc) from None
        return data

    def close(self) -> None:
        with self._guard:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    # -------------------------------------------------------------------- the store

    def get(self, kind: str, key: str) -> Record | None:
        with self._transaction() as db:
            if db is None:
                return None
            row = db.execute(
                "SELECT data, version FROM records WHERE kind = ? AND key = ?", (kind, key)
            ).fetchone()
        return Record(self._data(row[0]), int(row[1])) if row else None

    def get_many(self, kind: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        with self._transaction() as db:
            if db is None:
                return found
            for start in range(0, len(keys), 500):
                batch = list(keys[start : start + 500])
                marks = ",".join("?" * len(batch))
                for key, raw in db.execute(
                    f"SELECT key, data FROM records WHERE kind = ? AND key IN ({marks})",
                    (kind, *batch),
                ):
                    found[key] = self._data(raw)
        return found

    def put(
        self,
        kind: str,
        key: str,
        data: dict[str, Any],
        *,
        create: bool = False,
        version: Any = None,
    ) -> None:
        payload = json.dumps(data, ensure_ascii=False)

        def work(db: sqlite3.Connection) -> None:
            if create:
                try:
                    db.execute(
                        "INSERT INTO records (kind, key, data, version) VALUES (?, ?, ?, 1)",
                        (kind, key, payload),
                    )
                except sqlite3.IntegrityError:
                    raise RecordConflict(f"{kind} {key!r} exists") from None
                return
            if version is not None:
                changed = db.execute(
                    "UPDATE records SET data = ?, version = version + 1 "
                    "WHERE kind = ? AND key = ? AND version = ?",
                    (payload, kind, key, int(version)),
                ).rowcount
                if not changed:
                    raise RecordConflict(f"{kind} {key!r} changed meanwhile")
                return
            db.execute(
                "INSERT INTO records (kind, key, data, version) VALUES (?, ?, ?, 1) "
                "ON CONFLICT (kind, key) DO UPDATE SET data = excluded.data, "
                "version = records.version + 1",
                (kind, key, payload),
            )

        self._write(work)

    def put_many(self, kind: str, items: Sequence[tuple[str, dict[str, Any]]]) -> None:
        if not items:
            return
        rows = [(kind, key, json.dumps(data, ensure_ascii=False)) for key, data in items]
        self._write(
            lambda db: db.executemany(
                "INSERT INTO records (kind, key, data, version) VALUES (?, ?, ?, 1) "
                "ON CONFLICT (kind, key) DO UPDATE SET data = excluded.data, "
                "version = records.version + 1",
                rows,
            )
        )

    def delete(self, kind: str, key: str, *, version: Any = None) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            if version is None:
                gone = db.execute(
                    "DELETE FROM records WHERE kind = ? AND key = ?", (kind, key)
                ).rowcount
            else:
                gone = db.execute(
                    "DELETE FROM records WHERE kind = ? AND key = ? AND version = ?",
                    (kind, key, int(version)),
                ).rowcount
                if not gone and self.get(kind, key) is not None:
                    raise RecordConflict(f"{kind} {key!r} changed meanwhile")
            return bool(gone)

        return bool(self._write(work, create=False))

    def delete_many(self, kind: str, keys: Sequence[str]) -> None:
        if keys:
            self._write(
                lambda db: db.executemany(
                    "DELETE FROM records WHERE kind = ? AND key = ?", [(kind, k) for k in keys]
                ),
                create=False,
            )

    def scan(self, kind: str, prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
        """A page at a time, by key (a range on the primary key, not ``LIKE``)."""
        after = prefix
        first = True
        while True:
            with self._transaction() as db:
                if db is None:
                    return
                rows = db.execute(
                    "SELECT key, data FROM records WHERE kind = ? AND key "
                    + (">= ?" if first else "> ?")
                    + " ORDER BY key LIMIT ?",
                    (kind, after, PAGE),
                ).fetchall()
            first = False
            for key, raw in rows:
                if not key.startswith(prefix):
                    return
                yield key, self._data(raw)
            if len(rows) < PAGE:
                return
            after = rows[-1][0]

    def refresh(self) -> None:
        """Nothing to do: a SQLite transaction is visible when it commits."""

    def drop(self) -> None:
        self._write(lambda db: db.execute("DELETE FROM records"), create=False)
