"""The small interface that ingest and search need from a search engine.

Exactly these operations, nothing more: create and drop a generation, bulk
write and delete chunks by id, read and move the alias atomically, read and
write the manifest, hold the ingest lock, count a filter, and run a planned
query. The OpenSearch backend is the reference; nothing above this module knows
which backend is in use.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from osrag.models import ChangeRecord, Chunk, DocumentRecord, GenerationRecord
from osrag.query import QueryPlan


@dataclass(frozen=True)
class IndexOp:
    """Write one chunk (by its id) into a generation."""

    chunk: Chunk
    generation: str


@dataclass(frozen=True)
class DeleteOp:
    """Delete one chunk id from a generation (a missing id is not an error)."""

    chunk_id: str
    generation: str


WriteOp = IndexOp | DeleteOp


@dataclass
class ItemFailure:
    """A bulk item the engine refused, with the document it belongs to."""

    chunk_id: str
    doc_id: str
    reason: str


@dataclass
class WriteOutcome:
    written: int = 0
    deleted: int = 0
    failures: list[ItemFailure] = field(default_factory=list)
    throttled: int = 0
    """Items the engine answered 429 (back-pressure) and that were sent again."""
    retries: int = 0
    """Back-off rounds those took."""


@dataclass
class RawHit:
    source: dict[str, Any]
    score: float | None
    index: str
    highlight: list[str] = field(default_factory=list)


@dataclass
class RawSearch:
    """What a backend answers for a planned query (before osrag shapes it)."""

    hits: list[RawHit]
    total: int
    candidate_count: int
    """Chunks passing every filter of the plan (the match is not required)."""
    took_ms: float
    index: str | None = None


@dataclass
class LockInfo:
    owner: str
    acquired_at: dt.datetime
    expires_at: dt.datetime


class Backend(ABC):
    """A search engine osrag can index into and search. See the module docstring."""

    name: str = "backend"
    eventual_refresh: bool = False
    """True where writes become visible on the engine's own schedule (no ``_refresh``)."""
    write_concurrency: int = 1
    """How many :meth:`write` calls may run at once (threads of one ingest)."""

    @property
    def storage_version(self) -> str:
        """How this backend lays a generation out, beyond the mapping version; part of
        the generation digest, so a new layout builds a new generation."""
        return ""

    # -- generations and the alias -------------------------------------------------

    @abstractmethod
    def create_generation(
        self, name: str, *, bulk_loading: bool, analyzer: str | None = None
    ) -> None:
        """Create an empty generation with osrag's mapping (tuned for loading if asked).

        ``analyzer`` names the text analyzer of this generation (None: the backend's
        default); it is part of the generation's configuration, so it lives with it.
        """

    @abstractmethod
    def finish_generation(self, name: str) -> None:
        """Restore search-time settings after a bulk load and make every write visible."""

    @abstractmethod
    def drop_generation(self, name: str) -> None: ...

    @abstractmethod
    def generation_exists(self, name: str) -> bool: ...

    @abstractmethod
    def alias_target(self, alias: str) -> str | None:
        """The generation the alias points to, or None."""

    @abstractmethod
    def move_alias(self, alias: str, to: str, previous: str | None) -> None:
        """Point the alias at ``to`` in one atomic step (readers never see neither)."""

    # -- chunks ---------------------------------------------------------------------

    @abstractmethod
    def write(self, ops: Iterable[WriteOp]) -> WriteOutcome:
        """Apply index and delete operations in bulk; per-item failures are returned."""

    @abstractmethod
    def refresh(self, name: str) -> None: ...

    @abstractmethod
    def count(self, target: str, filters: Sequence[dict[str, Any]] = ()) -> int:
        """Chunks in ``target`` passing every filter clause."""

    @abstractmethod
    def search(self, target: str, plan: QueryPlan, *, drop_amount: bool = False) -> RawSearch:
        """Run a planned query and count its candidate set."""

    @abstractmethod
    def doc_ids(self, target: str, filters: Sequence[dict[str, Any]]) -> set[str]:
        """Ids of the documents with at least one chunk passing every filter (evaluation)."""

    @abstractmethod
    def purge_alias(self, alias: str) -> None:
        """Drop every generation of ``alias``, the alias and its manifest (temporary aliases)."""

    # -- manifest -------------------------------------------------------------------

    @abstractmethod
    def get_generation(self, alias: str, name: str) -> GenerationRecord | None: ...

    @abstractmethod
    def list_generations(self, alias: str) -> list[GenerationRecord]:
        """Every generation recorded for ``alias``, oldest first."""

    @abstractmethod
    def put_generation(self, record: GenerationRecord) -> None: ...

    @abstractmethod
    def refresh_manifest(self, alias: str) -> None:
        """Make every manifest write so far visible to the listing reads."""

    @abstractmethod
    def delete_generation_record(self, alias: str, name: str) -> None:
        """Forget a generation: its record, its document records and its change log."""

    @abstractmethod
    def iter_documents(self, alias: str, generation: str) -> Iterator[DocumentRecord]: ...

    @abstractmethod
    def get_documents(
        self, alias: str, generation: str, doc_ids: Sequence[str]
    ) -> dict[str, DocumentRecord]: ...

    @abstractmethod
    def put_documents(self, alias: str, records: Sequence[DocumentRecord]) -> None: ...

    @abstractmethod
    def delete_documents(self, alias: str, generation: str, doc_ids: Sequence[str]) -> None: ...

    @abstractmethod
    def append_changes(self, alias: str, changes: Sequence[ChangeRecord]) -> None: ...

    @abstractmethod
    def list_changes(
        self, alias: str, generation: str, doc_id: str | None = None
    ) -> list[ChangeRecord]: ...

    # -- the ingest lock ------------------------------------------------------------

    @abstractmethod
    def try_lock(self, alias: str, owner: str, ttl: dt.timedelta) -> LockInfo | None:
        """Take the lock (None) or return who holds it. A stale lock is taken over."""

    @abstractmethod
    def renew_lock(self, alias: str, owner: str, ttl: dt.timedelta) -> None: ...

    @abstractmethod
    def release_lock(self, alias: str, owner: str) -> None: ...

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (files, connections)."""
