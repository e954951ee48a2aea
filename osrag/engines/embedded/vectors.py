"""The embedded engine's vectors: a SQLite table beside each tantivy generation, and an
exact nearest-neighbour search inside a candidate set.

Rule: ``<generation>/vectors.sqlite`` holds ``(chunk_id, vector)`` with the vector as
little-endian float32 bytes. A search loads the generation's vectors once into one
matrix (reloaded after a write) and scores **only the chunks that pass the filter**,
exactly (a dot product: the vectors are unit length), as the lucene engine's
efficient filtering does: the filter picks the candidate set first, then the
neighbours are ranked inside it, so a filter that leaves three chunks returns
those three. The score is lucene's for ``cosinesimil``: ``(1 + cos) / 2``.

Exact search, not an ANN index: at the corpus sizes the embedded engine is for
(tens of thousands of chunks), scoring every candidate is one matrix product of a
few milliseconds, and its answer is the true top k (``benchmarks/hybrid.py`` measures
it).
"""

from __future__ import annotations

import sqlite3
import threading
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from osrag.errors import IndexStateError, QueryError
from osrag.writes import check_sqlite

FILE = "vectors.sqlite"


def _pack(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


class VectorStore:
    """The vectors of one generation (thread-safe)."""

    def __init__(self, folder: Path, dimension: int) -> None:
        self.path = folder / FILE
        self.dimension = dimension
        self._guard = threading.RLock()
        self._connection: sqlite3.Connection | None = None
        self._matrix: Any = None
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}
        self._seen_version = -1
        """SQLite's ``data_version`` when the matrix was loaded: another process's commit
        changes it, and the matrix is read again."""

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            check_sqlite(self.path)  # SQLite follows a link at the database's path: refused
            try:
                self._connection = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
                self._connection.execute("PRAGMA journal_mode=WAL")
                with self._connection:
                    self._connection.execute(
                        "CREATE TABLE IF NOT EXISTS vectors "
                        "(chunk_id TEXT PRIMARY KEY, vector BLOB NOT NULL)"
                    )
            except sqlite3.Error as exc:
                raise IndexStateError(
                    f"{self.path} is not a readable vector store ({exc})"
                ) from None
        return self._connection

    def check(self, chunk_id: str, vector: Any) -> list[float]:
        """The vector as floats, or ValueError naming what is wrong with it."""
        if not isinstance(vector, list | tuple) or not all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in vector
        ):
            raise ValueError("vector: expected a list of numbers")
        if len(vector) != self.dimension:
            raise ValueError(
                f"vector: dimension {len(vector)} differs from the field's {self.dimension}"
            )
        return [float(x) for x in vector]

    def put(self, items: Iterable[tuple[str, list[float]]]) -> None:
        rows = [(chunk_id, _pack(vector)) for chunk_id, vector in items]
        if not rows:
            return
        with self._guard, self._db() as db:
            db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
            self._matrix = None

    def get(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored vectors of ``chunk_ids`` (missing ones absent), 500 ids a query."""
        found: dict[str, list[float]] = {}
        ids = list(chunk_ids)
        with self._guard:
            db = self._db()
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                marks = ",".join("?" * len(part))
                rows = db.execute(
                    f"SELECT chunk_id, vector FROM vectors WHERE chunk_id IN ({marks})",
                    part,
                ).fetchall()
                for chunk_id, blob in rows:
                    found[chunk_id] = array("f", blob).tolist()
        return found

    def delete(self, chunk_ids: Iterable[str]) -> None:
        ids = [(i,) for i in chunk_ids]
        if not ids:
            return
        with self._guard, self._db() as db:
            db.executemany("DELETE FROM vectors WHERE chunk_id = ?", ids)
            self._matrix = None

    def _load(self) -> tuple[Any, list[str], dict[str, int]]:
        import numpy as np

        with self._guard:
            version = int(self._db().execute("PRAGMA data_version").fetchone()[0])
            if self._matrix is None or version != self._seen_version:
                self._seen_version = version
                rows = self._db().execute("SELECT chunk_id, vector FROM vectors").fetchall()
                self._ids = [chunk_id for chunk_id, _ in rows]
                self._rows = {chunk_id: n for n, chunk_id in enumerate(self._ids)}
                blob = b"".join(vector for _, vector in rows)
                matrix = np.frombuffer(blob, dtype="<f4").reshape(len(rows), self.dimension)
                self._matrix = matrix
            return self._matrix, self._ids, self._rows

    def nearest(
        self, query: Sequence[float], k: int, candidates: set[str] | None
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest chunks to ``query`` among ``candidates`` (all: None), best
        first (ties by chunk id), each with lucene's cosine score."""
        try:
            import numpy as np
        except ImportError:
            raise QueryError(
                "vector search on the embedded index needs numpy: pip install 'osrag[embed]'"
            ) from None
        if len(query) != self.dimension:
            raise QueryError(
                f"knn: the query vector has dimension {len(query)}, the field {self.dimension}"
            )
        matrix, ids, rows = self._load()
        if candidates is None:
            picked = np.arange(len(ids))
        else:
            picked = np.fromiter(
                (rows[c] for c in candidates if c in rows), dtype=np.int64, count=-1
            )
        if picked.size == 0 or k < 1:
            return []
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            raise QueryError("knn: the query vector is all zeros")
        cosines = matrix[picked] @ (q / norm)
        scores = (1.0 + cosines) / 2.0
        chosen = np.arange(picked.size)
        if picked.size > k:  # only what can be in the top k (ties at the k-th kept)
            kth = np.partition(scores, picked.size - k)[picked.size - k]
            chosen = np.nonzero(scores >= kth)[0]
        order = sorted(chosen.tolist(), key=lambda n: (-float(scores[n]), ids[picked[n]]))
        return [(ids[picked[n]], float(scores[n])) for n in order[:k]]

    def close(self) -> None:
        with self._guard:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
