"""The typed values that flow between osrag's stages.

``files ─load─▶ Document ─chunk─▶ Chunk ─extract─▶ Chunk(+amounts,…) ─index─▶ generation``
``text ─analyze─▶ QuerySpec ─build─▶ dict ─execute─▶ SearchResult``

The ``--json`` output of every command is the ``model_dump_json()`` of one of
these models, so the library and the CLI share one shape.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

BREADCRUMB_SEPARATOR = " › "
"""Joins the heading path into a breadcrumb: ``Title › Section › Subsection``."""

SPAN_COORDINATES = "unicode-code-points-of-decoded-source"
"""The coordinate system of every :class:`Span` (recorded in the manifest)."""


class Span(BaseModel):
    """A half-open interval ``[start, end)`` in code points of the decoded source text."""

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError(f"span end {self.end} is before start {self.start}")
        return self

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


class TokenSpan(BaseModel):
    """A half-open interval of token positions in the chunk's tokenizer."""

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)


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


class LoadIssue(BaseModel):
    """A file (or line) that could not be loaded; the rest of the corpus continues."""

    path: str
    reason: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.reason}"


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


class Chunk(DocumentMetadata):
    """A chunk is a record, not a string: identity, provenance, interval and values."""

    chunk_id: str
    """``{doc_id}#{chunk_index}#{first 16 hex of sha256(text)}``."""
    doc_id: str
    source_path: str
    source_version: str
    strategy: str
    chunk_index: int = Field(ge=0)
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
    amounts: list[int] = Field(default_factory=list)
    """Default-currency amounts in minor units (a ``long`` field)."""
    money: list[str] = Field(default_factory=list)
    """Every amount as ``CUR:minor`` (a keyword field), e.g. ``EUR:30000000``."""
    dates: list[dt.date] = Field(default_factory=list)
    identifiers: list[str] = Field(default_factory=list)
