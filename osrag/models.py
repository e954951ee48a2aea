"""The typed values that flow between osrag's stages.

``files ─load─▶ Document ─chunk─▶ Chunk ─extract─▶ Chunk(+amounts,…) ─index─▶ generation``
``text ─analyze─▶ QuerySpec ─build─▶ dict ─execute─▶ SearchResult``

The ``--json`` output of every command is the ``model_dump_json()`` of one of
these models, so the library and the CLI share one shape.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    field_validator,
    model_validator,
)

from osrag.currencies import LONG_MAX, MINOR_UNIT_EXPONENTS
from osrag.errors import ConfigError
from osrag.loaders.locations import LocationMap
from osrag.search.constraints import AmountConstraint

BREADCRUMB_SEPARATOR = " › "
"""Joins the heading path into a breadcrumb: ``Title › Section › Subsection``."""

SPAN_COORDINATES = "unicode-code-points-of-decoded-source"
"""The coordinate system of every :class:`Span` (recorded in the manifest)."""


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open interval ``[start, end)`` in code points of the decoded source text."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"span [{self.start}, {self.end}) is not a half-open interval")

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True, slots=True)
class TokenSpan:
    """A half-open interval of token positions in the chunk's tokenizer."""

    start: int
    end: int


class DocumentMetadata(BaseModel):
    """Metadata copied onto every chunk so each chunk is filterable on its own."""

    category: str | None = None
    tenant: str | None = None
    acl: list[str] = Field(default_factory=list)
    effective_from: dt.date | None = None
    superseded_on: dt.date | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class Document(DocumentMetadata):
    """One source document, decoded, with its identity and version."""

    doc_id: str
    source_path: str
    """Path relative to the corpus root, ``/``-separated."""
    source_line: int | None = None
    """1-based line in a ``.jsonl`` source; ``None`` for one-file documents."""
    source_version: str
    """SHA-256 (hex) of the source bytes (the file, or the ``.jsonl`` line)."""
    title: str
    text: str
    """The decoded source text. Every span indexes into this string."""
    content_start: int = 0
    """Offset where content begins (after YAML front matter); chunks never start before it."""
    format: Literal["markdown", "text"] = "markdown"
    locations: LocationMap | None = None
    """Pages (PDF) or elements (DOCX, HTML) → intervals of ``text``, for text a loader
    extracted from such a file (:mod:`osrag.loaders.locations`); ``None`` for Markdown and text."""


class LoadIssue(BaseModel):
    """A file (or line) that could not be loaded; the rest of the corpus continues."""

    path: str
    reason: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.reason}"


class EmbedWindow(BaseModel):
    """The embedder's token window, as the chunker sees it.

    The embedder receives ``prefix + chunk.text`` and adds ``special_tokens`` of its own
    (``[CLS]``/``[SEP]``: 2); whatever lies past ``tokens`` in its tokenizer is cut off.
    With ``fit`` the chunker cuts every chunk so that nothing is cut off; without it the
    chunks are cut as before and the cut-off tokens are only counted.
    """

    model_config = ConfigDict(extra="forbid")

    tokenizer: str = Field(description="the embedder's tokenizer (a get_tokenizer name)")
    tokens: int = Field(ge=2, description="the window, special tokens included")
    special_tokens: int = Field(default=2, ge=0, description="tokens the embedder adds")
    prefix: str = Field(default="", description="text the embedder puts before each chunk")
    fit: bool = Field(default=True, description="cut chunks to fit the window")


class ChunkingConfig(BaseModel):
    """Everything that decides where a document is cut. Part of the generation digest."""

    model_config = ConfigDict(extra="forbid")

    strategy: Literal["fixed", "structural", "sentences"] = "structural"
    tokenizer: str = "whitespace"
    size: int = Field(default=200, ge=1, description="fixed: window length w in tokens")
    overlap: int = Field(
        default=0, ge=0, description="fixed: overlap o in tokens, clamped to [0, w-1]"
    )
    max_tokens: int = Field(
        default=400, ge=1, description="structural/sentences: largest chunk body in tokens"
    )
    min_tokens: int = Field(
        default=0,
        ge=0,
        description="structural: merge a section smaller than this into the next one "
        "(0 = never merge; see the parameter trap in the docs)",
    )
    overlap_sentences: int = Field(
        default=0, ge=0, description="sentences: whole sentences shared by neighbours"
    )
    oversize: Literal["sentences", "fixed"] = Field(
        default="sentences", description="structural: how an oversize section is split"
    )
    window: EmbedWindow | None = Field(
        default=None,
        description="the embedder's window: every chunk counts its embedded tokens, and with "
        "window.fit the size bound is the window (in window.tokenizer, which then also "
        "counts the chunk)",
    )

    @property
    def step(self) -> int:
        """Fixed-window step ``s = w − o`` after clamping."""
        return self.size - self.clamped_overlap

    @property
    def clamped_overlap(self) -> int:
        return min(max(self.overlap, 0), self.size - 1)

    @property
    def storage_multiplier(self) -> float:
        """``w / (w − o)``: how many times each token is stored by fixed windows."""
        return self.size / self.step


@dataclass(slots=True)
class Chunk:
    """A chunk is a record, not a string: identity, provenance, interval and values.

    A plain slotted dataclass, not a pydantic model: it is built once per chunk on the
    ingest hot path (by :func:`osrag.chunking.make_chunk`, which guarantees every field)
    and never re-validated, so it is the cheapest record to build (a frozen dataclass pays
    ``object.__setattr__`` per field; docs/concepts.md has the costs).
    Treat it as immutable: :func:`dataclasses.replace` makes a changed copy.
    :func:`osrag.chunking.records.chunk_source` is its one JSON shape.
    """

    chunk_id: str
    """``{doc_id}#{chunk_index}#{first 16 hex of sha256(text)}``."""
    doc_id: str
    source_path: str
    source_version: str
    strategy: str
    chunk_index: int
    title: str
    text: str
    """``breadcrumb + "\\n" + body``: what is searched."""
    body: str
    """What is displayed; equals ``normalize(source[span.start:span.end])``."""
    breadcrumb: str
    heading_path: list[str]
    span: Span
    token_span: TokenSpan
    tokenizer: str
    """``name@version`` of the tokenizer that counted this chunk."""
    parser: str
    """``name@version`` of the parser that found the structure."""
    content_digest: str
    """Full SHA-256 (hex) of ``text``."""
    pages: list[int] = field(default_factory=list)
    """PDF pages (from 1) the span touches; empty for other formats."""
    elements: list[int] = field(default_factory=list)
    """DOCX/HTML block elements (from 0, document order) the span touches; else empty."""
    category: str | None = None
    tenant: str | None = None
    acl: list[str] = field(default_factory=list)
    effective_from: dt.date | None = None
    superseded_on: dt.date | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    amounts: list[int] = field(default_factory=list)
    """Default-currency amounts in minor units (a ``long`` field)."""
    money: list[str] = field(default_factory=list)
    """Every amount as ``CUR:minor`` (a keyword field), e.g. ``EUR:30000000``."""
    dates: list[dt.date] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)
    amount_evidence: list[dict[str, Any]] = field(default_factory=list)
    """How each amount a caption scaled or a sign negated was read: ``minor_units``,
    ``currency``, ``text`` (as written), ``span`` ([start, end) in the source),
    ``scale`` (power of ten), ``caption``, ``negative``. Stored, never indexed."""
    tokens: int = 0
    """The chunk's length in its tokenizer's tokens (``token_span.end - token_span.start``)."""
    embedder_tokens: int | None = None
    """Tokens the embedder receives for ``text`` (special tokens and prefix included), when
    the chunking config names an embedder window; None otherwise."""
    tokens_lost: int = 0
    """Of those, the tokens past the window, which the embedder cuts off (0 when it fits)."""


# --------------------------------------------------------------------------- query and search


class QuerySpec(BaseModel):
    """What a caller asks for. :func:`osrag.search.query.build_query` turns it into a request
    body."""

    model_config = ConfigDict(extra="forbid")

    text: str
    size: int = Field(default=10, ge=0, le=10_000)
    offset: int = Field(default=0, ge=0, description="the request's `from`")
    amount_filter: bool = Field(
        default=True,
        description="filter on every amount constraint the text states (False: plain BM25 "
        "baseline)",
    )
    amount: int | None = Field(
        default=None, description="an explicit amount in minor units; overrides the text's"
    )
    constraints: list[AmountConstraint] | None = Field(
        default=None,
        description="explicit amount constraints; override the text's (and `amount`)",
    )
    max_amounts: int = Field(
        default=16,
        ge=1,
        le=1024,
        description="a text stating more amounts than this is refused (QueryError)",
    )
    currency: str | None = Field(
        default=None, description="currency of `amount` (default: the extraction default)"
    )
    keep_amount_text: bool = Field(
        default=False,
        description="keep the filtered amount's own words in the match text (by default "
        "they are removed: the filter already holds the amount, and removing them ranks "
        "better on the labelled queries)",
    )
    ambiguous_amount_boost: float = Field(
        default=2.0,
        ge=0,
        description="when the text states several amounts (no filter), boost chunks holding "
        "any of them, matched as integers (0 = off)",
    )
    tenant: str | None = Field(
        default=None,
        description="the caller's tenant; without one only documents that carry no tenant match",
    )
    acl: list[str] | None = Field(
        default=None,
        description="the caller's groups; without any only documents that carry no ACL match",
    )
    unrestricted: bool = Field(
        default=False,
        description="the operator's view (evaluation, administration): no tenant or ACL guard. "
        "Never set it from an end user's request",
    )
    as_of: dt.date | None = Field(default=None, description="only documents in force on this day")
    category: list[str] | None = None
    identifiers: list[str] | None = None
    dates_from: dt.date | None = Field(default=None, description="a date in the chunk ≥ this")
    dates_to: dt.date | None = Field(default=None, description="a date in the chunk ≤ this")
    operator: Literal["or", "and"] = "or"
    minimum_should_match: str | None = None
    breadcrumb_boost: float | None = Field(default=None, gt=0)
    title_boost: float | None = Field(default=None, gt=0)
    highlight: bool = True
    collapse: bool = Field(default=False, description="one hit per document")
    mode: Literal["auto", "bm25", "vector", "hybrid"] = Field(
        default="auto",
        description="bm25: words only; vector: nearest neighbours of the query's embedding; "
        "hybrid: both legs, fused; auto: hybrid where the alias holds vectors, else bm25 "
        "(measured: hybrid ranks better on both evaluation sets). Every filter is inside "
        "every leg",
    )
    fusion: Literal["rrf", "normalization"] = Field(
        default="rrf",
        description="hybrid: reciprocal rank fusion, or min-max normalised scores combined "
        "by a weighted arithmetic mean",
    )
    rank_constant: int = Field(default=60, ge=1, description="rrf: the constant k in 1/(k + rank)")
    weights: tuple[float, float] | None = Field(
        default=None, description="normalization: weights of the (lexical, vector) legs"
    )
    source_fields: list[str] | None = Field(
        default=None,
        description="return only these stored fields (chunk_id, doc_id, span always come); "
        "e.g. an evaluation at depth 1000 needs no bodies",
    )

    @model_validator(mode="after")
    def _operator_fits(self) -> QuerySpec:
        if self.operator == "and" and self.minimum_should_match:
            # OpenSearch would then match nothing: every term is required already
            raise ValueError("minimum_should_match only applies with operator 'or'")
        return self


class AppliedFilter(BaseModel):
    """One clause of ``bool.filter``, named so results can say what constrained them."""

    name: str
    clause: dict[str, Any]
    droppable: bool = False
    """Only amount filters are droppable (by the zero-candidate fallback, all together)."""
    constraint: AmountConstraint | None = None
    """The amount constraint this filter states (amount filters only)."""


AmountStatus = Literal["none", "one", "several", "unrepresentable", "explicit", "off", "ambiguous"]
"""What a query's text said about amounts: none, exactly one constraint (a filter),
several (each a filter, all required), only amounts that cannot be stored (named in
``amount_notes``), constraints stated by the caller, or filtering turned off.
``ambiguous`` is no longer produced (several amounts used to filter nothing); it stays
so results written by older versions still read."""


class Money(BaseModel):
    """An amount: a currency and a non-negative integer of its minor units."""

    model_config = ConfigDict(frozen=True)

    currency: str
    minor_units: int = Field(ge=0, le=LONG_MAX)

    @property
    def token(self) -> str:
        """``CUR:minor`` — the value of the ``money`` keyword field (``EUR:30000000``)."""
        return f"{self.currency}:{self.minor_units}"

    def __str__(self) -> str:
        return self.token

    @classmethod
    def from_token(cls, token: str) -> Money:
        """``EUR:30000000`` → ``Money("EUR", 30000000)`` (the ``money`` field's values)."""
        currency, _, units = token.partition(":")
        return cls(currency=currency, minor_units=int(units))

    def display(self) -> str:
        """``EUR 300,000.00`` — the amount as people write it, minor units as the currency has."""
        exponent = MINOR_UNIT_EXPONENTS.get(self.currency, 2)
        major = Decimal(self.minor_units).scaleb(-exponent)
        return f"{self.currency} {major:,.{exponent}f}"


class AmountEvidence(BaseModel):
    """How one amount of a hit was read: what a caption scaled, what a sign negated."""

    minor_units: int
    """The magnitude, as ``amounts`` stores it."""
    currency: str
    text: str
    """The figures as written (``(3.1)``)."""
    span: tuple[int, int]
    """``[start, end)`` of ``text`` in the source (code points)."""
    scale: int = 0
    """Power of ten the caption multiplied the figures by (0: none)."""
    caption: str | None = None
    negative: bool = False


class SearchHit(BaseModel):
    chunk_id: str
    doc_id: str
    score: float | None
    title: str = ""
    breadcrumb: str = ""
    body: str = ""
    highlight: list[str] = Field(default_factory=list)
    amounts: list[int] = Field(default_factory=list)
    money: list[str] = Field(default_factory=list)
    amount_evidence: list[AmountEvidence] = Field(
        default_factory=list,
        description="how the amounts a table caption scaled or a sign negated were read",
    )
    span: Span
    pages: list[int] = Field(default_factory=list, description="PDF pages the chunk is on")
    chunk_index: int = 0
    overlaps: list[str] = Field(
        default_factory=list,
        description="chunk ids of higher-ranked hits of the same document whose spans overlap",
    )


class SearchResult(BaseModel):
    """A search, with everything needed to see why it returned what it did."""

    query: str
    mode: Literal["bm25", "vector", "hybrid"] = Field(
        default="bm25", description="the mode that ran (auto resolved)"
    )
    fusion: str | None = Field(
        default=None,
        description="how the hybrid legs were fused: `server:<search pipeline>` or `client:rrf`",
    )
    index: str = Field(description="the generation that answered")
    hits: list[SearchHit]
    filters_applied: list[AppliedFilter]
    amount: Money | None = None
    amount_status: AmountStatus = "none"
    constraints: list[AmountConstraint] = Field(
        default_factory=list,
        description="every amount constraint of the query (dropped together on fallback)",
    )
    amount_notes: list[str] = Field(
        default_factory=list, description="amounts written but not usable as filters, and why"
    )
    candidate_count: int = Field(description="documents (chunks) passing every applied filter")
    amount_candidates: int | None = Field(
        default=None,
        description="chunks passing every filter with the amount constraints (0 on fallback)",
    )
    fallback: bool = Field(
        default=False,
        description="the amount constraints together left zero candidates and were dropped",
    )
    text_fallback: bool = Field(
        default=False,
        description="chunks met the amount constraints but none matched the words: "
        "ranked by the constraints alone",
    )
    total_hits: int = 0
    raw_hits: int = 0
    unique_spans: int = Field(default=0, description="non-overlapping source spans among hits")
    took_ms: float = 0.0


# --------------------------------------------------------------------------- index and manifest


class GenerationRecord(BaseModel):
    """A generation index and the configuration that built it (stored in the manifest)."""

    name: str
    alias: str
    digest: str
    number: int
    config: dict[str, Any]
    versions: dict[str, str]
    state: Literal["building", "ready"] = "building"
    created_at: dt.datetime
    completed_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    documents: int = 0
    chunks: int = 0
    tenants: list[str] = Field(default_factory=list)
    has_acl: bool = False
    chunks_truncated: int = Field(
        default=0, description="chunks longer than the embedder's window (their end not embedded)"
    )
    tokens_truncated: int = Field(
        default=0, description="embedder tokens past the window, over those chunks"
    )

    @property
    def multi_tenant(self) -> bool:
        return bool(self.tenants)


class DocumentRecord(BaseModel):
    """What the manifest remembers of one document in one generation."""

    generation: str
    doc_id: str
    source_path: str
    source_version: str
    chunk_ids: list[str]
    tenant: str | None = None
    has_acl: bool = False
    metadata_digest: str = ""
    chunks_truncated: int = 0
    """Of its chunks, those longer than the embedder's window."""
    tokens_truncated: int = 0
    """Their embedder tokens past the window."""
    """Digest of the document-level fields copied onto every chunk (title, tenant, ACL,
    category, dates, meta): when it changes, every chunk is rewritten even where the
    text — and so the chunk id — did not change."""
    ingested_at: dt.datetime


class AccessPolicy(BaseModel):
    """What an alias has ever held, recorded before the first such chunk is written.

    Monotonic: once an alias has held a tenant's documents it requires a tenant
    from every caller, even after those documents are gone."""

    tenants: bool = False
    acl: bool = False


class ChangeRecord(BaseModel):
    """The log of replacements and deletions, so stale citations can be detected."""

    generation: str
    doc_id: str
    action: Literal["added", "replaced", "deleted"]
    old_ids: list[str] = Field(default_factory=list)
    new_ids: list[str] = Field(default_factory=list)
    at: dt.datetime


class IngestReport(BaseModel):
    """What ``osrag ingest --json`` prints."""

    generation: str
    alias: str
    documents: int = 0
    chunks_written: int = 0
    chunks_deleted: int = 0
    chunks_unchanged: int = 0
    documents_unchanged: int = 0
    documents_changed: int = 0
    documents_added: int = 0
    documents_removed: int = 0
    documents_empty: list[str] = Field(default_factory=list)
    errors: list[LoadIssue] = Field(default_factory=list)
    new_generation: bool = False
    alias_moved: bool = False
    previous_generation: str | None = None
    dry_run: bool = False
    orphans_deleted: int = Field(
        default=0,
        description="chunks found in the index that the manifest did not list (left by an "
        "interrupted ingest) and deleted",
    )
    lock_wait_seconds: float = Field(default=0.0, description="time spent waiting for the lock")
    chunks_embedded: int = Field(default=0, description="chunk texts the embedder was asked for")
    vectors_reused: int = Field(
        default=0, description="chunk vectors taken from the cache (their text was embedded before)"
    )
    throttled: int = Field(
        default=0,
        description="chunk writes the engine answered 429 (back-pressure) and were resent",
    )
    bulk_retries: int = Field(default=0, description="back-off rounds those resends took")
    chunks_truncated: int = Field(
        default=0,
        description="written chunks longer than the embedder's window: the embedder sees "
        "only their first window of tokens",
    )
    tokens_truncated: int = Field(
        default=0, description="embedder tokens of written chunks past the window (not embedded)"
    )
    seconds: float = Field(
        default=0.0, description="time of the ingest itself (lock wait excluded)"
    )


# --------------------------------------------------------------------------- extraction

EXTRACTION_VERSION = "money@2,dates@1,identifiers@1"
"""Bump the part that changes whenever ``osrag/extract`` changes what it extracts.

It goes into the index-generation digest (with the :class:`ExtractionConfig`
values), so changed extraction builds a new generation instead of silently
reusing chunk ids whose ``amounts`` were computed by older rules.
"""

DEFAULT_IDENTIFIER_PATTERN = r"[A-Z](?<!\w[A-Z])[A-Z]{1,4}-\d{3,}(?:-\d+)*\b"
r"""Policy-number-like identifiers (``UMB-300000``, ``POL-30000-7``):
``\b[A-Z]{2,5}-\d{3,}(?:-\d+)*\b``, written to start with a character class so the regex
engine skips to capitals (3x faster)."""


class ExtractionConfig(BaseModel):
    """What decides which structured values are taken out of text. Part of the generation digest."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    default_currency: str = Field(
        default="USD",
        description="ISO 4217 code whose amounts go to the `amounts` long field; "
        "a bare `$`/'dollars' means this currency when it is a dollar currency, else USD",
    )
    identifier_patterns: list[str] = Field(
        default_factory=lambda: [DEFAULT_IDENTIFIER_PATTERN],
        description="regular expressions (Python `re`); each match is upper-cased",
    )
    date_order: Literal["MDY", "DMY"] = Field(
        default="MDY",
        description="how to read an all-numeric slash date such as 01/15/2024",
    )

    @field_validator("default_currency")
    @classmethod
    def _known_currency(cls, value: str) -> str:
        code = value.strip().upper()
        if code not in MINOR_UNIT_EXPONENTS:
            known = ", ".join(sorted(MINOR_UNIT_EXPONENTS))
            raise ConfigError(
                f"default_currency: {value!r} is not a currency osrag knows ({known})"
            )
        return code

    @field_validator("identifier_patterns")
    @classmethod
    def _compilable(cls, patterns: list[str]) -> list[str]:
        import re

        for i, pattern in enumerate(patterns):
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                message = f"identifier_patterns[{i}]: {pattern!r} is not a regex: {exc}"
                raise ConfigError(message) from None
            if compiled.match(""):
                raise ConfigError(f"identifier_patterns[{i}]: {pattern!r} matches the empty string")
        return patterns

    @computed_field  # type: ignore[prop-decorator]
    @property
    def version(self) -> str:
        """``money@N,dates@N,identifiers@N``: the extraction code's behaviour version."""
        return EXTRACTION_VERSION
