"""Ingest as a plan: what each document needs, decided without touching an engine.

:func:`plan_ingest` is pure. Given the documents of a corpus (and the files
that failed to load), what the manifest knows of the generation, and the
function that turns a document into chunks, it yields one :class:`Change` per
document, in corpus order, then the removals:

=============  ==========================================================================
kind           when, and what it carries
=============  ==========================================================================
``add``        a document the manifest does not know: every chunk to write
``replace``    its source changed: every chunk (a chunk whose text, and so id, is
               unchanged still moves to the new source version, and its span may
               have moved), and the ids that vanished
``unchanged``  same source version: nothing to write
``remove``     known, not in the corpus any more, and not a file that failed to load
               (``prune``): every id to delete
``failed``     the file or line could not be read: its previous chunks are kept
=============  ==========================================================================

:func:`osrag.ingestion.apply.apply` carries the plan out; ``osrag ingest --dry-run``
prints it instead. :func:`choose_generation` decides which generation a
configuration writes into, also without I/O.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from osrag.chunking.records import metadata_digest
from osrag.models import Chunk, Document, DocumentRecord, GenerationRecord, LoadIssue
from osrag.schema.ingest import generation_name

ChangeKind = Literal["add", "replace", "unchanged", "remove", "failed"]
Prepare = Callable[[Iterable[Document]], Iterable[tuple[Document, list[Chunk] | LoadIssue]]]
"""Documents → (document, its chunks or why it could not be cut), in order (may run in
worker processes)."""


@dataclass(frozen=True, slots=True)
class Known:
    """What the manifest remembers of one document (kept in memory for a whole ingest)."""

    source_version: str
    source_path: str
    chunk_ids: tuple[str, ...]
    metadata_digest: str = ""
    chunks_truncated: int = 0
    tokens_truncated: int = 0

    @classmethod
    def of(cls, record: DocumentRecord) -> Known:
        return cls(
            record.source_version,
            record.source_path,
            tuple(record.chunk_ids),
            record.metadata_digest,
            record.chunks_truncated,
            record.tokens_truncated,
        )


@dataclass(slots=True)
class Change:
    """What one document needs (see the module docstring)."""

    kind: ChangeKind
    doc_id: str
    doc: Document | None = None
    chunks: list[Chunk] = field(default_factory=list)
    """Every chunk of the document as it is now (add/replace)."""
    write: list[Chunk] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    previous: Known | None = None
    issue: LoadIssue | None = None
    metadata_digest: str = ""


def document_issue(change: Change, reason: str) -> LoadIssue:
    """What kept the document of ``change`` out (``reason``), named by its file and line —
    by its id where the change holds no document."""
    doc = change.doc
    return LoadIssue(
        path=doc.source_path if doc else change.doc_id,
        line=doc.source_line if doc else None,
        reason=f"document {change.doc_id!r}: {reason}",
    )


def _change(doc: Document, chunks: list[Chunk], previous: Known | None) -> Change:
    digest = metadata_digest(doc)
    if previous is None:
        return Change("add", doc.doc_id, doc, chunks, list(chunks), [], None, None, digest)
    # Every chunk is written, not only those with a new id: an unchanged id means unchanged
    # text, but the record also holds the source version and the span, which an edit
    # earlier in the document moves; a stale record would point at the wrong text and
    # leave the document's chunks split across two versions.
    delete = sorted(set(previous.chunk_ids) - {c.chunk_id for c in chunks})
    return Change("replace", doc.doc_id, doc, chunks, list(chunks), delete, previous, None, digest)


def plan_ingest(
    items: Iterable[Document | LoadIssue],
    known: Mapping[str, Known],
    prepare: Prepare,
    *,
    prune: bool = True,
) -> Iterator[Change]:
    """One :class:`Change` per document of ``items``, then one per removed document."""
    unseen = set(known)
    """Known documents not met yet (what is left at the end was removed): a first ingest
    keeps no set of every document it met."""
    failed_paths: set[str] = set()
    failures: list[Change] = []
    pending: dict[str, Known | None] = {}
    unchanged: list[Change] = []

    def to_prepare() -> Iterator[Document]:
        for item in items:
            if isinstance(item, LoadIssue):
                failed_paths.add(item.path)
                failures.append(Change("failed", item.path, issue=item))
                continue
            unseen.discard(item.doc_id)
            previous = known.get(item.doc_id)
            if previous is not None and previous.source_version == item.source_version:
                # no document kept: an unchanged corpus is drained only at its end
                unchanged.append(Change("unchanged", item.doc_id, previous=previous))
                continue
            pending[item.doc_id] = previous
            yield item

    def drain() -> Iterator[Change]:
        yield from failures
        yield from unchanged
        failures.clear()
        unchanged.clear()

    for doc, chunks in prepare(to_prepare()):
        yield from drain()
        previous = pending.pop(doc.doc_id, None)
        if isinstance(chunks, LoadIssue):
            failed_paths.add(chunks.path)
            yield Change("failed", chunks.path, issue=chunks, previous=previous)
            continue
        yield _change(doc, chunks, previous)
    yield from drain()
    if prune:
        for doc_id in sorted(unseen):
            previous = known[doc_id]
            if previous.source_path in failed_paths:
                continue  # a file that failed to load is not a deleted file
            yield Change("remove", doc_id, delete=list(previous.chunk_ids), previous=previous)


@dataclass(frozen=True, slots=True)
class GenerationChoice:
    """Which generation an ingest writes into."""

    record: GenerationRecord
    create: bool
    """True: a new index to create (and record) before writing."""
    current: str | None
    """The generation the alias points to now."""

    @property
    def switching(self) -> bool:
        """The alias will move when this generation is complete."""
        return self.record.name != self.current


def choose_generation(
    alias: str,
    digest: str,
    current: GenerationRecord | None,
    recorded: list[GenerationRecord],
    existing: set[str],
    *,
    config: dict[str, object],
    versions: dict[str, str],
    now: dt.datetime,
    fresh: bool = False,
) -> GenerationChoice:
    """Same digest as the alias's generation → sync it in place; a recorded generation of
    the digest whose index exists → resume or reuse it (a crash mid-build, a rollback);
    else a new ``<alias>-<digest>-<n>`` with a number no index has used. ``fresh``: a new
    generation whatever exists (a half-built one of the digest is resumed, though)."""
    current_name = current.name if current else None
    if current is not None and current.digest == digest and not fresh:
        return GenerationChoice(current, False, current_name)
    for record in reversed(recorded):
        if record.digest == digest and record.name in existing:
            if fresh and (record.name == current_name or record.state != "building"):
                continue
            return GenerationChoice(record, False, current_name)
    number = 1 + max((r.number for r in recorded if r.digest == digest), default=0)
    while generation_name(alias, digest, number) in existing:  # an index with no record
        number += 1
    record = GenerationRecord(
        name=generation_name(alias, digest, number),
        alias=alias,
        digest=digest,
        number=number,
        config=dict(config),
        versions=versions,
        state="building",
        created_at=now,
    )
    return GenerationChoice(record, True, current_name)


def same_model_same_dimension(config: dict[str, Any], current: GenerationRecord | None) -> None:
    """Refuse an embedder whose ``name@version`` built the current generation but whose
    vectors now have another dimension: its model changed without a new version, so the
    vectors it gave before (in the index, in the cache) are another model's. Left alone,
    the change of dimension would quietly build a new generation under the same id."""
    now = config.get("embedder")
    before = current.config.get("embedder") if current is not None else None
    if not isinstance(now, dict) or not isinstance(before, dict):
        return
    if now.get("id") == before.get("id") and now.get("dimension") != before.get("dimension"):
        from osrag.errors import EmbeddingError

        assert current is not None
        raise EmbeddingError(
            f"embedder {now.get('id')} now gives {now.get('dimension')}-dimensional vectors, "
            f"but generation {current.name} was built by the same name and version with "
            f"{before.get('dimension')}: the model behind it changed without a new version. "
            "Give it a new version (e.g. #version=… in the spec) to build a new generation"
        )
