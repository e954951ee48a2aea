"""Documents, spans and chunks: what loading and chunking produce."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from osrag.schema.facts import AmountFact
from osrag.schema.locations import LocationMap

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
    extracted from such a file (:mod:`osrag.schema.locations`); ``None`` for Markdown and text."""


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
    anchor: Literal["none", "structure"] = Field(
        default="none",
        description="paragraphs: windows restart at section starts and at anchor paragraphs "
        "(content-defined), so an edit changes the chunks near it and later chunks keep "
        "their text (osrag.chunking.anchors); none: the strategies' plain rules",
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
    facts: list[AmountFact] = field(default_factory=list)
    """Every amount in the span as a fact: signed value, currency, label, period, evidence
    (:mod:`osrag.schema.facts`); a nested field, so one fact can meet every condition."""
    tokens: int = 0
    """The chunk's length in its tokenizer's tokens (``token_span.end - token_span.start``)."""
    embedder_tokens: int | None = None
    """Tokens the embedder receives for ``text`` (special tokens and prefix included), when
    the chunking config names an embedder window; None otherwise."""
    tokens_lost: int = 0
    """Of those, the tokens past the window, which the embedder cuts off (0 when it fits)."""
