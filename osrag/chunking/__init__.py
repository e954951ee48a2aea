"""Chunking: turn a :class:`~osrag.models.Document` into :class:`~osrag.models.Chunk` records.

Three strategies, one switch (:attr:`ChunkingConfig.strategy`):

- ``fixed`` — token windows with overlap, the exact rule in :mod:`.fixed`;
- ``structural`` — cut on the document's own headings, breadcrumb carried
  (:mod:`.structural`; Markdown via :mod:`.markdown`, plain text via
  :mod:`.plaintext`);
- ``sentences`` — whole sentences packed up to a token budget (:mod:`.sentences`).

Every chunk is built by :func:`~osrag.chunking.records.make_chunk`, so the
span invariant ``normalize(source[span]) == body`` holds for all of them. An
empty document gives no chunks (see :func:`is_empty`).

With an embedder window (:attr:`ChunkingConfig.window`, :mod:`.window`) every chunk
also counts the tokens its embedded text costs the embedder, and by default the size
bound is that window.

The strategies are imported when a document is first cut, and the names below on
first use: a module that needs one piece (the search reads the chunk record's
digest helpers through the ingest plan) does not import every strategy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from osrag.chunking.normalize import normalize  # eager: the function, not its module's name
from osrag.errors import ConfigError
from osrag.exports import lazy_exports

if TYPE_CHECKING:
    from osrag.chunking.records import make_chunk
    from osrag.chunking.structural import breadcrumb
    from osrag.chunking.tokenizers import Tokenizer, get_tokenizer
    from osrag.chunking.window import embed_text, embed_window, fit_config
    from osrag.models import Chunk, ChunkingConfig, Document

_CHUNKING_EXPORTS: dict[str, str] = {
    "Tokenizer": "osrag.chunking.tokenizers",
    "breadcrumb": "osrag.chunking.structural",
    "embed_text": "osrag.chunking.window",
    "embed_window": "osrag.chunking.window",
    "fit_config": "osrag.chunking.window",
    "get_tokenizer": "osrag.chunking.tokenizers",
    "make_chunk": "osrag.chunking.records",
}

__all__ = [
    "Tokenizer",
    "breadcrumb",
    "chunk_document",
    "embed_text",
    "embed_window",
    "fit_config",
    "get_tokenizer",
    "is_empty",
    "make_chunk",
    "normalize",
]


def is_empty(doc: Document) -> bool:
    """A document with no content after its front matter (it gives zero chunks)."""
    return not doc.text[doc.content_start :].strip()


def chunk_document(doc: Document, config: ChunkingConfig) -> list[Chunk]:
    """Cut ``doc`` by ``config`` into chunk records (``[]`` for an empty document)."""
    if is_empty(doc):
        return []
    from osrag.chunking.tokenizers import get_tokenizer
    from osrag.chunking.window import annotate

    tokenizer = get_tokenizer(config.tokenizer)
    window = config.window
    if window is not None and window.fit and get_tokenizer(window.tokenizer).id != tokenizer.id:
        raise ConfigError(
            f"chunking: chunks fitted to the embedder's window must be counted by its "
            f"tokenizer {window.tokenizer!r}, not {config.tokenizer!r} (see fit_config)"
        )
    chunks = annotate(_cut(doc, config, tokenizer), window, doc.text)
    if window is None or not window.fit:
        return chunks
    # A cut inside a word can make a body count one sub-word more alone than where it
    # lay in the document ("improper|ly"): cut the document again with a window
    # narrowed by the overshoot; what still does not fit is counted (tokens_lost).
    narrowed = window
    for _ in range(_REFITS):
        worst = max((c.tokens_lost for c in chunks), default=0)
        if not worst:
            break
        narrowed = narrowed.model_copy(update={"tokens": max(2, narrowed.tokens - worst)})
        chunks = annotate(
            _cut(doc, config.model_copy(update={"window": narrowed}), tokenizer), window, doc.text
        )
    return chunks


_REFITS = 3
"""Narrower re-cuts of a document with a chunk over the window, at most."""


def _cut(doc: Document, config: ChunkingConfig, tokenizer: Tokenizer) -> list[Chunk]:
    if config.strategy == "fixed":
        from osrag.chunking.fixed import fixed_chunks

        return fixed_chunks(doc, config, tokenizer)
    if config.strategy == "sentences":
        from osrag.chunking.sentences import sentence_chunks

        return sentence_chunks(doc, config, tokenizer)
    from osrag.chunking.structural import structural_chunks

    return structural_chunks(doc, config, tokenizer)


__getattr__, __dir__ = lazy_exports(__name__, _CHUNKING_EXPORTS, globals())
