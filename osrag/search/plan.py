"""The typed search plan: what one search asks of an engine, before any engine's syntax.

``QuerySpec ─analyse─▶ QueryPlan ─plan─▶ SearchPlan ─engine compiles─▶ its own request``

A :class:`SearchPlan` holds the legs (:class:`TextLeg`, :class:`VectorLeg`), the
filters as typed constraints, and how many hits, how deep, collapsed or not,
highlighted or not and fused how. Each engine **compiles** it: the REST engines to
their query DSL (:mod:`osrag.engines.rest_compile`; :func:`osrag.build_query` is the
OpenSearch compilation), the embedded engine to its own queries.

Filters come in three groups, kept apart so that the one policy that may drop a
filter can only drop the droppable ones:

* ``amounts`` — :class:`AmountFilter` s, the only droppable filters (the
  zero-candidate fallback drops all of them together: a second plan, built by the
  Searcher);
* ``guards`` — the access guards :class:`TenantGuard`, :class:`AclGuard`,
  :class:`AsOfGuard`, never dropped;
* ``filters`` — other named filters (category, identifiers, dates).

Every filter is a tree of the primitive constraints :class:`Term`, :class:`Terms`,
:class:`Range`, :class:`Exists`, :class:`NotExists`, :class:`MatchNone`, negated by
:class:`Not`, joined by :class:`AnyOf` / :class:`AllOf`; a guard says what it means
through its ``filter()``. A compiler that handles these nine node types handles every plan.

The values are frozen slotted dataclasses rather than pydantic models: a plan is
built on every search and never crosses a file or HTTP edge, so it needs no
validation beyond the few invariants checked in ``__post_init__``, and must cost
microseconds (``benchmarks/query.py``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from osrag.errors import QueryError
from osrag.search.constraints import AmountConstraint

FieldValue = str | int | float | bool
"""A value a term filter compares with (a keyword, a long, a date as ISO text …)."""
Bound = int | float | str
"""A range bound: a number, or an ISO date."""

Mode = Literal["bm25", "vector", "hybrid"]
FusionMethod = Literal["rrf", "normalization"]


@dataclass(frozen=True, slots=True)
class Term:
    """``field`` holds ``value`` (one of its values). With ``boost``: a scoring clause."""

    field: str
    value: FieldValue
    boost: float | None = None


@dataclass(frozen=True, slots=True)
class Terms:
    """``field`` holds one of ``values``."""

    field: str
    values: tuple[FieldValue, ...]
    boost: float | None = None


@dataclass(frozen=True, slots=True)
class Range:
    """One value of ``field`` lies within every given bound (``gt``/``gte``/``lt``/``lte``)."""

    field: str
    gt: Bound | None = None
    gte: Bound | None = None
    lt: Bound | None = None
    lte: Bound | None = None
    boost: float | None = None

    def __post_init__(self) -> None:
        if self.gt is None and self.gte is None and self.lt is None and self.lte is None:
            raise QueryError(f"range on {self.field!r}: give at least one bound")

    def bounds(self) -> dict[str, Bound]:
        """The given bounds, in the order ``gt``, ``gte``, ``lt``, ``lte``."""
        found = (("gt", self.gt), ("gte", self.gte), ("lt", self.lt), ("lte", self.lte))
        return {name: value for name, value in found if value is not None}


@dataclass(frozen=True, slots=True)
class Exists:
    """``field`` has a value."""

    field: str


@dataclass(frozen=True, slots=True)
class NotExists:
    """``field`` has no value (missing or empty)."""

    field: str


@dataclass(frozen=True, slots=True)
class MatchNone:
    """No chunk passes."""


@dataclass(frozen=True, slots=True)
class Not:
    """``item`` does not hold."""

    item: Filter


@dataclass(frozen=True, slots=True)
class AnyOf:
    """At least one of ``items`` holds."""

    items: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class AllOf:
    """Every one of ``items`` holds."""

    items: tuple[Filter, ...]


Filter = Term | Terms | Range | Exists | NotExists | MatchNone | Not | AnyOf | AllOf
"""A constraint tree; the nine node types a compiler handles."""
Scored = Term | Terms | Range
"""A constraint usable as a constant-score boost (its ``boost`` set)."""


def present_or_missing(present: Filter, field_name: str) -> AnyOf:
    """``present``, or ``field_name`` missing: a document that says nothing is not excluded."""
    return AnyOf((present, NotExists(field_name)))


@dataclass(frozen=True, slots=True)
class TenantGuard:
    """The caller's tenant: its documents; without one, only documents without a tenant."""

    tenant: str | None
    name: str = field(default="tenant", init=False)

    def filter(self) -> Filter:
        return Term("tenant", self.tenant) if self.tenant is not None else NotExists("tenant")


@dataclass(frozen=True, slots=True)
class AclGuard:
    """Documents without an ACL, and those whose ACL names one of the caller's groups."""

    groups: tuple[str, ...]
    """Sorted, distinct; empty: only documents without an ACL."""
    name: str = field(default="acl", init=False)

    def filter(self) -> Filter:
        present: Filter = Terms("acl", self.groups) if self.groups else MatchNone()
        return present_or_missing(present, "acl")


@dataclass(frozen=True, slots=True)
class AsOfGuard:
    """Documents in force on ``day``: effective by then (or undated), not yet superseded."""

    day: dt.date
    name: str = field(default="as_of", init=False)

    def filter(self) -> Filter:
        day = self.day.isoformat()
        return AllOf(
            (
                present_or_missing(Range("effective_from", lte=day), "effective_from"),
                present_or_missing(Range("superseded_on", gt=day), "superseded_on"),
            )
        )


Guard = TenantGuard | AclGuard | AsOfGuard


@dataclass(frozen=True, slots=True)
class AmountFilter:
    """One amount constraint and the filter it compiles to (on ``amounts`` or ``money``)."""

    constraint: AmountConstraint
    filter: Scored
    name: str = field(default="amount", init=False)


@dataclass(frozen=True, slots=True)
class NamedFilter:
    """Another filter the result names (``category``, ``identifiers``, ``dates``)."""

    name: str
    filter: Filter


def amount_filter(
    constraint: AmountConstraint, default_currency: str, *, boost: float | None = None
) -> Scored:
    """The constraint as a filter: ``Term``/``Terms``/``Range`` on the ``long`` field
    ``amounts`` for the default currency; ``Term``/``Terms`` on the ``money`` keyword
    (``EUR:30000000``) for another — a comparison in another currency is refused
    (:meth:`~osrag.search.constraints.AmountConstraint.clause` says why)."""
    b = constraint.bounds
    if constraint.currency != default_currency:
        if constraint.is_range:
            constraint.clause(default_currency)  # raises the QueryError that explains it
        tokens = tuple(f"{constraint.currency}:{v}" for v in b)
        if constraint.op == "eq":
            return Term("money", tokens[0], boost)
        return Terms("money", tokens, boost)
    op = constraint.op
    if op == "eq":
        return Term("amounts", b[0], boost)
    if op == "in":
        return Terms("amounts", tuple(b), boost)
    if op == "between":
        return Range("amounts", gte=b[0], lte=b[1], boost=boost)
    if op == "gt":
        return Range("amounts", gt=b[0], boost=boost)
    if op == "gte":
        return Range("amounts", gte=b[0], boost=boost)
    if op == "lt":
        return Range("amounts", lt=b[0], boost=boost)
    return Range("amounts", lte=b[0], boost=boost)


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


@dataclass(frozen=True, slots=True)
class VectorLeg:
    """The vector leg: the ``k`` nearest chunks to ``vector`` among those passing every
    filter (the filters choose the candidates first, never a post-filter)."""

    vector: tuple[float, ...]
    k: int
    num_candidates: int | None = None
    """Candidates an approximate search considers (None: the engine's default for ``k``)."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise QueryError(f"vector leg: k must be at least 1, not {self.k}")


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
