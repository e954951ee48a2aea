"""Embed only what the cache does not hold: :func:`embed_missing`, :func:`embed_texts`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from osrag.embedding.base import Embedder, Vectors, checked_vectors
from osrag.embedding.cache import MemoryVectorCache, Vector, VectorCache, content_digest
from osrag.errors import ConfigError


@dataclass(frozen=True, slots=True)
class EmbedOutcome:
    """Vectors for every input, in input order, and where they came from.

    ``computed`` counts the texts the embedder was asked for in this call;
    ``cached`` the rest — vectors found in the cache, or repeats of a text
    (same digest) earlier in the same call. ``computed + cached`` is always
    the number of inputs.
    """

    vectors: Vectors
    computed: int
    cached: int


def embed_missing(
    items: Sequence[tuple[str, str]],
    embedder: Embedder,
    cache: VectorCache,
    *,
    batch_size: int = 256,
    on_batch: Callable[[int], None] | None = None,
) -> EmbedOutcome:
    """Vectors for ``(text, digest)`` pairs, embedding only digests the cache lacks.

    ``digest`` identifies the text's content (:func:`~osrag.embedding.content_digest`,
    or the chunk's own content digest); equal digests are embedded once.
    Missing texts go to ``embedder.embed`` in batches of ``batch_size`` and
    each batch is stored in ``cache`` as soon as it is computed, so when the
    embedder fails part-way (an :class:`~osrag.errors.EmbeddingError`
    propagates), what was computed before is kept and the next call embeds
    only the rest. A cached vector of the wrong length counts as missing.
    ``on_batch(n)`` is called after each batch with the number just embedded.

    Memory is proportional to ``len(items)`` × dimension (the returned
    vectors); call it per batch of documents to keep ingest's memory flat.
    """
    if batch_size < 1:
        raise ConfigError(f"embed_missing: batch_size must be at least 1, not {batch_size}")
    dimension = embedder.dimension
    model = embedder.id
    key = cache_key(embedder)
    first_text: dict[str, str] = {}
    for text, digest in items:
        first_text.setdefault(digest, text)
    found: dict[str, Vector] = {
        digest: vector
        for digest, vector in cache.get_many(key, list(first_text)).items()
        if vector.shape == (dimension,)
    }
    missing = [digest for digest in first_text if digest not in found]
    for start in range(0, len(missing), batch_size):
        batch = missing[start : start + batch_size]
        vectors = checked_vectors(
            embedder.embed([first_text[d] for d in batch]),
            count=len(batch),
            model=model,
            dimension=dimension,
        )
        pairs = list(zip(batch, vectors, strict=True))
        cache.put_many(key, pairs)
        found.update(pairs)
        if on_batch is not None:
            on_batch(len(batch))
    out = np.empty((len(items), dimension), dtype=np.float32)
    for row, (_, digest) in enumerate(items):
        out[row] = found[digest]
    return EmbedOutcome(vectors=out, computed=len(missing), cached=len(items) - len(missing))


def cache_key(embedder: Embedder) -> str:
    """What the vector cache keys an embedder's vectors by: its ``cache_key`` where it has
    one (a service's names its endpoint, so two servers of one name and version never
    share vectors), else its id."""
    key = getattr(embedder, "cache_key", None)
    return key if isinstance(key, str) and key else embedder.id


def embed_texts(
    texts: Sequence[str],
    embedder: Embedder,
    cache: VectorCache | None = None,
    *,
    batch_size: int = 256,
    on_batch: Callable[[int], None] | None = None,
) -> EmbedOutcome:
    """:func:`embed_missing` keyed by :func:`~osrag.embedding.content_digest` of each text.

    The one call ingest needs: pass the chunks' searchable texts and a
    persistent cache (:class:`~osrag.embedding.SqliteVectorCache`); without
    a cache, repeats within the call are still embedded once.
    """
    return embed_missing(
        [(text, content_digest(text)) for text in texts],
        embedder,
        cache if cache is not None else MemoryVectorCache(),
        batch_size=batch_size,
        on_batch=on_batch,
    )
