"""The typed values that flow between osrag's stages.

``files ─load─▶ Document ─chunk─▶ Chunk ─extract─▶ Chunk(+amounts,…) ─index─▶ generation``
``QuerySpec ─analyse─▶ AnalyzedQuery ─plan─▶ SearchPlan ─engine─▶ SearchResult``

The ``--json`` output of every command is the ``model_dump_json()`` of one of
these models, so the library and the CLI share one shape. This module is the
import surface; the models live one concept a module in :mod:`osrag.schema`
(documents and chunks, search, ingest records, extraction settings; the plan types and
filters, which are not pydantic models, in :mod:`osrag.schema.plan` and
:mod:`osrag.schema.filters`).
"""

from __future__ import annotations

from osrag.schema.constraints import AmountConstraint
from osrag.schema.documents import (
    BREADCRUMB_SEPARATOR,
    SPAN_COORDINATES,
    Chunk,
    ChunkingConfig,
    Document,
    DocumentMetadata,
    EmbedWindow,
    LoadIssue,
    Span,
    TokenSpan,
)
from osrag.schema.extraction import (
    DEFAULT_IDENTIFIER_PATTERN,
    EXTRACTION_VERSION,
    ExtractionConfig,
)
from osrag.schema.facts import AmountFact
from osrag.schema.ingest import (
    AccessPolicy,
    ChangeRecord,
    DocumentRecord,
    GenerationRecord,
    IngestReport,
)
from osrag.schema.labels import LabelMatch, LabelMatches, LabelVocabularyReport
from osrag.schema.passages import ContextRequest, Passage, PassageReport
from osrag.schema.search import (
    AmountEvidence,
    AmountStatus,
    AmountStep,
    AppliedFilter,
    Money,
    QuerySpec,
    SearchHit,
    SearchResult,
    StepCount,
)

__all__ = [
    "BREADCRUMB_SEPARATOR",
    "DEFAULT_IDENTIFIER_PATTERN",
    "EXTRACTION_VERSION",
    "SPAN_COORDINATES",
    "AccessPolicy",
    "AmountConstraint",
    "AmountEvidence",
    "AmountFact",
    "AmountStatus",
    "AmountStep",
    "AppliedFilter",
    "ChangeRecord",
    "Chunk",
    "ChunkingConfig",
    "ContextRequest",
    "Document",
    "DocumentMetadata",
    "DocumentRecord",
    "EmbedWindow",
    "ExtractionConfig",
    "GenerationRecord",
    "IngestReport",
    "LabelMatch",
    "LabelMatches",
    "LabelVocabularyReport",
    "LoadIssue",
    "Money",
    "Passage",
    "PassageReport",
    "QuerySpec",
    "SearchHit",
    "SearchResult",
    "Span",
    "StepCount",
    "TokenSpan",
]
