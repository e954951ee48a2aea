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
"""

from __future__ import annotations

from osrag.chunking.fixed import fixed_chunks
from osrag.chunking.normalize import normalize
from osrag.chunking.records import make_chunk
from osrag.chunking.sentences import sentence_chunks
from osrag.chunking.structural import breadcrumb, structural_chunks
from osrag.chunking.tokenizers import Tokenizer, get_tokenizer
from osrag.models import Chunk, ChunkingConfig, Document

__all__ = [
    "Tokenizer",
    "breadcrumb",
    "chunk_document",
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
    tokenizer = get_tokenizer(config.tokenizer)
    if config.strategy == "fixed":
        return fixed_chunks(doc, config, tokenizer)
    if config.strategy == "sentences":
        return sentence_chunks(doc, config, tokenizer)
    return structural_chunks(doc, config, tokenizer)
