"""Document → enriched chunks: the one composition that ``ingest``, ``chunks`` and the
benchmarks share, and the versions of every stage (they go into the generation digest)."""

from __future__ import annotations

import hashlib

from osrag.chunking import chunk_document, fixed, get_tokenizer, markdown, plaintext, sentences
from osrag.extract import canonicalize_money, enrich_chunks
from osrag.models import EXTRACTION_VERSION, Chunk, ChunkingConfig, Document, ExtractionConfig

PARSERS = (fixed.PARSER, markdown.PARSER, plaintext.PARSER, sentences.PARSER)


def pipeline_versions(chunking: ChunkingConfig, extraction: ExtractionConfig) -> dict[str, str]:
    """``name@version`` of the tokenizer, the parsers and the extractors."""
    return {
        "tokenizer": get_tokenizer(chunking.tokenizer).id,
        "parsers": ",".join(PARSERS),
        "extractors": EXTRACTION_VERSION,
    }


def _canonical_tokens(chunk: Chunk) -> Chunk:
    """The reference's broken approach, for the evaluation baseline only.

    ``money:<minor units>`` tokens replace every amount in the searched ``text``;
    the chunk id follows the new text (a different generation, never mixed).
    """
    text = canonicalize_money(chunk.text)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return chunk.model_copy(
        update={
            "text": text,
            "content_digest": digest,
            "chunk_id": f"{chunk.doc_id}#{chunk.chunk_index}#{digest[:16]}",
        }
    )


def prepare_chunks(
    doc: Document,
    chunking: ChunkingConfig,
    extraction: ExtractionConfig | None = None,
    *,
    canonical_tokens: bool = False,
) -> list[Chunk]:
    """Cut ``doc`` and give every chunk its amounts, money, dates and identifiers."""
    chunks = chunk_document(doc, chunking)
    chunks = enrich_chunks(doc, chunks, extraction or ExtractionConfig())
    if canonical_tokens:
        chunks = [_canonical_tokens(c) for c in chunks]
    return chunks
