"""Which vectors a generation can take from one already built, without embedding again.

Rule: a chunk's vector is reusable when a generation built by the **same embedder
fingerprint** (its cache key — ``name@version``, and for a service also its endpoint —
and its dimension) holds a chunk of the **same document** with the **same text**. The
text is recognised by the chunk id's digest (``{doc_id}#{index}#{16 hex of
sha256(text)}``, the chunk-id contract), so a chunk whose index moved (a section
inserted above it, a different chunk size) is found again; the match is within one
document, because the manifest lists chunk ids per document (a text moved to another
document finds its vector in the local vector cache only).

The vectors themselves are read back from the engine
(:meth:`~osrag.engines.base.ChunkIndex.stored_vectors`), not from the local vector
cache, which a search service that did not build the generation does not have.
:class:`VectorSource` is what an apply reads them from; :func:`reused_id` is the pure
match that both the apply and the change plan (:mod:`osrag.ingestion.cost`) use, so
the plan's predicted reuse is what the apply does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from osrag.engines.base import ChunkIndex
from osrag.ingestion.plan import Known
from osrag.models import Chunk, GenerationRecord

__all__ = [
    "ChunksByText",
    "VectorSource",
    "embedder_fingerprint",
    "reused_id",
    "text_digest",
    "usable",
]


def text_digest(chunk_id: str) -> str:
    """The text digest at the end of a chunk id (``…#<16 hex>``)."""
    return chunk_id.rsplit("#", 1)[-1]


def embedder_fingerprint(config: Mapping[str, Any]) -> tuple[str, int] | None:
    """``(fingerprint, dimension)`` of the embedder a generation's configuration names
    (None: built without vectors). A configuration recorded before fingerprints were
    kept names its embedder by id, which is the fingerprint of every local model."""
    embedder = config.get("embedder")
    if not isinstance(embedder, Mapping):
        return None
    key = embedder.get("fingerprint") or embedder.get("id")
    dimension = embedder.get("dimension")
    if not isinstance(key, str) or not isinstance(dimension, int):
        return None
    return key, dimension


def usable(record: GenerationRecord | None, fingerprint: tuple[str, int] | None) -> bool:
    """Whether ``record``'s vectors are ones the embedder of ``fingerprint`` would give."""
    if record is None or fingerprint is None:
        return False
    return embedder_fingerprint(record.config) == fingerprint


@dataclass
class ChunksByText:
    """One generation's chunk ids by document and text digest, built per document on
    first use (an ingest meets each document once)."""

    known: Mapping[str, Known]
    _docs: dict[str, dict[str, str]] = field(default_factory=dict)

    def find(self, doc_id: str, digest: str) -> str | None:
        by_text = self._docs.get(doc_id)
        if by_text is None:
            previous = self.known.get(doc_id)
            ids = previous.chunk_ids if previous is not None else ()
            by_text = self._docs[doc_id] = {text_digest(i): i for i in ids}
        return by_text.get(digest)


def reused_id(chunk: Chunk, known: Mapping[str, Known] | ChunksByText) -> str | None:
    """The id of the chunk of the same document with the same text in a generation whose
    documents are ``known``, or None."""
    table = known if isinstance(known, ChunksByText) else ChunksByText(known)
    return table.find(chunk.doc_id, text_digest(chunk.chunk_id))


class VectorSource:
    """A generation whose vectors an ingest reads back (see the module docstring)."""

    def __init__(self, index: ChunkIndex, generation: str, known: Mapping[str, Known]) -> None:
        self.index = index
        self.generation = generation
        self._table = ChunksByText(known)

    def match(self, chunk: Chunk) -> str | None:
        return reused_id(chunk, self._table)

    def read(self, chunks: Sequence[Chunk], dimension: int) -> dict[str, list[float]]:
        """Vectors for those of ``chunks`` this generation holds the text of, by the new
        chunk id (a stored vector of another length is left out: embedded again)."""
        wanted: dict[str, str] = {}
        for chunk in chunks:
            old = self.match(chunk)
            if old is not None:
                wanted[chunk.chunk_id] = old
        if not wanted:
            return {}
        stored = self.index.stored_vectors(self.generation, sorted(set(wanted.values())))
        return {
            new: stored[old]
            for new, old in wanted.items()
            if old in stored and len(stored[old]) == dimension
        }
