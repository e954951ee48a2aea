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
   (:func:`batches`); memory is bounded by two batches per writer. In place, the
   batch is first *announced* in the manifest (its documents' new chunk ids, no
   source version: :func:`~osrag.ingestion.interrupted.announced`), so whatever
   fails next the manifest lists what the index may hold;
4. **turns refusals into reported issues**: a document with a refused chunk
   keeps its previous version, whole (the engine keeps its old chunks; the new
   ones that went in are deleted again); the others get their new record and a
   change-log entry.

When a write fails (a full disk, a write block), the batches in flight are settled
against what the index holds (:mod:`osrag.ingestion.interrupted`) and the error
says what went in. The index and the manifest agree at the end or
:func:`verify_counts` says so.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from osrag.chunking.records import chunk_source, cuts
from osrag.engines.base import Action, ChunkIndex, Delete, Put, WriteOutcome
from osrag.engines.mapping import VECTOR_FIELD
from osrag.ingestion.batch_vectors import Vectors, embed_batch
from osrag.ingestion.interrupted import announced, sort_out, stopped
from osrag.ingestion.label_vocabulary import LabelBook
from osrag.ingestion.manifest import Manifest
from osrag.ingestion.nested_facts import hold_facts
from osrag.ingestion.plan import Change, document_issue
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
    before: dict[str, DocumentRecord] = field(default_factory=dict)
    """The manifest records its documents had before it was announced (in place)."""


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
        labels: LabelBook | None = None,
    ) -> None:
        self.vectors = vectors
        self.labels = labels
        """The generation's label vocabulary, told of every document the manifest records."""
        self.index, self.manifest, self.generation = index, manifest, generation
        self.report, self.tally, self.fresh = report, tally, fresh
        self.heartbeat, self.progress = heartbeat, progress
        self._counts = threading.Lock()
        self._policy = manifest.policy()
        self.refusals: dict[int, list[LoadIssue]] = {}
        """Issues of refused documents by batch number (reported in batch order)."""
        self.unsettled: dict[int, _Batch] = {}
        """Batches sent to the index whose manifest records are not written yet."""
        self.applied = 0
        """Documents whose change the index and the manifest both hold."""
        self.facts_limit = index.nested_objects_limit(generation)
        """The most facts one chunk may hold (:mod:`osrag.ingestion.nested_facts`)."""

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
                    dropped = hold_facts(source, self.facts_limit)
                    if dropped is not None:
                        with self._counts:
                            self.report.facts_dropped.append(dropped)
                    vector = self._vectors.get(chunk.chunk_id)
                    if vector is not None:
                        source[VECTOR_FIELD] = vector
                    actions.append(Put(chunk.chunk_id, source))
            actions += [Delete(i) for i in change.delete]
        self._widen_policy(changes)
        return actions

    def _embedded(self, changes: list[Change]) -> list[Change]:
        """Compute the vectors of every chunk to write (:func:`embed_batch`); the changes
        that still go ahead."""
        self._vectors: dict[str, list[float]] = {}
        if self.vectors is None:
            return changes
        got = embed_batch(changes, self.vectors)
        self._vectors = got.vectors
        with self._counts:
            self.report.chunks_embedded += got.computed
            self.report.vectors_reused += got.cached
            self.report.vectors_from_generation += got.from_generation
            self.report.errors += got.issues
        return got.kept

    def _widen_policy(self, changes: list[Change]) -> None:
        tenants = any(c.doc is not None and c.doc.tenant for c in changes)
        acl = any(c.doc is not None and c.doc.acl for c in changes)
        if (tenants and not self._policy.tenants) or (acl and not self._policy.acl):
            self._policy = self.manifest.widen_policy(tenants=tenants, acl=acl)

    # -------------------------------------------------------------------- writing a batch

    def write(self, batch: _Batch) -> None:
        if not self.fresh:
            self._announce(batch)
        with self._counts:
            self.unsettled[batch.number] = batch
        outcome = self.index.write(self.generation, batch.actions)
        refused: dict[str, list[str]] = {}
        for failure in outcome.failures:
            refused.setdefault(failure.id.rsplit("#", 2)[0], []).append(
                f"{failure.id}: {failure.reason}"
            )
        self._take_back(batch.changes, refused)
        self._record(batch, refused, outcome)
        with self._counts:
            del self.unsettled[batch.number]
        if self.heartbeat is not None:
            self.heartbeat()
        if self.progress is not None:
            self.progress(self.report.documents, self.report.chunks_written)

    def _announce(self, batch: _Batch) -> None:
        """Before a batch changes a generation searches read: record each document it
        adds or replaces as *being written* — its new chunk ids, with no source version
        and no metadata digest, so whatever happens next the manifest lists what the index
        will hold, and the next ingest rewrites the document whole. If this write fails,
        nothing has touched the index. The records it replaces are kept (in memory) to
        put back should the index refuse the batch (:meth:`settle`)."""
        changing = [c for c in batch.changes if c.kind in ("add", "replace") and c.doc]
        known = [c.doc_id for c in changing if c.previous is not None]
        batch.before = self.manifest.documents_for(self.generation, known)
        self.manifest.put_documents(announced(changing, self.generation, _utcnow()))

    def _take_back(self, changes: list[Change], refused: dict[str, list[str]]) -> None:
        """Delete the new chunks that did go in of the documents one of whose chunks was
        refused: such a document keeps its previous version, whole (the engine did not
        delete its old chunks: :meth:`~osrag.engines.base.ChunkIndex.write`)."""
        stray = [
            chunk.chunk_id
            for change in changes
            if change.doc_id in refused
            for chunk in change.write
            if change.previous is None or chunk.chunk_id not in change.previous.chunk_ids
        ]
        if stray:
            self.index.write(self.generation, [Delete(i) for i in stray])

    def _record(self, batch: _Batch, refused: dict[str, list[str]], outcome: Any) -> None:
        """The manifest records, change log and counts of a batch the index holds (its
        refused documents reported instead)."""
        now = _utcnow()
        records: list[DocumentRecord] = []
        changes: list[ChangeRecord] = []
        removed: list[str] = []
        issues: list[LoadIssue] = []
        delta = documents = 0
        truncated = [0, 0, 0, 0]  # written chunks, their tokens; generation chunks, tokens
        bounded = [0, 0, 0]  # labels, headings, breadcrumbs the length bounds cut (written)
        for change in batch.changes:
            if change.doc_id in refused:
                reasons = refused[change.doc_id]
                reason = (
                    f"{len(reasons)} chunk(s) refused by the index (kept its previous version): "
                    f"{reasons[0]}"
                )
                issues.append(document_issue(change, reason))
                continue
            before = len(change.previous.chunk_ids) if change.previous else 0
            _count_truncated(change, truncated)
            _count_cuts(change, bounded)
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
        if self.labels is not None:
            self.labels.record([c for c in batch.changes if c.doc_id not in refused])
        with self._counts:
            report = self.report
            report.chunks_written += outcome.written
            report.chunks_deleted += outcome.deleted
            report.throttled += outcome.throttled
            report.bulk_retries += outcome.retries
            self._add_truncated(truncated)
            report.labels_cut += bounded[0]
            report.headings_cut += bounded[1]
            report.breadcrumbs_shortened += bounded[2]
            if issues:
                self.refusals[batch.number] = issues
            self.tally.chunks += delta
            self.tally.documents += documents
            for record in records:
                if record.tenant:
                    self.tally.tenants.add(record.tenant)
                self.tally.has_acl = self.tally.has_acl or record.has_acl
            self.applied += sum(change.doc_id not in refused for change in batch.changes)

    def settle(self) -> str:
        """After a failed write, bring the manifest in line with what the index holds for
        the documents of the batches it has no records of yet (best effort): a document
        whose new chunks are all there, and its old ones gone, is recorded as written; one
        that holds its old chunks and some new ones loses the new ones again. What could
        not be settled is said in the returned note ("" when everything was)."""
        pending = [self.unsettled.pop(n) for n in sorted(self.unsettled)]
        if not pending:
            return ""
        unsure = 0
        try:
            self.index.refresh(self.generation)
            for batch in pending:
                unsure += self._settle(batch)
        except Exception as exc:
            return (
                f"; the manifest could not be brought in line with the index for the "
                f"documents being written when it stopped ({exc}): `osrag index repair` "
                "or the next ingest does"
            )
        if unsure:
            return (
                f"; {unsure} document(s) being written when it stopped are in an unknown "
                "state: the next ingest rewrites them"
            )
        return ""

    def _settle(self, batch: _Batch) -> int:
        doc_ids = tuple(sorted({c.doc_id for c in batch.changes}))
        held: dict[str, set[str]] = {}
        for chunk_id, doc_id in self.index.chunk_ids(self.generation, Terms("doc_id", doc_ids)):
            held.setdefault(doc_id, set()).add(chunk_id)
        found = sort_out(batch.changes, held)
        if found.stray:
            self.index.write(self.generation, [Delete(i) for i in found.stray])
        self._record(_Batch(batch.number, found.done, []), {}, WriteOutcome())
        self._restore(batch, found.undone)
        return found.unsure

    def _restore(self, batch: _Batch, undone: list[Change]) -> None:
        """Put back the records :meth:`_announce` replaced, of documents the index still
        holds at their previous version (a document that was new loses its record)."""
        if self.fresh:
            return
        announced = [c for c in undone if c.kind in ("add", "replace")]
        self.manifest.put_documents(
            [batch.before[c.doc_id] for c in announced if c.doc_id in batch.before]
        )
        self.manifest.delete_documents(
            self.generation, [c.doc_id for c in announced if c.doc_id not in batch.before]
        )

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


def _count_cuts(change: Change, totals: list[int]) -> None:
    """Add what the length bounds cut in a change's written chunks to ``totals``."""
    for chunk in change.write:
        for i, n in enumerate(cuts(chunk)):
            totals[i] += n


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
    labels: LabelBook | None = None,
) -> None:
    """Write the changes (see the module docstring); counts go into ``report`` and
    ``tally``. ``fresh``: the generation was created by this ingest (holds nothing yet).
    ``writers``: bulk-writer threads (default: the index's ``write_concurrency``).
    ``labels``: the generation's label vocabulary, told of each document as the manifest
    records it (:meth:`~osrag.ingestion.label_vocabulary.LabelBook.record`).

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
        labels=labels,
    )

    def to_write() -> Iterator[Change]:
        for change in changes:
            count_change(report, change)
            if change.kind not in ("failed", "unchanged"):
                yield change

    threads = WriterThreads(writers or index.write_concurrency, run.write)
    try:
        try:
            groups = batches(to_write(), max_chunks=batch_chunks, max_bytes=batch_bytes)
            for number, group in enumerate(groups):
                threads.put(_Batch(number, group, run.actions(group)))
        finally:
            threads.close()
        threads.check()
    except Exception as exc:
        error = stopped(exc, run.applied, run.settle())
        if error is exc:
            raise
        raise error from exc
    for number in sorted(run.refusals):
        report.errors += run.refusals[number]
