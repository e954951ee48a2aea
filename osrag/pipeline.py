"""Document → enriched chunks: the one composition that ``ingest``, ``chunks`` and the
benchmarks share, the versions of every stage (they go into the generation digest),
and :func:`prepare_stream`, which spreads that work over processes for big corpora."""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
import os
from collections import deque
from collections.abc import Generator, Iterable
from concurrent.futures import Future, ProcessPoolExecutor

from osrag.chunking import chunk_document, fixed, get_tokenizer, markdown, plaintext, sentences
from osrag.documents import LOADER_VERSION
from osrag.extract import canonicalize_money, enrich_chunks
from osrag.loaders import LOADERS
from osrag.locations import EXTRACTED_COORDINATES
from osrag.models import (
    EXTRACTION_VERSION,
    SPAN_COORDINATES,
    Chunk,
    ChunkingConfig,
    Document,
    ExtractionConfig,
)

PARSERS = (fixed.PARSER, markdown.PARSER, plaintext.PARSER, sentences.PARSER)


def pipeline_versions(chunking: ChunkingConfig, extraction: ExtractionConfig) -> dict[str, str]:
    """``name@version`` of the tokenizer, the parsers, the loaders, the document rules and
    the extractors, and the coordinate systems spans are in (Markdown/text; PDF/DOCX/HTML)."""
    return {
        "tokenizer": get_tokenizer(chunking.tokenizer).id,
        "parsers": ",".join(PARSERS),
        "loaders": ",".join(LOADERS),
        "extractors": EXTRACTION_VERSION,
        "coordinates": f"{SPAN_COORDINATES},{EXTRACTED_COORDINATES}",
        "documents": LOADER_VERSION,
    }


def _canonical_tokens(chunk: Chunk) -> Chunk:
    """The reference's broken approach, for the evaluation baseline only.

    ``money:<minor units>`` tokens replace every amount in the searched ``text``;
    the chunk id follows the new text (a different generation, never mixed).
    """
    text = canonicalize_money(chunk.text)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return dataclasses.replace(
        chunk,
        text=text,
        content_digest=digest,
        chunk_id=f"{chunk.doc_id}#{chunk.chunk_index}#{digest[:16]}",
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


POOL_AFTER = 32
"""Documents prepared in-process before a pool is worth its start-up (~0.3 s)."""
WINDOW_PER_WORKER = 16
"""Documents in flight per worker: bounds memory whatever the corpus size."""


def default_workers() -> int:
    """Processes that chunk and extract: one core is left to the engine and the writer,
    at most 4 — so on 2 cores everything stays in this process.

    Measured with ``benchmarks/ingest.py`` on 2 cores: a pool of 2 was slower than
    none (the documents and chunks cross process boundaries, and the node needs a
    core of its own).
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min((usable or 1) - 1, 4))


def _pool(workers: int) -> ProcessPoolExecutor:
    # forkserver: workers are forked from a clean server process that imported the
    # pipeline once, never from this one (which may run threads: the bulk writer).
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["osrag.pipeline"])
    return ProcessPoolExecutor(max_workers=workers, mp_context=context)


def prepare_stream(
    docs: Iterable[Document],
    chunking: ChunkingConfig,
    extraction: ExtractionConfig | None = None,
    *,
    canonical_tokens: bool = False,
    workers: int = 1,
    pool_after: int = POOL_AFTER,
) -> Generator[tuple[Document, list[Chunk]], None, None]:
    """``(doc, prepare_chunks(doc, …))`` for every document, in order.

    With ``workers > 1`` and more than ``pool_after`` documents, the work runs in a
    process pool (chunking and extraction are CPU-bound Python); at most
    ``workers × WINDOW_PER_WORKER`` documents are in flight.
    """
    extraction = extraction or ExtractionConfig()
    pool: ProcessPoolExecutor | None = None
    pending: deque[tuple[Document, Future[list[Chunk]]]] = deque()
    window = max(1, workers) * WINDOW_PER_WORKER
    try:
        for count, doc in enumerate(docs):
            if workers <= 1 or count < pool_after:
                yield (
                    doc,
                    prepare_chunks(doc, chunking, extraction, canonical_tokens=canonical_tokens),
                )
                continue
            if pool is None:
                pool = _pool(workers)
            pending.append(
                (
                    doc,
                    pool.submit(
                        prepare_chunks, doc, chunking, extraction, canonical_tokens=canonical_tokens
                    ),
                )
            )
            while len(pending) >= window:
                ready, future = pending.popleft()
                yield ready, future.result()
        while pending:
            ready, future = pending.popleft()
            yield ready, future.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
