"""The typed search plan: what one search asks of an engine, before any engine's syntax.

``QuerySpec ─analyse─▶ AnalyzedQuery ─plan─▶ SearchPlan ─engine compiles─▶ its own request``

A :class:`SearchPlan` holds the legs (:class:`TextLeg`, :class:`VectorLeg`), the
filters as typed constraints (:mod:`osrag.schema.filters`, in three groups: amounts,
guards, the rest), and how many hits, how deep, collapsed or not, highlighted or not and
fused how. Each engine **compiles** it: the REST engines to their query DSL
(:mod:`osrag.engines.rest.compiler`; :func:`osrag.build_query` is the OpenSearch
compilation), the embedded engine to its own queries. An engine answers with an
:class:`EngineResult` of :class:`EngineHit` s.

The values are frozen slotted dataclasses rather than pydantic models: a plan is
built on every search and never crosses a file or HTTP edge, so it needs no
validation beyond the few invariants checked in ``__post_init__``, and must cost
microseconds (``benchmarks/query.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from osrag.errors import QueryError
from osrag.schema.filters import AmountFilter, Filter, Guard, NamedFilter, Scored

Mode = Literal["bm25", "vector", "hybrid"]
FusionMethod = Literal["rrf", "normalization"]


@dataclass(frozen=True, slots=True)
class TextLeg:
    """The lexical leg: BM25 on ``text`` with optional boosts.

    ``text`` empty: every candidate matches with one constant score (the filters alone
    choose, the tie-break orders). ``no_terms``: what happens when the *analysed* text
    has no terms (only stopwords left after the amount was taken out): ``"all"`` ranks
    by the filters alone, like an empty text (OpenSearch's ``zero_terms_query: all``);
    ``"none"`` matches nothing."""

    text: str
    operator: Literal["or", "and"] = "or"
    minimum_should_match: str | None = None
    breadcrumb_boost: float | None = None
    title_boost: float | None = None
    no_terms: Literal["all", "none"] = "none"
    boosts: tuple[Scored, ...] = ()
    """Constant-score clauses that raise a chunk meeting them (dropped amount constraints)."""
    words_rank: bool = False
    """The words rank the candidates and choose none: a candidate that matches none of
    them still comes back, after those that do (a bound amount filter chooses: a
    document that names the quantity by another of its names, or whose heading calls it
    another kind, still holds it)."""
    floor: float | None = None
    """Keep only the hits scoring at least ``floor`` times the leg's best hit (None: all).
    Applied by the caller to the whole leg, which a plan with a floor fetches from its
    first hit; the engines rank as without it."""

    def __post_init__(self) -> None:
        if self.floor is not None and not 0 < self.floor <= 1:
            raise QueryError(f"lexical leg: a floor is in (0, 1], not {self.floor}")


@dataclass(frozen=True, slots=True)
class VectorLeg:
    """The vector leg: the ``k`` nearest chunks to ``vector`` among those passing every
    filter (the filters choose the candidates first, never a post-filter)."""

    vector: tuple[float, ...]
    k: int
    num_candidates: int | None = None
    """Candidates an approximate search considers (None: the engine's default for ``k``)."""
    floor: float | None = None
    """Keep only the hits scoring at least ``floor`` times the leg's best hit (None: all
    ``k``). Applied by the caller to the whole leg, which a plan with a floor fetches from
    its first hit; the engines rank as without it."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise QueryError(f"vector leg: k must be at least 1, not {self.k}")
        if self.floor is not None and not 0 < self.floor <= 1:
            raise QueryError(f"vector leg: a floor is in (0, 1], not {self.floor}")


@dataclass(frozen=True, slots=True)
class Highlight:
    """Fragments of ``field`` around the matched words, marked by ``pre``/``post``."""

    field: str = "body"
    fragments: int = 2
    fragment_size: int = 160
    pre: str = "«"
    post: str = "»"


@dataclass(frozen=True, slots=True)
class Source:
    """Which stored fields each hit brings: ``includes`` only (when given), else all
    but ``excludes``."""

    includes: tuple[str, ...] | None = None
    excludes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Fusion:
    """How a hybrid plan's two legs become one ranking."""

    method: FusionMethod = "rrf"
    rank_constant: int = 60
    weights: tuple[float, float] | None = None
    in_engine: bool = True
    """Whether the engine may fuse (where it can); False: the legs come back apart and
    the caller fuses (a collapsed plan, or one that must keep one set of statistics)."""


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """One search, typed (see the module docstring). Hits are ordered by score, then
    chunk id descending; ``size`` hits from ``offset``; each leg fetches ``depth``."""

    mode: Mode
    text: TextLeg | None
    vector: VectorLeg | None
    guards: tuple[Guard, ...]
    """Required, never defaulted: a plan without guards says so (an operator's view)."""
    amounts: tuple[AmountFilter, ...] = ()
    filters: tuple[NamedFilter, ...] = ()
    size: int = 10
    offset: int = 0
    depth: int = 10
    """Candidates each leg fetches where the caller fuses or collapses (≥ offset + size)."""
    collapse: bool = False
    """One hit per document (its best chunk)."""
    highlight: Highlight | None = None
    source: Source = field(default_factory=Source)
    fusion: Fusion = field(default_factory=Fusion)
    count_candidates: bool = True
    """Also count the candidate set (the filters alone), exactly."""
    stop_after: int | None = None
    """Stop counting after this many matches (a probe that needs one)."""
    subject: tuple[str, ...] = ()
    """The question's subject (:mod:`osrag.search.subject`) at an amount step whose filter
    no longer holds it: the caller keeps the hits saying the most of these words, where one
    says any (a plan with a subject is fetched from its first hit and paged by the caller);
    the engines rank as without it."""
    subject_slack: int = 0
    """How many of the subject's words fewer than the best hit a hit may say and stay."""
    words_beside: bool = False
    """Of the hits the subject leaves, keep the ones whose amount in range has the most of
    its words beside it (:mod:`osrag.search.beside`): below the bound step."""

    def __post_init__(self) -> None:
        if self.mode in ("bm25", "hybrid") and self.text is None:
            raise QueryError(f"a {self.mode} plan needs a text leg")
        if self.mode in ("vector", "hybrid") and self.vector is None:
            raise QueryError(f"a {self.mode} plan needs a vector leg")
        if self.size < 0 or self.offset < 0 or self.depth < 0:
            raise QueryError("size, offset and depth cannot be negative")

    def all_filters(self) -> list[Filter]:
        """Every filter, in order: amounts, guards, the rest (each leg carries all)."""
        out: list[Filter] = [a.filter for a in self.amounts]
        out += [g.filter() for g in self.guards]
        out += [f.filter for f in self.filters]
        return out

    def named_filters(self) -> list[tuple[str, Filter]]:
        """Every filter with the name a result shows."""
        out: list[tuple[str, Filter]] = [(a.name, a.filter) for a in self.amounts]
        out += [(g.name, g.filter()) for g in self.guards]
        out += [(f.name, f.filter) for f in self.filters]
        return out


@dataclass(frozen=True, slots=True)
class EngineHit:
    """One hit as an engine returns it: osrag's record, not the engine's response."""

    chunk_id: str
    doc_id: str
    score: float | None
    source: dict[str, Any]
    """The stored fields the plan's :class:`Source` selected."""
    highlight: tuple[str, ...] = ()
    index: str | None = None
    """The generation that answered."""


@dataclass(frozen=True, slots=True)
class EngineResult:
    """An engine's answer to one plan.

    ``hits``: the ranked page (fused by the engine where it fused, or the one leg).
    ``legs``: where the caller fuses, each leg's hits ``depth`` deep (lexical, vector)
    and ``hits`` is empty. ``total``: hits the ranked query matched (at least).
    ``candidates``: the candidate set (the filters alone; -1 when not counted).
    ``fused``: how the engine fused (``server:<pipeline>``), or None."""

    hits: tuple[EngineHit, ...]
    total: int
    candidates: int = -1
    legs: tuple[tuple[EngineHit, ...], ...] = ()
    fused: str | None = None
