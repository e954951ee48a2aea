"""The embedded index's manifest: generation, document and change records in SQLite.

Rule: one SQLite database per alias (``<alias>/manifest.sqlite``, write-ahead
log, ``synchronous=FULL``) with three tables keyed as the OpenSearch manifest
index keys its documents — ``generations`` by name, ``documents`` by
(generation, doc id), ``changes`` appended in order. Each record is stored as
the JSON of its pydantic model and validated when read.

Invariant: every call is one transaction, durable when it returns; a crash
leaves each table as it was before or after a call, never in between. A file
that is not such a database (corrupt, foreign, from a newer osrag) raises
:class:`~osrag.errors.IndexStateError` naming it, never a traceback.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from osrag.errors import IndexStateError
from osrag.models import ChangeRecord, DocumentRecord, GenerationRecord

FORMAT = 1
PAGE = 1000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS osrag_format (format INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS generations (
    name TEXT PRIMARY KEY, created_at TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    generation TEXT NOT NULL, doc_id TEXT NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (generation, doc_id));
CREATE TABLE IF NOT EXISTS changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, generation TEXT NOT NULL, doc_id TEXT NOT NULL,
    at TEXT NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS changes_by_document ON changes (generation, doc_id, at, seq);
"""

Record = TypeVar("Record", bound=BaseModel)


class Manifest:
    """The records of one alias. Thread-safe; one connection, opened lazily."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    # -------------------------------------------------------------------- plumbing

    def _broken(self, exc: Exception) -> IndexStateError:
        return IndexStateError(
            f"{self.path} is not a readable osrag manifest ({exc}); restore it from a backup, "
            "or delete its folder and ingest again"
        )

    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None:
            return self._connection
        try:
            connection = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            with connection:
                connection.executescript(_SCHEMA)
                row = connection.execute("SELECT format FROM osrag_format").fetchone()
                if row is None:
                    connection.execute("INSERT INTO osrag_format VALUES (?)", (FORMAT,))
                elif int(row[0]) > FORMAT:
                    raise IndexStateError(
                        f"{self.path} was written by a newer osrag (manifest format {row[0]}, "
                        f"this one reads {FORMAT}): upgrade osrag"
                    )
        except sqlite3.Error as exc:
            raise self._broken(exc) from None
        self._connection = connection
        return connection

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            connection = self._connect()
            try:
                with connection:
                    yield connection
            except sqlite3.Error as exc:
                raise self._broken(exc) from None

    def _parse(self, model: type[Record], raw: str) -> Record:
        try:
            return model.model_validate_json(raw)
        except ValidationError as exc:
            raise IndexStateError(
                f"{self.path}: a {model.__name__} is not valid ({exc.errors()[0]['msg']})"
            ) from None

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    # -------------------------------------------------------------------- generations

    def get_generation(self, name: str) -> GenerationRecord | None:
        with self._transaction() as db:
            row = db.execute("SELECT record FROM generations WHERE name = ?", (name,)).fetchone()
        return self._parse(GenerationRecord, row[0]) if row else None

    def list_generations(self) -> list[GenerationRecord]:
        with self._transaction() as db:
            rows = db.execute(
                "SELECT record FROM generations ORDER BY created_at, rowid"
            ).fetchall()
        return [self._parse(GenerationRecord, r[0]) for r in rows]

    def put_generation(self, record: GenerationRecord) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT INTO generations (name, created_at, record) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET created_at = excluded.created_at, "
                "record = excluded.record",
                (record.name, record.created_at.isoformat(), record.model_dump_json()),
            )

    def delete_generation(self, name: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM generations WHERE name = ?", (name,))
            db.execute("DELETE FROM documents WHERE generation = ?", (name,))
            db.execute("DELETE FROM changes WHERE generation = ?", (name,))

    # -------------------------------------------------------------------- documents

    def iter_documents(self, generation: str) -> Iterator[DocumentRecord]:
        """Every document record of ``generation``, by doc id, read a page at a time."""
        after = ""
        while True:
            with self._transaction() as db:
                rows = db.execute(
                    "SELECT doc_id, record FROM documents WHERE generation = ? AND doc_id > ? "
                    "ORDER BY doc_id LIMIT ?",
                    (generation, after, PAGE),
                ).fetchall()
            for _doc_id, raw in rows:
                yield self._parse(DocumentRecord, raw)
            if len(rows) < PAGE:
                return
            after = rows[-1][0]

    def get_documents(self, generation: str, doc_ids: Sequence[str]) -> dict[str, DocumentRecord]:
        found: dict[str, DocumentRecord] = {}
        with self._transaction() as db:
            for start in range(0, len(doc_ids), 500):
                batch = list(doc_ids[start : start + 500])
                marks = ",".join("?" * len(batch))
                for (raw,) in db.execute(
                    f"SELECT record FROM documents WHERE generation = ? AND doc_id IN ({marks})",
                    (generation, *batch),
                ):
                    record = self._parse(DocumentRecord, raw)
                    found[record.doc_id] = record
        return found

    def put_documents(self, records: Sequence[DocumentRecord]) -> None:
        with self._transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO documents (generation, doc_id, record) VALUES (?, ?, ?)",
                [(r.generation, r.doc_id, r.model_dump_json()) for r in records],
            )

    def delete_documents(self, generation: str, doc_ids: Sequence[str]) -> None:
        with self._transaction() as db:
            db.executemany(
                "DELETE FROM documents WHERE generation = ? AND doc_id = ?",
                [(generation, d) for d in doc_ids],
            )

    # -------------------------------------------------------------------- changes

    def append_changes(self, changes: Sequence[ChangeRecord]) -> None:
        with self._transaction() as db:
            db.executemany(
                "INSERT INTO changes (generation, doc_id, at, record) VALUES (?, ?, ?, ?)",
                [(c.generation, c.doc_id, c.at.isoformat(), c.model_dump_json()) for c in changes],
            )

    def list_changes(self, generation: str, doc_id: str | None = None) -> list[ChangeRecord]:
        query = "SELECT record FROM changes WHERE generation = ?"
        params: tuple[str, ...] = (generation,)
        if doc_id is not None:
            query += " AND doc_id = ?"
            params += (doc_id,)
        with self._transaction() as db:
            rows = db.execute(query + " ORDER BY at, seq", params).fetchall()
        return [self._parse(ChangeRecord, r[0]) for r in rows]
