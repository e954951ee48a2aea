"""The document ids a corpus load has met, off the Python heap.

Finding a duplicate document id needs every id met so far (and where it was
met, for the message). Kept in a Python dict that costs about 150 bytes per
document, and the small strings pin the allocator's arenas, so an ingest's
memory grows with the corpus.
:class:`SeenIds` keeps them in a private temporary SQLite database instead
(the standard library's; SQLite deletes the file when the connection closes):
a bounded page cache in memory, the rest on disk (the cost per document is in
docs/benchmarks.md).
"""

from __future__ import annotations

import sqlite3

CACHE_KIB = 4096
"""SQLite's page cache for the ids (the rest of the table lives in the temporary file)."""


class SeenIds:
    """``first(doc_id, where)``: None the first time an id is met, else where it was first."""

    def __init__(self) -> None:
        # "" names a private temporary database on disk, removed when it is closed
        self._db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute("CREATE TABLE seen (id TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID")

    def first(self, doc_id: str, where: str) -> str | None:
        cursor = self._db.execute(
            "INSERT INTO seen (id, at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", (doc_id, where)
        )
        if cursor.rowcount == 1:
            return None
        found = self._db.execute("SELECT at FROM seen WHERE id = ?", (doc_id,)).fetchone()
        return str(found[0])

    def close(self) -> None:
        self._db.close()
