"""The vectors of a batch of an ingest: read back from a generation that holds the same
text embedded by the same embedder (:mod:`osrag.ingestion.reuse`), else from the vector
cache, else from the embedder.

:func:`embed_batch` embeds the chunks a batch writes. When the embedder refuses the
batch's texts themselves (:class:`~osrag.errors.EmbeddingInputError`: a 4xx from a
service, a function that failed on them), each document is tried alone and the ones
it refuses are reported — kept at their previous version, the next ingest tries again.
Any other embedding error (the service is unreachable, slow, overloaded, over a
deadline or its retry budget, or answers what cannot be used) is raised: it stops the
ingest once, where trying again document by document would repeat it per document.
The ingest's ``embed_deadline`` is checked before every batch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from osrag.ingestion.plan import Change, document_issue
from osrag.ingestion.reuse import VectorSource
from osrag.models import LoadIssue

__all__ = ["BatchVectors", "Vectors", "embed_batch"]


@dataclass
class Vectors:
    """Where the vectors of written chunks come from: an embedder, and a cache keyed by
    the embedder's id and each chunk's text digest (a text embedded once is never
    embedded again); ``ends_at`` (``time.monotonic()``) is when embedding must stop —
    the ingest's ``embed_deadline``, checked before every batch (and passed to a
    service's embedder, which stops its requests then)."""

    embedder: Any
    cache: Any
    ends_at: float | None = None
    deadline: float | None = None
    """The ``embed_deadline`` in seconds (for the message)."""
    sources: tuple[VectorSource, ...] = ()
    """Generations built by the same embedder whose vectors are read back first."""


@dataclass
class BatchVectors:
    """What :func:`embed_batch` gives back for one batch."""

    kept: list[Change]
    """The changes that go ahead (a document the embedder refused is left out)."""
    vectors: dict[str, list[float]]
    """Every written chunk's vector, by chunk id."""
    computed: int = 0
    """Texts the embedder was asked for."""
    cached: int = 0
    """Vectors from the local cache (or repeats of a text within the batch)."""
    from_generation: int = 0
    """Vectors read back from a generation (:attr:`Vectors.sources`)."""
    issues: list[LoadIssue] = field(default_factory=list)


def embed_batch(changes: list[Change], given: Vectors) -> BatchVectors:
    """The vectors of the chunks ``changes`` write (see the module docstring)."""
    from osrag.embedding import embed_texts
    from osrag.errors import EmbeddingError, EmbeddingInputError

    if given.ends_at is not None and time.monotonic() >= given.ends_at:
        raise EmbeddingError(
            f"embedder {given.embedder.id}: the embed_deadline of this ingest "
            f"({given.deadline:g} s) has passed (raise the embed_deadline setting for a "
            "corpus that takes longer; vectors computed so far are cached)"
        )
    result = BatchVectors(changes, {})
    vectors = result.vectors

    def embed(group: list[Change]) -> None:
        chunks = [chunk for change in group for chunk in change.write]
        for source in given.sources:
            found = source.read([c for c in chunks if c.chunk_id not in vectors], dimension)
            vectors.update(found)
            result.from_generation += len(found)
        chunks = [c for c in chunks if c.chunk_id not in vectors]
        outcome = embed_texts([c.text for c in chunks], given.embedder, given.cache)
        result.computed += outcome.computed
        result.cached += outcome.cached
        for chunk, vector in zip(chunks, outcome.vectors, strict=True):
            vectors[chunk.chunk_id] = [float(x) for x in vector]

    dimension = given.embedder.dimension
    try:
        embed(changes)
        return result
    except EmbeddingInputError:
        pass  # find the documents that fail, let the others through
    kept: list[Change] = []
    issues: list[LoadIssue] = []
    for change in changes:
        try:
            embed([change])
        except EmbeddingInputError as exc:
            reason = (
                f"no vectors ({exc}); its previous version is kept, the next ingest tries again"
            )
            issues.append(document_issue(change, reason))
            continue
        kept.append(change)
    result.kept, result.issues = kept, issues
    return result
