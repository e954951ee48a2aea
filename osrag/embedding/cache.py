"""Vector caches keyed by ``(embedder key, content digest)``.

The key is the digest of the exact text that was embedded, never the chunk
id: a chunk whose text is unchanged but whose id moved (a section inserted
above it shifts every ``chunk_index``) finds its vector again, and an edited
chunk does not. The embedder's key is the other half
(:func:`~osrag.embedding.batching.cache_key`): its ``name@version``, and for a
service also a fingerprint of the endpoint (``name@version#3f2a…``), so vectors of
different models — or of two servers that claim the same model — never mix.

Two implementations of the small :class:`VectorCache` protocol:

- :class:`MemoryVectorCache` — in-process, least-recently-used, at most
  ``max_entries`` vectors (memory ≈ entries × dimension × 4 bytes);
- :class:`SqliteVectorCache` — one SQLite file (WAL journal), so a re-ingest
  in a later process embeds nothing it has embedded before. Lookups go in
  chunks of at most 500 keys, so memory stays bounded by what the caller
  asks for.

Vectors are stored as float32 bytes, exactly as computed. A stored vector
whose length is not the embedder's dimension is treated as missing by
:func:`~osrag.embedding.embed_missing` and overwritten.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from osrag.errors import ConfigError, EmbeddingError, UnsafeFileError
from osrag.writes import check_sqlite

Vector = npt.NDArray[np.float32]

_SQL_CHUNK = 500  # well under SQLite's default limit of host parameters


def content_digest(text: str) -> str:
    """The cache key of a text: the first 32 hex (128 bits) of SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@runtime_checkable
class VectorCache(Protocol):
    """Where computed vectors are kept between (and within) ingests."""

    def get_many(self, embedder_id: str, digests: Sequence[str]) -> dict[str, Vector]:
        """The stored vectors among ``digests`` (missing ones are simply absent)."""
        ...

    def put_many(self, embedder_id: str, items: Iterable[tuple[str, Vector]]) -> None:
        """Store ``(digest, vector)`` pairs, replacing what was stored under the same key."""
        ...


def _as_vector(vector: npt.ArrayLike) -> Vector:
    array = np.array(vector, dtype=np.float32, copy=True).reshape(-1)
    array.flags.writeable = False
    return array


class MemoryVectorCache:
    """An in-process LRU cache of at most ``max_entries`` vectors."""

    def __init__(self, max_entries: int = 65_536) -> None:
        if max_entries < 1:
            raise ConfigError(f"vector cache: max_entries must be at least 1, not {max_entries}")
        self.max_entries = max_entries
        self._items: OrderedDict[tuple[str, str], Vector] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get_many(self, embedder_id: str, digests: Sequence[str]) -> dict[str, Vector]:
        found: dict[str, Vector] = {}
        with self._lock:
            for digest in digests:
                key = (embedder_id, digest)
                vector = self._items.get(key)
                if vector is not None:
                    self._items.move_to_end(key)
                    found[digest] = vector
        return found

    def put_many(self, embedder_id: str, items: Iterable[tuple[str, Vector]]) -> None:
        with self._lock:
            for digest, vector in items:
                key = (embedder_id, digest)
                self._items[key] = _as_vector(vector)
                self._items.move_to_end(key)
                while len(self._items) > self.max_entries:
                    self._items.popitem(last=False)


def default_cache_path() -> Path:
    """Where a vector cache file goes by default.

    ``$OSRAG_CACHE_DIR/vectors.sqlite3``, else ``$XDG_CACHE_HOME/osrag/vectors.sqlite3``,
    else ``~/.cache/osrag/vectors.sqlite3``.
    """
    base = os.environ.get("OSRAG_CACHE_DIR")
    if base:
        return Path(base) / "vectors.sqlite3"
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "osrag" / "vectors.sqlite3"


class SqliteVectorCache:
    """Vectors in one SQLite file; usable as a context manager (closes the connection)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            check_sqlite(self.path)  # SQLite follows a link at the database's path: refused
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors ("
                " embedder TEXT NOT NULL, digest TEXT NOT NULL, vector BLOB NOT NULL,"
                " PRIMARY KEY (embedder, digest)) WITHOUT ROWID"
            )
            self._db.commit()
        except (OSError, sqlite3.Error, UnsafeFileError) as exc:
            raise EmbeddingError(f"vector cache {self.path}: cannot open ({exc})") from None
        self._lock = threading.Lock()

    def __enter__(self) -> SqliteVectorCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM vectors").fetchone()[0])

    def count(self, embedder_id: str) -> int:
        """How many vectors are stored for one embedder."""
        with self._lock:
            row = self._db.execute(
                "SELECT count(*) FROM vectors WHERE embedder = ?", (embedder_id,)
            ).fetchone()
        return int(row[0])

    def _chunks(self, digests: Sequence[str]) -> Iterator[Sequence[str]]:
        for start in range(0, len(digests), _SQL_CHUNK):
            yield digests[start : start + _SQL_CHUNK]

    def get_many(self, embedder_id: str, digests: Sequence[str]) -> dict[str, Vector]:
        found: dict[str, Vector] = {}
        try:
            with self._lock:
                # in key order: each query's keys then lie close together in the
                # table's B-tree, and its pages are read once for many of them
                for chunk in self._chunks(sorted(set(digests))):
                    marks = ",".join("?" * len(chunk))
                    rows = self._db.execute(
                        "SELECT digest, vector FROM vectors"
                        f" WHERE embedder = ? AND digest IN ({marks})",
                        (embedder_id, *chunk),
                    )
                    for digest, blob in rows:
                        if len(blob) % 4 == 0 and blob:
                            found[digest] = np.frombuffer(blob, dtype=np.float32)
        except sqlite3.Error as exc:
            raise EmbeddingError(f"vector cache {self.path}: cannot read ({exc})") from exc
        return found

    def put_many(self, embedder_id: str, items: Iterable[tuple[str, Vector]]) -> None:
        rows = (
            (embedder_id, digest, np.ascontiguousarray(vector, dtype=np.float32).tobytes())
            for digest, vector in items
        )
        try:
            with self._lock, self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors (embedder, digest, vector) VALUES (?, ?, ?)",
                    rows,
                )
        except sqlite3.Error as exc:
            raise EmbeddingError(f"vector cache {self.path}: cannot write ({exc})") from exc
