"""Carry out an ingest plan on a :class:`~osrag.engines.base.ChunkIndex`: batches, writer
threads, per-item outcomes, the manifest — in one place.

:func:`apply` consumes :class:`~osrag.ingestion.plan.Change` values (see
:mod:`osrag.ingestion.plan`)
and, batch by batch:

1. **finds what an interrupted ingest left behind**: for the documents of the
   batch it asks the index which chunk ids it holds (``terms`` on ``doc_id``),
   and deletes those that are neither in the new version nor already planned
   for deletion — a crash between a bulk write and its manifest record can
   never leave a stale chunk searchable. (Skipped for a generation created by
   this very ingest: it cannot hold anything yet.)
2. **records the access policy** before the first chunk with a tenant or an
   ACL is written (:meth:`osrag.ingestion.manifest.Manifest.widen_policy`), so no search
   can see such a chunk before the alias requires a tenant;
3. **writes** through a bounded queue to ``writers`` threads (default: the
   index's ``write_concurrency``; OpenSearch: two, so one bulk is indexed while
   the next is built; embedded: one). A batch is whole documents, cut when it
   reaches ``batch_chunks`` chunks or ``batch_bytes`` estimated request bytes
   (:func:`batches`), and is sent as one ``_bulk`` request; memory is bounded by
   two batches per writer;
4. **turns refusals into reported issues**: a document with a refused chunk
   keeps its previous manifest record (the next run retries it); the others
   get their new record and a change-log entry.

The index and the manifest agree at the end or :func:`verify_counts` says so.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from osrag.chunking.records import chunk_source
from osrag.engines.base import Action, ChunkIndex, Delete, Put
from osrag.engines.mapping import VECTOR_FIELD
from osrag.ingestion.manifest import Manifest
from osrag.ingestion.plan import Change
from osrag.ingestion.writer_threads import WriterThreads
from osrag.models import ChangeRecord, DocumentRecord, IngestReport, LoadIssue
from osrag.schema.filters import Terms

Progress = Callable[[int, int], None]
"""Called with (documents seen, chunks written) as an ingest advances."""

BATCH_CHUNKS = 1000
"""Chunks per bulk request at most (about :data:`BATCH_BYTES` of policy-sized chunks)."""
BATCH_BYTES = 2 * 2**20
"""Estimated bytes per bulk request at most. The batches in flight are most of an
ingest's memory, so requests are kept at the small end of the engines' "a few MB"
guidance, where a local node takes chunks as fast as with larger ones (docs/scale.md
has the measurements); raise it for a remote cluster."""
ACTION_OVERHEAD = 1000
"""Bytes of a chunk's request line and other fields besides its texts: ids, digests, spans,
versions, amounts (990 on average over the synthetic policy corpus's NDJSON)."""
DELETE_BYTES = 120


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass
class Vectors:
    """Where the vectors of written chunks come from: an embedder, and a cache keyed by
    the embedder's id and each chunk's text digest (a text embedded once is never
    embedded again)."""

    embedder: Any
    cache: Any


@dataclass
class Tally:
    """Running totals of an apply (the report is filled from them)."""

    chunks: int
    """Chunks the manifest lists for the generation."""
    documents: int
    """Documents the manifest lists for the generation."""
    tenants: set[str] = field(default_factory=set)
    has_acl: bool = False
    chunks_truncated: int = 0
    """Chunks of the generation longer than the embedder's window."""
    tokens_truncated: int = 0
    """Their embedder tokens past the window."""


@dataclass
class _Batch:
    number: int
    changes: list[Change]
    actions: list[Action]


def request_bytes(change: Change) -> int:
    """Estimated ``_bulk`` bytes of a change: the texts it writes plus a fixed overhead per
    action (exact serialisation would cost as much as the request itself)."""
    size = DELETE_BYTES * len(change.delete)
    for chunk in change.write:
        size += ACTION_OVERHEAD + len(chunk.text) + len(chunk.body) + len(chunk.breadcrumb)
    return size


def batches(
    changes: Iterable[Change], *, max_chunks: int, max_bytes: int
) -> Iterator[list[Change]]:
    """Whole changes, in order, grouped until a group holds ``max_chunks`` actions or
    ``max_bytes`` estimated bytes (a single larger document is a group of its own)."""
    group: list[Change] = []
    count = size = 0
    for change in changes:
        group.append(change)
        count += len(change.write) + len(change.delete)
        size += request_bytes(change)
        if count >= max_chunks or size >= max_bytes:
            yield group
            group, count, size = [], 0, 0
    if group:
        yield group


class _Apply:
    def __init__(
        self,
        index: ChunkIndex,
        manifest: Manifest,
        generation: str,
        report: IngestReport,
        tally: Tally,
        *,
        fresh: bool,
        heartbeat: Callable[[], None] | None,
        progress: Progress | None,
        vectors: Vectors | None = None,
    ) -> None:
        self.vectors = vectors
        self.index, self.manifest, self.generation = index, manifest, generation
        self.report, self.tally, self.fresh = report, tally, fresh
        self.heartbeat, self.progress = heartbeat, progress
        self._counts = threading.Lock()
        self._policy = manifest.policy()
        self.refusals: dict[int, list[LoadIssue]] = {}
        """Issues of refused documents by batch number (reported in batch order)."""

    # -------------------------------------------------------------------- preparing a batch

    def actions(self, changes: list[Change]) -> list[Action]:
        """Puts and deletes of a batch, orphans of an interrupted ingest included; a
        document whose vectors cannot be computed is left out (reported, kept as it was)."""
        changes[:] = self._embedded(changes)
        leftovers: dict[str, set[str]] = {}
        if not self.fresh:
            doc_ids = sorted({c.doc_id for c in changes if c.kind in ("add", "replace")})
            if doc_ids:
                present = self.index.chunk_ids(self.generation, Terms("doc_id", tuple(doc_ids)))
                for chunk_id, doc_id in present:
                    leftovers.setdefault(doc_id, set()).add(chunk_id)
        actions: list[Action] = []
        for change in changes:
            if change.kind in ("add", "replace"):
                keep = {c.chunk_id for c in change.chunks}
                planned = set(change.delete)
                orphans = sorted(leftovers.get(change.doc_id, set()) - keep - planned)
                if orphans:
                    change.delete = [*change.delete, *orphans]
                    with self._counts:
                        self.report.orphans_deleted += len(orphans)
                for chunk in change.write:
                    source = chunk_source(chunk, self.generation)
                    vector = self._vectors.get(chunk.chunk_id)
                    if vector is not None:
                        source[VECTOR_FIELD] = vector
                    actions.append(Put(chunk.chunk_id, source))
            actions += [Delete(i) for i in change.delete]
        self._widen_policy(changes)
        return actions

    def _embedded(self, changes: list[Change]) -> list[Change]:
        """Compute the vectors of every chunk to write; the changes that still go ahead."""
        self._vectors: dict[str, list[float]] = {}
        given = self.vectors
        if given is None:
            return changes
        from osrag.embedding import embed_texts
        from osrag.errors import EmbeddingError

        def embed(group: list[Change]) -> None:
            chunks = [chunk for change in group for chunk in change.write]
            outcome = embed_texts([c.text for c in chunks], given.embedder, given.cache)
            with self._counts:
                self.report.chunks_embedded += outcome.computed
                self.report.vectors_reused += outcome.cached
            for chunk, vector in zip(chunks, outcome.vectors, strict=True):
                self._vectors[chunk.chunk_id] = [float(x) for x in vector]

        try:
            embed(changes)
            return changes
        except EmbeddingError:
            pass  # find the documents that fail, let the others through
        kept = []
        for change in changes:
            try:
                embed([change])
            except EmbeddingError as exc:
                doc = change.doc
                with self._counts:
                    self.report.errors.append(
                        LoadIssue(
                            path=doc.source_path if doc else change.doc_id,
                            line=doc.source_line if doc else None,
                            reason=f"document {change.doc_id!r}: no vectors ({exc}); its "
                            "previous version is kept, the next ingest tries again",
                        )
                    )
                continue
            kept.append(change)
        return kept

    def _widen_policy(self, changes: list[Change]) -> None:
        tenants = any(c.doc is not None and c.doc.tenant for c in changes)
        acl = any(c.doc is not None and c.doc.acl for c in changes)
        if (tenants and not self._policy.tenants) or (acl and not self._policy.acl):
            self._policy = self.manifest.widen_policy(tenants=tenants, acl=acl)

    # -------------------------------------------------------------------- writing a batch

    def write(self, batch: _Batch) -> None:
        outcome = self.index.write(self.generation, batch.actions)
        refused: dict[str, list[str]] = {}
        for failure in outcome.failures:
            refused.setdefault(failure.id.rsplit("#", 2)[0], []).append(
                f"{failure.id}: {failure.reason}"
            )
        now = _utcnow()
        records: list[DocumentRecord] = []
        changes: list[ChangeRecord] = []
        removed: list[str] = []
        issues: list[LoadIssue] = []
        delta = documents = 0
        truncated = [0, 0, 0, 0]  # written chunks, their tokens; generation chunks, tokens
        for change in batch.changes:
            if change.doc_id in refused:
                reasons = refused[change.doc_id]
                doc = change.doc
                issues.append(
                    LoadIssue(
                        path=doc.source_path if doc else change.doc_id,
                        line=doc.source_line if doc else None,
                        reason=f"document {change.doc_id!r}: {len(reasons)} chunk(s) refused by "
                        f"the index (kept its previous version in the manifest): {reasons[0]}",
                    )
                )
                continue
            before = len(change.previous.chunk_ids) if change.previous else 0
            _count_truncated(change, truncated)
            if change.kind == "remove":
                removed.append(change.doc_id)
                changes.append(self._log(change, "deleted", [], now))
                delta -= before
                documents -= 1
                continue
            doc = change.doc
            assert doc is not None
            new_ids = [c.chunk_id for c in change.chunks]
            cut = [c.tokens_lost for c in change.chunks if c.tokens_lost]
            records.append(
                DocumentRecord(
                    generation=self.generation,
                    doc_id=doc.doc_id,
                    source_path=doc.source_path,
                    source_version=doc.source_version,
                    chunk_ids=new_ids,
                    tenant=doc.tenant,
                    has_acl=bool(doc.acl),
                    metadata_digest=change.metadata_digest,
                    chunks_truncated=len(cut),
                    tokens_truncated=sum(cut),
                    ingested_at=now,
                )
            )
            action = "replaced" if change.kind == "replace" else "added"
            changes.append(self._log(change, action, new_ids, now))
            delta += len(new_ids) - before
            documents += change.previous is None
        self.manifest.put_documents(records)
        self.manifest.delete_documents(self.generation, removed)
        self.manifest.log(changes)
        with self._counts:
            report = self.report
            report.chunks_written += outcome.written
            report.chunks_deleted += outcome.deleted
            report.throttled += outcome.throttled
            report.bulk_retries += outcome.retries
            self._add_truncated(truncated)
            if issues:
                self.refusals[batch.number] = issues
            self.tally.chunks += delta
            self.tally.documents += documents
            for record in records:
                if record.tenant:
                    self.tally.tenants.add(record.tenant)
                self.tally.has_acl = self.tally.has_acl or record.has_acl
        if self.heartbeat is not None:
            self.heartbeat()
        if self.progress is not None:
            self.progress(self.report.documents, self.report.chunks_written)

    def _add_truncated(self, totals: list[int]) -> None:
        """Add :func:`_count_truncated` totals to the report and the tally (under the lock)."""
        self.report.chunks_truncated += totals[0]
        self.report.tokens_truncated += totals[1]
        self.tally.chunks_truncated += totals[2]
        self.tally.tokens_truncated += totals[3]

    def _log(
        self, change: Change, action: str, new_ids: list[str], at: dt.datetime
    ) -> ChangeRecord:
        return ChangeRecord(
            generation=self.generation,
            doc_id=change.doc_id,
            action=action,  # type: ignore[arg-type]
            old_ids=list(change.previous.chunk_ids) if change.previous else [],
            new_ids=new_ids,
            at=at,
        )


def _count_truncated(change: Change, totals: list[int]) -> None:
    """Add a change's chunks over the embedder's window to ``totals``: [written chunks,
    their lost tokens, change of the generation's chunks, change of its lost tokens]."""
    if change.previous is not None:
        totals[2] -= change.previous.chunks_truncated
        totals[3] -= change.previous.tokens_truncated
    if change.kind == "remove":
        return
    for chunk in change.chunks:
        if chunk.tokens_lost:
            totals[2] += 1
            totals[3] += chunk.tokens_lost
    for chunk in change.write:
        if chunk.tokens_lost:
            totals[0] += 1
            totals[1] += chunk.tokens_lost


def count_change(report: IngestReport, change: Change) -> None:
    """Add one planned change to the report's document counts."""
    if change.kind == "failed":
        assert change.issue is not None
        report.errors.append(change.issue)
        return
    if change.kind == "remove":
        report.documents_removed += 1
        return
    report.documents += 1
    if change.kind == "unchanged":
        report.documents_unchanged += 1
        report.chunks_unchanged += len(change.previous.chunk_ids) if change.previous else 0
        return
    if not change.chunks:
        report.documents_empty.append(change.doc_id)
    if change.kind == "add":
        report.documents_added += 1
    else:
        report.documents_changed += 1


def apply(
    changes: Iterable[Change],
    index: ChunkIndex,
    manifest: Manifest,
    generation: str,
    report: IngestReport,
    tally: Tally,
    *,
    fresh: bool = False,
    batch_chunks: int = BATCH_CHUNKS,
    batch_bytes: int = BATCH_BYTES,
    writers: int | None = None,
    heartbeat: Callable[[], None] | None = None,
    progress: Progress | None = None,
    vectors: Vectors | None = None,
) -> None:
    """Write the changes (see the module docstring); counts go into ``report`` and
    ``tally``. ``fresh``: the generation was created by this ingest (holds nothing yet).
    ``writers``: bulk-writer threads (default: the index's ``write_concurrency``).

    The outcome does not depend on ``writers``: each document's records are written
    after its chunks, counts are summed under a lock, and refusals are reported in the
    order of the batches."""
    run = _Apply(
        index,
        manifest,
        generation,
        report,
        tally,
        fresh=fresh,
        heartbeat=heartbeat,
        progress=progress,
        vectors=vectors,
    )

    def to_write() -> Iterator[Change]:
        for change in changes:
            count_change(report, change)
            if change.kind not in ("failed", "unchanged"):
                yield change

    threads = WriterThreads(writers or index.write_concurrency, run.write)
    try:
        groups = batches(to_write(), max_chunks=batch_chunks, max_bytes=batch_bytes)
        for number, group in enumerate(groups):
            threads.put(_Batch(number, group, run.actions(group)))
    finally:
        threads.close()
    threads.check()
    for number in sorted(run.refusals):
        report.errors += run.refusals[number]
