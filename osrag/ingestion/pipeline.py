"""Document → enriched chunks: the one composition that ``ingest``, ``chunks`` and the
benchmarks share, the versions of every stage (they go into the generation digest),
and the streams that spread the work over worker processes for big corpora:
:func:`load_stream` (files → documents) and :func:`prepare_stream` (documents →
chunks), both in corpus order whatever the number of workers (:mod:`osrag.ingestion.workers`)."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path

from osrag.chunking import chunk_document, fixed, get_tokenizer, markdown, plaintext, sentences
from osrag.errors import ConfigError
from osrag.extract import canonicalize_money, enrich_chunks
from osrag.ingestion.workers import POOL_AFTER, Workers, usable_cores
from osrag.lexicon.profiles import profiles_in_use
from osrag.loaders import LOADERS
from osrag.loaders.corpus import (
    LOADER_VERSION,
    corpus_base,
    iter_corpus_files,
    load_files,
    unique_ids,
)
from osrag.loaders.limits import DEFAULT_READ, ReadOptions
from osrag.models import (
    SPAN_COORDINATES,
    Chunk,
    ChunkingConfig,
    Document,
    ExtractionConfig,
    LoadIssue,
)
from osrag.schema.locations import EXTRACTED_COORDINATES

PARSERS = (fixed.PARSER, markdown.PARSER, plaintext.PARSER, sentences.PARSER)


def pipeline_versions(chunking: ChunkingConfig, extraction: ExtractionConfig) -> dict[str, str]:
    """``name@version`` of the tokenizer, the parsers, the loaders, the document rules and
    the extractors, and the coordinate systems spans are in (Markdown/text; PDF/DOCX/HTML)."""
    return {
        "tokenizer": get_tokenizer(chunking.tokenizer).id,
        "parsers": ",".join(PARSERS),
        "loaders": ",".join(LOADERS),
        "extractors": extraction.version,
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
    """Cut ``doc`` and give every chunk its amounts, money, dates and identifiers (read
    with the family profiles of ``extraction`` in use)."""
    extraction = extraction or ExtractionConfig()
    chunks = chunk_document(doc, chunking)
    with profiles_in_use(extraction.profiles):
        chunks = enrich_chunks(doc, chunks, extraction)
    if canonical_tokens:
        chunks = [_canonical_tokens(c) for c in chunks]
    return chunks


def prepared(doc: Document, prepare: Callable[[Document], list[Chunk]]) -> list[Chunk] | LoadIssue:
    """``prepare(doc)``, or the document's :class:`LoadIssue` when it fails: a document no
    chunking or extraction rule foresaw must not stop the rest of the corpus. A
    :class:`~osrag.errors.ConfigError` (the configuration, not the document) still raises."""
    try:
        return prepare(doc)
    except ConfigError:
        raise
    except RecursionError:
        reason = "could not be cut: nested too deeply"
    except Exception as exc:
        reason = f"could not be cut or its values extracted ({type(exc).__name__}: {exc})"
    return LoadIssue(path=doc.source_path, line=doc.source_line, reason=reason)


FILES_PER_TASK = 4
"""Files one loading task reads (amortises the hand-over of small files to a worker)."""


def default_workers() -> int:
    """Processes that load, chunk and extract: the usable cores minus one (the engine, the
    bulk writers and this process's planning need one), at most 8; so on 2 cores
    everything stays in this process.

    The node needs a core of its own, and documents and chunks handed to a worker cross
    a process boundary: a pool on 2 cores does not pay for itself (``docs/scale.md``).
    """
    return max(1, min(usable_cores() - 1, 8))


def load_stream(
    root: Path, workers: Workers, options: ReadOptions = DEFAULT_READ
) -> Iterator[Document | LoadIssue]:
    """:func:`osrag.loaders.corpus.load_corpus`, with the files read and parsed by ``workers``
    (same documents, same order, same duplicate-id issues)."""
    root = Path(root)
    base = corpus_base(root)
    files = iter_corpus_files(root)
    groups = iter(lambda: list(itertools.islice(files, FILES_PER_TASK)), [])
    loaded = workers.map(functools.partial(load_files, base, options=options), groups)
    return unique_ids(item for items in loaded for item in items)


def _prepare_one(
    doc: Document,
    chunking: ChunkingConfig,
    extraction: ExtractionConfig,
    canonical_tokens: bool,
) -> list[Chunk] | LoadIssue:
    return prepared(
        doc, lambda d: prepare_chunks(d, chunking, extraction, canonical_tokens=canonical_tokens)
    )


def prepare_stream(
    docs: Iterable[Document],
    chunking: ChunkingConfig,
    extraction: ExtractionConfig | None = None,
    *,
    canonical_tokens: bool = False,
    workers: int | Workers = 1,
    pool_after: int = POOL_AFTER,
) -> Generator[tuple[Document, list[Chunk] | LoadIssue], None, None]:
    """``(doc, prepare_chunks(doc, …))`` for every document, in order; a document that
    cannot be prepared comes with its :class:`LoadIssue` instead (:func:`prepared`).

    ``workers``: a process count (a pool is started for this stream and stopped at its
    end) or a shared :class:`~osrag.ingestion.workers.Workers`. Chunking and extraction are
    CPU-bound Python; at most ``workers × WINDOW_PER_WORKER`` documents are in flight.
    """
    extraction = extraction or ExtractionConfig()
    prepare = functools.partial(
        _prepare_one, chunking=chunking, extraction=extraction, canonical_tokens=canonical_tokens
    )
    own = workers if isinstance(workers, Workers) else Workers(workers, pool_after=pool_after)
    held: deque[Document] = deque()

    def remembered() -> Iterator[Document]:
        for doc in docs:
            held.append(doc)
            yield doc

    try:
        for chunks in own.map(prepare, remembered()):
            yield held.popleft(), chunks
    finally:
        if own is not workers:
            own.close()
