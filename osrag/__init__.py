"""osrag: retrieval on OpenSearch that does not lie to you.

Chunks that keep their identity and context, structured values (money first)
in filterable fields, versioned index generations, and queries where a stated
amount is a filter, not a search term.
"""

from __future__ import annotations

__version__ = "0.1.0"

from osrag.config import Settings
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
from osrag.models import Chunk, ChunkingConfig, Document, Span, TokenSpan

__all__ = [
    "AuthError",
    "Chunk",
    "ChunkingConfig",
    "ClusterError",
    "ConfigError",
    "CorpusError",
    "Document",
    "ExtractionConfig",
    "ExtractionError",
    "IndexStateError",
    "LockedError",
    "Money",
    "MoneyMention",
    "NodeError",
    "OsragError",
    "QueryAnalysis",
    "QueryError",
    "Settings",
    "Span",
    "TLSError",
    "TokenSpan",
    "__version__",
    "analyze_query",
    "enrich_chunks",
    "extract_money",
    "parse_money",
]
