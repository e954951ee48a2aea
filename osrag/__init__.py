"""osrag: retrieval on OpenSearch that does not lie to you.

Chunks that keep their identity and context, structured values (money first)
in filterable fields, versioned index generations, and queries where a stated
amount is a filter, not a search term.
"""

from __future__ import annotations

__version__ = "0.1.0"

from osrag.backends import ChunkIndex, open_index
from osrag.chunking import chunk_document
from osrag.client import cluster_errors, connect
from osrag.config import Settings, load_settings
from osrag.documents import load_corpus
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
from osrag.extract import (
    ExtractionConfig,
    Money,
    MoneyMention,
    QueryAnalysis,
    analyze_query,
    enrich_chunks,
    extract_money,
    parse_money,
)
from osrag.index import IngestOptions, ingest, rollback
from osrag.models import (
    Chunk,
    ChunkingConfig,
    Document,
    IngestReport,
    QuerySpec,
    SearchHit,
    SearchResult,
    Span,
    TokenSpan,
)
from osrag.pipeline import prepare_chunks
from osrag.query import add_osrag_clauses, build_query, plan_query, to_search
from osrag.search import Searcher

TYPE_CHECKING = False
if TYPE_CHECKING:
    from osrag.async_search import AsyncSearcher


def __getattr__(name: str) -> object:
    # AsyncSearcher is imported on first use: ``import osrag`` loads no asyncio client
    if name == "AsyncSearcher":
        from osrag.async_search import AsyncSearcher

        return AsyncSearcher
    raise AttributeError(f"module 'osrag' has no attribute {name!r}")


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
