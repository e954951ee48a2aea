"""osrag: retrieval on OpenSearch that does not lie to you.

Chunks that keep their identity and context, structured values (money first)
in filterable fields, versioned index generations, and queries where a stated
amount is a filter, not a search term.

The names below are the documented API. Each is imported on first use, so
``import osrag`` costs no client, parser or model load.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "AsyncSearcher": "osrag.search.async_searcher",
    "AuthError": "osrag.errors",
    "Chunk": "osrag.models",
    "ChunkIndex": "osrag.engines.base",
    "ChunkingConfig": "osrag.models",
    "ClusterError": "osrag.errors",
    "ConfigError": "osrag.errors",
    "CorpusError": "osrag.errors",
    "Document": "osrag.models",
    "ExtractionConfig": "osrag.models",
    "ExtractionError": "osrag.errors",
    "IndexStateError": "osrag.errors",
    "IngestOptions": "osrag.ingestion.ingest",
    "IngestReport": "osrag.models",
    "LockedError": "osrag.errors",
    "Money": "osrag.extract.money",
    "MoneyMention": "osrag.extract.money",
    "NodeError": "osrag.errors",
    "OsragError": "osrag.errors",
    "QueryAnalysis": "osrag.search.analysis",
    "QueryError": "osrag.errors",
    "QuerySpec": "osrag.models",
    "SearchHit": "osrag.models",
    "SearchResult": "osrag.models",
    "Searcher": "osrag.search.searcher",
    "Settings": "osrag.config",
    "Span": "osrag.models",
    "TLSError": "osrag.errors",
    "TokenSpan": "osrag.models",
    "add_osrag_clauses": "osrag.search.query",
    "analyze_query": "osrag.search.analysis",
    "build_query": "osrag.search.query",
    "chunk_document": "osrag.chunking",
    "cluster_errors": "osrag.engines.rest.errors",
    "connect": "osrag.engines.rest.clients",
    "enrich_chunks": "osrag.extract.enrich",
    "extract_money": "osrag.extract.money",
    "ingest": "osrag.ingestion.ingest",
    "load_corpus": "osrag.loaders.corpus",
    "load_settings": "osrag.config",
    "open_index": "osrag.engines",
    "parse_money": "osrag.extract.money",
    "plan_query": "osrag.search.query",
    "prepare_chunks": "osrag.ingestion.pipeline",
    "rollback": "osrag.ingestion.ingest",
    "run_evaluation": "osrag.evaluation",
    "to_search": "osrag.search.query",
}

__all__ = [
    "AsyncSearcher",
    "AuthError",
    "Chunk",
    "ChunkIndex",
    "ChunkingConfig",
    "ClusterError",
    "ConfigError",
    "CorpusError",
    "Document",
    "ExtractionConfig",
    "ExtractionError",
    "IndexStateError",
    "IngestOptions",
    "IngestReport",
    "LockedError",
    "Money",
    "MoneyMention",
    "NodeError",
    "OsragError",
    "QueryAnalysis",
    "QueryError",
    "QuerySpec",
    "SearchHit",
    "SearchResult",
    "Searcher",
    "Settings",
    "Span",
    "TLSError",
    "TokenSpan",
    "__version__",
    "add_osrag_clauses",
    "analyze_query",
    "build_query",
    "chunk_document",
    "cluster_errors",
    "connect",
    "enrich_chunks",
    "extract_money",
    "ingest",
    "load_corpus",
    "load_settings",
    "open_index",
    "parse_money",
    "plan_query",
    "prepare_chunks",
    "rollback",
    "run_evaluation",
    "to_search",
]

if TYPE_CHECKING:
    from osrag.chunking import chunk_document
    from osrag.config import Settings, load_settings
    from osrag.engines import open_index
    from osrag.engines.base import ChunkIndex
    from osrag.engines.rest.clients import connect
    from osrag.engines.rest.errors import cluster_errors
    from osrag.errors import (
        AuthError,
        ClusterError,
        ConfigError,
        CorpusError,
        ExtractionError,
        IndexStateError,
        LockedError,
        NodeError,
        OsragError,
        QueryError,
        TLSError,
    )
    from osrag.evaluation import run_evaluation
    from osrag.extract.enrich import enrich_chunks
    from osrag.extract.money import Money, MoneyMention, extract_money, parse_money
    from osrag.ingestion.ingest import IngestOptions, ingest, rollback
    from osrag.ingestion.pipeline import prepare_chunks
    from osrag.loaders.corpus import load_corpus
    from osrag.models import (
        Chunk,
        ChunkingConfig,
        Document,
        ExtractionConfig,
        IngestReport,
        QuerySpec,
        SearchHit,
        SearchResult,
        Span,
        TokenSpan,
    )
    from osrag.search.analysis import QueryAnalysis, analyze_query
    from osrag.search.async_searcher import AsyncSearcher
    from osrag.search.query import add_osrag_clauses, build_query, plan_query, to_search
    from osrag.search.searcher import Searcher


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'osrag' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
