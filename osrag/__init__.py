"""osrag: retrieval on OpenSearch that does not lie to you.

Chunks that keep their identity and context, structured values (money first)
in filterable fields, versioned index generations, and queries where a stated
amount is a filter, not a search term.

The names below are the documented API. Each is imported on first use, so
``import osrag`` costs no client, parser or model load. :data:`_API` is the one
table of them: ``__all__`` is its keys, and the ``TYPE_CHECKING`` block below
names the same objects for type checkers (``tests/test_public_api.py`` holds the
three together). Query DSL helpers for a caller's own OpenSearch client are in
:mod:`osrag.opensearch`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

__version__ = "0.1.0"

_API: dict[str, str] = {
    # searching
    "Searcher": "osrag.search.searcher",
    "AsyncSearcher": "osrag.search.async_searcher",
    "build_query": "osrag.search.query",
    "analyze_query": "osrag.search.analysis",
    "QueryAnalysis": "osrag.search.analysis",
    # ingesting
    "ingest": "osrag.ingestion.ingest",
    "rollback": "osrag.ingestion.ingest",
    "IngestOptions": "osrag.ingestion.ingest",
    "load_corpus": "osrag.loaders.corpus",
    "chunk_document": "osrag.chunking",
    "enrich_chunks": "osrag.extract.enrich",
    "prepare_chunks": "osrag.ingestion.pipeline",
    "extract_money": "osrag.extract.money",
    "parse_money": "osrag.extract.money",
    "MoneyMention": "osrag.extract.money",
    # engines and settings
    "open_index": "osrag.engines",
    "ChunkIndex": "osrag.engines.base",
    "Settings": "osrag.config",
    "load_settings": "osrag.config",
    # evaluating
    "run_evaluation": "osrag.evaluation",
    # the values that cross the API
    "QuerySpec": "osrag.models",
    "AmountConstraint": "osrag.models",
    "SearchResult": "osrag.models",
    "SearchHit": "osrag.models",
    "ContextRequest": "osrag.models",
    "Passage": "osrag.models",
    "Money": "osrag.models",
    "Document": "osrag.models",
    "Chunk": "osrag.models",
    "Span": "osrag.models",
    "TokenSpan": "osrag.models",
    "ChunkingConfig": "osrag.models",
    "ExtractionConfig": "osrag.models",
    "IngestReport": "osrag.models",
    # errors
    "OsragError": "osrag.errors",
    "ConfigError": "osrag.errors",
    "CorpusError": "osrag.errors",
    "InputError": "osrag.errors",
    "ExtractionError": "osrag.errors",
    "ClusterError": "osrag.errors",
    "AuthError": "osrag.errors",
    "TLSError": "osrag.errors",
    "IndexStateError": "osrag.errors",
    "LockedError": "osrag.errors",
    "NodeError": "osrag.errors",
    "QueryError": "osrag.errors",
    "EmbeddingError": "osrag.errors",
    "DimensionMismatchError": "osrag.errors",
}
"""Every public name and the module that defines it."""

_MOVED: dict[str, str] = {
    "add_osrag_clauses": "osrag.opensearch",
    "to_search": "osrag.opensearch",
    "connect": "osrag.opensearch",
    "cluster_errors": "osrag.opensearch",
    "plan_query": "osrag.search.query",
}
"""Names this package exported before, still answered for one release with a
``DeprecationWarning`` naming where they live now."""

__all__ = ["__version__", *_API]

if TYPE_CHECKING:  # `X as X`: re-exported, for type checkers
    from osrag.chunking import chunk_document as chunk_document
    from osrag.config import Settings as Settings
    from osrag.config import load_settings as load_settings
    from osrag.engines import open_index as open_index
    from osrag.engines.base import ChunkIndex as ChunkIndex
    from osrag.errors import AuthError as AuthError
    from osrag.errors import ClusterError as ClusterError
    from osrag.errors import ConfigError as ConfigError
    from osrag.errors import CorpusError as CorpusError
    from osrag.errors import DimensionMismatchError as DimensionMismatchError
    from osrag.errors import EmbeddingError as EmbeddingError
    from osrag.errors import ExtractionError as ExtractionError
    from osrag.errors import IndexStateError as IndexStateError
    from osrag.errors import InputError as InputError
    from osrag.errors import LockedError as LockedError
    from osrag.errors import NodeError as NodeError
    from osrag.errors import OsragError as OsragError
    from osrag.errors import QueryError as QueryError
    from osrag.errors import TLSError as TLSError
    from osrag.evaluation import run_evaluation as run_evaluation
    from osrag.extract.enrich import enrich_chunks as enrich_chunks
    from osrag.extract.money import MoneyMention as MoneyMention
    from osrag.extract.money import extract_money as extract_money
    from osrag.extract.money import parse_money as parse_money
    from osrag.ingestion.ingest import IngestOptions as IngestOptions
    from osrag.ingestion.ingest import ingest as ingest
    from osrag.ingestion.ingest import rollback as rollback
    from osrag.ingestion.pipeline import prepare_chunks as prepare_chunks
    from osrag.loaders.corpus import load_corpus as load_corpus
    from osrag.models import AmountConstraint as AmountConstraint
    from osrag.models import Chunk as Chunk
    from osrag.models import ChunkingConfig as ChunkingConfig
    from osrag.models import ContextRequest as ContextRequest
    from osrag.models import Document as Document
    from osrag.models import ExtractionConfig as ExtractionConfig
    from osrag.models import IngestReport as IngestReport
    from osrag.models import Money as Money
    from osrag.models import Passage as Passage
    from osrag.models import QuerySpec as QuerySpec
    from osrag.models import SearchHit as SearchHit
    from osrag.models import SearchResult as SearchResult
    from osrag.models import Span as Span
    from osrag.models import TokenSpan as TokenSpan
    from osrag.search.analysis import QueryAnalysis as QueryAnalysis
    from osrag.search.analysis import analyze_query as analyze_query
    from osrag.search.async_searcher import AsyncSearcher as AsyncSearcher
    from osrag.search.query import build_query as build_query
    from osrag.search.searcher import Searcher as Searcher


def __getattr__(name: str) -> object:
    module = _API.get(name)
    if module is None:
        moved = _MOVED.get(name)
        if moved is None:
            raise AttributeError(f"module 'osrag' has no attribute {name!r}")
        import warnings

        warnings.warn(
            f"osrag.{name} is deprecated: use {moved}.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(import_module(moved), name)
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
