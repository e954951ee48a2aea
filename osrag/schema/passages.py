"""Passages: hits expanded into the document's own text around them, under a token budget.

A :class:`ContextRequest` says how to expand (the neighbouring chunks, the enclosing
section, or a table's caption and header), within how many tokens, counted by which
tokenizer. A :class:`Passage` is one region of one document version: its text (read
from the index, never from the source file), where it lies (``span``, ``segments``),
its breadcrumb and pages, and the hits it covers. :class:`PassageReport` says what the
budget held and what it left out. :mod:`osrag.search.passages` assembles them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from osrag.schema.documents import Span

ContextKind = Literal["neighbours", "section", "table"]
CONTEXT_KINDS: tuple[str, ...] = ("neighbours", "section", "table")

DEFAULT_BUDGET = 1024
"""Tokens all passages of one search may hold together, by default."""


class ContextRequest(BaseModel):
    """How a search's hits become passages (``Searcher.search(…, context=…)``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ContextKind = Field(
        default="neighbours",
        description="neighbours: the chunks before and after each hit in its document "
        "version; section: the section enclosing the hit (its heading's parent); table: "
        "for a hit inside a table, the table's caption and header row with the hit",
    )
    budget: int = Field(
        default=DEFAULT_BUDGET,
        ge=1,
        le=1_000_000,
        description="tokens every passage of the search holds together, never exceeded",
    )
    neighbours: int = Field(
        default=1, ge=0, le=64, description="neighbours: chunks on each side of a hit"
    )
    tokenizer: str | None = Field(
        default=None,
        description="the tokenizer that counts the budget (a get_tokenizer name); None: the "
        "embedder's, where the generation has one that states its window, else the one its "
        "chunks were counted in",
    )
    reach: int = Field(
        default=8,
        ge=1,
        le=256,
        description="section and table: chunks on each side of a hit the one extra "
        "request reads (a section larger than that is cut there)",
    )
    hits: int | None = Field(
        default=None,
        ge=0,
        description="expand only the best this many hits (None: every hit returned); the "
        "others become passages of their own text",
    )


class Passage(BaseModel):
    """One region of one document version, with the hits it covers.

    ``text`` is the document's own text over ``segments`` in order: the chunks' bodies,
    an overlap between two chunks once, the whitespace between two chunks as a space
    (one character) or a blank line (more), and a heading that opens a section between
    two chunks as its own paragraph. Segments that do not touch (a table's header and the
    hit's rows) are joined by a line break."""

    doc_id: str
    source_version: str
    text: str
    span: Span = Field(
        description="[start, end) in the source, from its first segment's start to its "
        "last segment's end"
    )
    segments: list[Span] = Field(
        default_factory=list, description="the source intervals the text holds, in order"
    )
    breadcrumb: str = ""
    pages: list[int] = Field(default_factory=list, description="PDF pages the text is on")
    hits: list[str] = Field(
        default_factory=list, description="chunk ids of the hits it covers, best first"
    )
    chunks: list[str] = Field(
        default_factory=list, description="chunk ids whose text it holds, in document order"
    )
    rank: int = Field(default=1, description="the rank of its best hit (from 1)")
    tokens: int = Field(default=0, description="its text's length in the budget's tokens")
    truncated: bool = Field(
        default=False,
        description="its hit alone was longer than the budget: the text is cut there",
    )


class PassageReport(BaseModel):
    """What the budget held, and what it left out."""

    kind: ContextKind
    budget: int
    tokenizer: str = Field(description="name@version of the tokenizer that counted")
    tokens: int = Field(default=0, description="tokens the passages hold together")
    left_out: list[str] = Field(
        default_factory=list,
        description="hits (chunk ids) in no passage: the budget had no room for them",
    )
    expansion_cut: list[str] = Field(
        default_factory=list,
        description="hits whose expansion stopped at the budget before it was complete",
    )
    missing: list[str] = Field(
        default_factory=list,
        description="hits whose chunk the index no longer returned (deleted meanwhile, or "
        "not stored with a body)",
    )
    truncated: list[str] = Field(
        default_factory=list,
        description="hits longer than the whole budget, cut at its last token",
    )
    chunks_read: int = Field(default=0, description="chunks the extra request returned")
    requests: int = Field(default=0, description="extra requests sent (0 or 1)")
    took_ms: float = Field(default=0.0, description="the expansion: the request and the assembly")
    assembly_ms: float = Field(default=0.0, description="of which the assembly (no I/O)")

    def notes(self) -> list[str]:
        """One line per thing the budget or the index left out."""
        found: list[str] = []
        if self.left_out:
            found.append(f"{len(self.left_out)} hit(s) left out: no room in {self.budget} tokens")
        if self.expansion_cut:
            found.append(
                f"{len(self.expansion_cut)} hit(s) expanded only partly: the budget of "
                f"{self.budget} tokens was reached"
            )
        if self.truncated:
            found.append(
                f"{len(self.truncated)} hit(s) longer than {self.budget} tokens: cut there"
            )
        if self.missing:
            found.append(f"{len(self.missing)} hit(s) no longer in the index: not expanded")
        return found
