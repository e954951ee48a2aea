"""A query and its answer: the QuerySpec, the hits, the amounts they hold and why they matched."""

from __future__ import annotations

import datetime as dt
import warnings
from decimal import Decimal
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from osrag.currencies import LONG_MAX, MINOR_UNIT_EXPONENTS
from osrag.schema.constraints import AmountConstraint
from osrag.schema.documents import Span
from osrag.schema.labels import LabelMatches
from osrag.schema.passages import CONTEXT_KINDS, ContextRequest, Passage, PassageReport


def k_for_size(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` (of a :class:`QuerySpec`) with ``size``, the old name of ``k``, given as
    ``k``: still taken, with a ``DeprecationWarning``, for one release."""
    if "size" not in fields:
        return fields
    warnings.warn(
        "size= is deprecated: use k= (the number of hits)", DeprecationWarning, stacklevel=3
    )
    out = dict(fields)
    size = out.pop("size")
    if out.setdefault("k", size) != size:
        raise ValueError("give k, or its deprecated name size, not both")
    return out


class QuerySpec(BaseModel):
    """What a caller asks for: the text, ``k`` hits from ``offset``, the caller's scope
    (tenant, groups) and how to search. :meth:`Searcher.search
    <osrag.search.searcher.Searcher.search>` runs it; :func:`osrag.build_query` gives the
    OpenSearch request body of it."""

    model_config = ConfigDict(extra="forbid")

    text: str
    k: int = Field(default=10, ge=0, le=10_000, description="how many hits to return")
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
        "hybrid: both legs, fused; auto: hybrid where the alias holds vectors, else bm25. "
        "Every filter is inside every leg",
    )
    fusion: Literal["rrf", "normalization"] = Field(
        default="rrf",
        description="hybrid: reciprocal rank fusion, or min-max normalised scores combined "
        "by a weighted arithmetic mean",
    )
    rank_constant: int = Field(default=60, ge=1, description="rrf: the constant k in 1/(k + rank)")
    vector_floor: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="vector and hybrid, at the role-free amount step, where the words choose "
        "the lexical leg's candidates and any amount in range passes: the vector leg keeps "
        "the hits scoring at least this share of its best hit's score, and hybrid fuses its "
        "legs cut to the depth of the shorter one, in documents (0 = off: every filtered "
        "chunk up to k, the legs fused whole)",
    )
    vector_floor_per_unit: float = Field(
        default=0.95,
        ge=0,
        le=1,
        description="vector and hybrid, at the per-unit amount step, where the filter keeps "
        "only amounts stated at the asked unit: the vector leg keeps the hits scoring at "
        "least this share of its best hit's score, and hybrid fuses its legs cut to the "
        "depth of the shorter one, in documents (0 = off: every filtered chunk up to k, the "
        "legs fused whole)",
    )
    lexical_floor: float = Field(
        default=0.3,
        ge=0,
        le=1,
        description="bm25 and hybrid, at the amount steps where the words choose the "
        "lexical leg's candidates (per-unit, role-free): the lexical leg keeps the hits "
        "scoring at least this share of its best hit's score — a chunk that shares only a "
        "word or two of the question with the best one and holds some amount in range is "
        "not returned (0 = off: every matching candidate up to k)",
    )
    subject_cut: bool = Field(
        default=True,
        description="at the amount steps whose filter does not hold the question's words "
        "(bound, narrowed, per-unit, role-free): keep the hits that say as many of the "
        "question's subject words as the best hit, or subject_slack fewer (never none) — what "
        "it asks and about what, without generic quantity and document "
        "nouns or the unit ('phone' of 'phone bills with a total due over $150'; at the bound "
        "step without the words its filter holds: a profile's name for the quantity, a scope, "
        "a part of the year) — where any hit says one; below the bound step, of those, the "
        "hits whose amount in range has the most subject words in its sentence or the "
        "headings above it, and those whose amount the reader does not find, where any "
        "amount in range has one beside it (False: every hit the filters and floors keep)",
    )
    subject_slack: int = Field(
        default=1,
        ge=0,
        description="with subject_cut: a hit may say this many of the subject's words fewer "
        "than the hit saying the most, anywhere and beside its amount in range, and stay (0: "
        "only the hits at the highest coordination level)",
    )
    weights: tuple[float, float] | None = Field(
        default=None, description="normalization: weights of the (lexical, vector) legs"
    )
    source_fields: list[str] | None = Field(
        default=None,
        description="return only these stored fields (chunk_id, doc_id, span always come); "
        "e.g. an evaluation at depth 1000 needs no bodies",
    )
    context: ContextRequest | None = Field(
        default=None,
        description="expand the hits into passages (the Searcher's one extra request): "
        "a kind (neighbours, section, table) or a ContextRequest with its budget",
    )

    @field_validator("context", mode="before")
    @classmethod
    def _context_kind(cls, value: Any) -> Any:
        if isinstance(value, str):
            if value not in CONTEXT_KINDS:
                raise ValueError(f"context {value!r}: choose one of {', '.join(CONTEXT_KINDS)}")
            return ContextRequest(kind=value)  # type: ignore[arg-type]  # checked above
        return value

    @model_validator(mode="before")
    @classmethod
    def _size_is_k(cls, data: Any) -> Any:
        return k_for_size(data) if isinstance(data, dict) else data

    @property
    def size(self) -> int:
        """Deprecated: :attr:`k`."""
        warnings.warn("QuerySpec.size is deprecated: use k", DeprecationWarning, stacklevel=2)
        return self.k

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


AmountStep = Literal["bound", "narrowed", "worded", "per-unit", "role-free", "none"]
"""A step of the amount ladder: every constraint as stated (``bound`` to the quantity it
names where it names one), the named quantities with their first word read as the kind of
document they are in (``narrowed``: "umbrella premium" → a premium in an umbrella
policy), a constraint that says how often on any fact of that unit whatever its label
(``per-unit``: "movers charging over $150 an hour" → any amount over $150 per hour),
every constraint on any amount (``role-free``), or no amount filter (``none``, the
fallback)."""


class StepCount(BaseModel):
    """One step of the amount ladder a search tried, and the candidates it left."""

    step: AmountStep
    candidates: int = Field(description="chunks passing every filter at this step")
    asked: list[str] = Field(
        default_factory=list,
        description="what the step asked of a fact, one line per amount constraint: the "
        "label keys, whose figure, when, how often",
    )
    unsaid: bool = Field(
        default=False,
        description="the step left candidates but none of its hits says a word of the "
        "question's subject: the ladder stepped down from it",
    )


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
        description="the amount constraints together left zero candidates and were dropped "
        "(the ladder's last step, `none`, answered)",
    )
    amount_step: AmountStep | None = Field(
        default=None,
        description="the step of the amount ladder that answered: bound (the constraints as "
        "stated), narrowed (a named quantity's first word read as the kind of document), "
        "worded (a fact of a label holding most of the named quantity's words), "
        "per-unit (a fact of the period unit asked, whatever its label), role-free (bound "
        "constraints on any amount: no fact with the named quantity met them) or none (no "
        "amount filter); None without amount constraints",
    )
    amount_steps: list[StepCount] = Field(
        default_factory=list,
        description="every step tried, in order, with the candidates it left (a step "
        "leaving none is followed by the next)",
    )
    text_fallback: bool = Field(
        default=False,
        description="chunks met the amount constraints but none matched the words: "
        "ranked by the constraints alone",
    )
    subject: list[str] = Field(
        default_factory=list,
        description="the question's subject words the hits were cut by at the amount step "
        "that answered (narrowed, per-unit, role-free): the hits saying the most of them, "
        "where one says any; empty when no cut applied",
    )
    label_matches: list[LabelMatches] = Field(
        default_factory=list,
        description="for each bound constraint's named quantity, the labels of the index it "
        "matched and how: by key, by synonym, by form, by modifier, by meaning (with the "
        "cosine); a quantity no "
        "label matched is said in its note",
    )
    total_hits: int = 0
    raw_hits: int = 0
    unique_spans: int = Field(default=0, description="non-overlapping source spans among hits")
    passages: list[Passage] = Field(
        default_factory=list,
        description="with a context: the hits expanded into the document's own text, within "
        "the budget, best first",
    )
    context: PassageReport | None = Field(
        default=None, description="with a context: what the budget held and left out"
    )
    took_ms: float = Field(
        default=0.0,
        description="the search: planning, embedding the query, requests, fusion — not "
        "loading the embedder's model (embedder_load_ms)",
    )
    embedder_load_ms: float | None = Field(
        default=None,
        description="making the query embedder and loading its model, when this search "
        "did it (a searcher's first vector or hybrid search); None: it was loaded already",
    )
    embedder_note: str | None = Field(
        default=None,
        description="what that load did once and will not do again (built and stored the "
        "embedder's ONNX graph)",
    )
