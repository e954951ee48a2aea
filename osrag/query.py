"""``QuerySpec`` → OpenSearch request body. Pure: no client, no I/O.

The rule: a stated amount is a **constraint**, not a hint. When the query text
states exactly one amount (``$300K``, ``$0.3M``, ``USD 300,000`` all mean
30,000,000 cents) it becomes ``{"term": {"amounts": 30000000}}`` inside
``bool.filter``; the words go to a ``match`` on ``text`` (BM25, the index's own
analyzer). Zero or several amounts → no amount filter (ambiguous), unless the
caller states the amount explicitly. An amount in another currency than the
default filters on the ``money`` keyword (``EUR:30000000``), so a euro amount
never matches dollar documents.

The user's text only ever goes into ``match`` queries — never ``query_string``
— so OpenSearch query syntax in it (``"``, ``:``, ``*``, ``AND``, ``\\``) is
searched literally and cannot inject anything.

Only the amount filter is *droppable*: if it leaves zero candidates the
searcher runs the query again without it and says ``fallback: true``. Tenant,
ACL and date filters are never dropped.

Scoring note: inside the filtered candidate set BM25 uses the index's own term
statistics (OpenSearch's behaviour), not statistics recomputed over the
candidate set as the reference lab does.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from osrag.extract import analyze_query
from osrag.models import AppliedFilter, ExtractionConfig, QuerySpec, StatedAmount

AmountStatus = Literal["none", "one", "ambiguous", "explicit", "off"]

SOURCE_EXCLUDES = ["text"]
"""``text`` repeats breadcrumb and body; results show ``body``."""
ALWAYS_RETURNED = ("chunk_id", "doc_id", "span", "chunk_index")
TIE_BREAK_SORT: list[dict[str, str]] = [{"_score": "desc"}, {"chunk_id": "desc"}]
"""Every request's order: score, then the chunk id. Tied scores are common (short texts,
duplicated passages) and without a second key engines return ties in internal document
order, which differs between two ingests of the same corpus. Descending, because that is
how trec_eval breaks ties (docno descending, ``strcmp``): a run file written with the
engine's own scores is then scored by trec_eval, pytrec_eval and ir_measures exactly as
osrag scores the ranking (a chunk id starts with its document id and ``#``)."""


@dataclass(frozen=True)
class QueryPlan:
    """A spec after analysis: the match text and every filter, named."""

    spec: QuerySpec
    match_text: str
    amount: StatedAmount | None
    amount_status: AmountStatus
    filters: list[AppliedFilter] = field(default_factory=list)
    stated: list[StatedAmount] = field(default_factory=list)
    """Every distinct amount the text states (several: ambiguous, only boosted)."""
    default_currency: str = "USD"

    def filter_clauses(self, *, drop_amount: bool = False) -> list[dict[str, Any]]:
        return [f.clause for f in self.filters if not (drop_amount and f.droppable)]

    def applied(self, *, drop_amount: bool = False) -> list[AppliedFilter]:
        return [f for f in self.filters if not (drop_amount and f.droppable)]

    @property
    def has_amount_filter(self) -> bool:
        return any(f.droppable for f in self.filters)


def _as_spec(text_or_spec: str | QuerySpec, overrides: dict[str, Any]) -> QuerySpec:
    if isinstance(text_or_spec, QuerySpec):
        return text_or_spec.model_copy(update=overrides) if overrides else text_or_spec
    return QuerySpec(text=text_or_spec, **overrides)


def _either(present: dict[str, Any], field_name: str) -> dict[str, Any]:
    """``present`` or the field is missing: a document that says nothing is not excluded."""
    return {
        "bool": {
            "should": [present, {"bool": {"must_not": {"exists": {"field": field_name}}}}],
            "minimum_should_match": 1,
        }
    }


def amount_clause(amount: StatedAmount, default_currency: str) -> dict[str, Any]:
    if amount.currency == default_currency:
        return {"term": {"amounts": amount.minor_units}}
    return {"term": {"money": f"{amount.currency}:{amount.minor_units}"}}


def _filters(
    spec: QuerySpec, amount: StatedAmount | None, default_currency: str
) -> list[AppliedFilter]:
    filters: list[AppliedFilter] = []
    if amount is not None:
        filters.append(
            AppliedFilter(
                name="amount", clause=amount_clause(amount, default_currency), droppable=True
            )
        )
    if spec.tenant is not None:
        filters.append(AppliedFilter(name="tenant", clause={"term": {"tenant": spec.tenant}}))
    if spec.acl is not None:
        # Documents without an ACL are public; a caller with no groups sees only those.
        groups = sorted(set(spec.acl))
        present: dict[str, Any] = {"terms": {"acl": groups}} if groups else {"match_none": {}}
        filters.append(AppliedFilter(name="acl", clause=_either(present, "acl")))
    if spec.as_of is not None:
        day = spec.as_of.isoformat()
        filters.append(
            AppliedFilter(
                name="as_of",
                clause={
                    "bool": {
                        "filter": [
                            _either({"range": {"effective_from": {"lte": day}}}, "effective_from"),
                            _either({"range": {"superseded_on": {"gt": day}}}, "superseded_on"),
                        ]
                    }
                },
            )
        )
    if spec.category:
        filters.append(
            AppliedFilter(name="category", clause={"terms": {"category": spec.category}})
        )
    if spec.identifiers:
        wanted = sorted({i.upper() for i in spec.identifiers})
        filters.append(AppliedFilter(name="identifiers", clause={"terms": {"identifiers": wanted}}))
    if spec.dates_from is not None or spec.dates_to is not None:
        bounds: dict[str, str] = {}
        if spec.dates_from is not None:
            bounds["gte"] = spec.dates_from.isoformat()
        if spec.dates_to is not None:
            bounds["lte"] = spec.dates_to.isoformat()
        filters.append(AppliedFilter(name="dates", clause={"range": {"dates": bounds}}))
    return filters


def plan_query(
    text_or_spec: str | QuerySpec,
    *,
    extraction: ExtractionConfig | None = None,
    **overrides: Any,
) -> QueryPlan:
    """Analyse the text and name every filter. ``overrides`` are :class:`QuerySpec` fields."""
    spec = _as_spec(text_or_spec, overrides)
    config = extraction or ExtractionConfig()
    analysis = analyze_query(spec.text, config)
    amount: StatedAmount | None = None
    status: AmountStatus
    if not spec.amount_filter:
        status = "off"
    elif spec.amount is not None:
        amount = StatedAmount(
            currency=spec.currency or config.default_currency, minor_units=spec.amount
        )
        status = "explicit"
    elif analysis.amount is not None:
        amount = StatedAmount(
            currency=analysis.amount.currency, minor_units=analysis.amount.minor_units
        )
        status = "one"
    else:
        status = "ambiguous" if analysis.amounts else "none"
    match_text = spec.text if spec.keep_amount_text or amount is None else analysis.remaining_text
    stated: list[StatedAmount] = []
    for money in analysis.amounts:
        value = StatedAmount(currency=money.currency, minor_units=money.minor_units)
        if value not in stated:
            stated.append(value)
    return QueryPlan(
        spec=spec,
        match_text=match_text.strip(),
        amount=amount,
        amount_status=status,
        filters=_filters(spec, amount, config.default_currency),
        stated=stated,
        default_currency=config.default_currency,
    )


def _scoring_clauses(plan: QueryPlan) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    spec = plan.spec
    if not plan.match_text:
        return [{"match_all": {}}], []
    match: dict[str, Any] = {"query": plan.match_text, "operator": spec.operator}
    if spec.minimum_should_match:
        match["minimum_should_match"] = spec.minimum_should_match
    must = [{"match": {"text": match}}]
    should: list[dict[str, Any]] = []
    if spec.breadcrumb_boost:
        should.append(
            {"match": {"breadcrumb": {"query": plan.match_text, "boost": spec.breadcrumb_boost}}}
        )
    if spec.title_boost:
        should.append({"match": {"title": {"query": plan.match_text, "boost": spec.title_boost}}})
    if plan.amount_status == "ambiguous" and spec.ambiguous_amount_boost > 0:
        # Several amounts: none is *the* constraint, but holding one of them exactly (as an
        # integer — no prefix collisions) is evidence. A constant-score boost, not a filter.
        for value in plan.stated:
            clause = amount_clause(value, plan.default_currency)
            field_name, term = next(iter(clause["term"].items()))
            should.append(
                {"term": {field_name: {"value": term, "boost": spec.ambiguous_amount_boost}}}
            )
    return must, should


def bool_query(plan: QueryPlan, *, drop_amount: bool = False) -> dict[str, Any]:
    """The ``bool`` query alone (``must`` match, ``should`` boosts, ``filter`` clauses)."""
    must, should = _scoring_clauses(plan)
    body: dict[str, Any] = {"must": must}
    if should:
        body["should"] = should
    filters = plan.filter_clauses(drop_amount=drop_amount)
    if filters:
        body["filter"] = filters
    return {"bool": body}


def candidate_query(plan: QueryPlan, *, drop_amount: bool = False) -> dict[str, Any]:
    """Only the filters: the candidate set BM25 ranks inside."""
    filters = plan.filter_clauses(drop_amount=drop_amount)
    return {"bool": {"filter": filters}} if filters else {"match_all": {}}


def request_body(plan: QueryPlan, *, drop_amount: bool = False) -> dict[str, Any]:
    """The full ``_search`` body for a plan."""
    spec = plan.spec
    body: dict[str, Any] = {
        "query": bool_query(plan, drop_amount=drop_amount),
        "size": spec.size,
        "from": spec.offset,
        "sort": [dict(key) for key in TIE_BREAK_SORT],
        "_source": (
            {"includes": sorted({*ALWAYS_RETURNED, *spec.source_fields})}
            if spec.source_fields is not None
            else {"excludes": SOURCE_EXCLUDES}
        ),
    }
    if spec.highlight and plan.match_text:
        body["highlight"] = {
            "fields": {"body": {"number_of_fragments": 2, "fragment_size": 160}},
            "require_field_match": False,  # the match is on `text`; fragments come from `body`
            "pre_tags": ["«"],
            "post_tags": ["»"],
        }
    if spec.collapse:
        body["collapse"] = {"field": "doc_id"}
    return body


def build_query(
    text_or_spec: str | QuerySpec,
    *,
    drop_amount: bool = False,
    extraction: ExtractionConfig | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """The OpenSearch request body for a query text or :class:`QuerySpec`.

    >>> body = build_query("umbrella coverage $300K", tenant="acme")
    >>> body["query"]["bool"]["filter"][0]
    {'term': {'amounts': 30000000}}
    """
    return request_body(
        plan_query(text_or_spec, extraction=extraction, **overrides), drop_amount=drop_amount
    )


def add_osrag_clauses(
    bool_body: dict[str, Any],
    text_or_spec: str | QuerySpec,
    *,
    extraction: ExtractionConfig | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """Add osrag's match and filters to a caller's own ``{"bool": {...}}`` (a new dict).

    The caller's clauses are kept; osrag's ``must``/``should``/``filter`` are appended.
    """
    plan = plan_query(text_or_spec, extraction=extraction, **overrides)
    ours = bool_query(plan)["bool"]
    theirs = dict(bool_body.get("bool", bool_body))
    merged: dict[str, Any] = {k: v for k, v in theirs.items()}
    for key in ("must", "should", "filter"):
        if key in ours:
            existing = theirs.get(key, [])
            existing = existing if isinstance(existing, list) else [existing]
            merged[key] = [*existing, *ours[key]]
    return {"bool": merged}


def to_search(
    text_or_spec: str | QuerySpec,
    *,
    index: str | None = None,
    extraction: ExtractionConfig | None = None,
    **overrides: Any,
) -> Any:
    """The same request as an opensearch-py DSL ``Search`` object (``Q`` inside)."""
    from opensearchpy import Search

    body = build_query(text_or_spec, extraction=extraction, **overrides)
    return Search(index=index).update_from_dict(body)


def day(value: str | dt.date) -> dt.date:
    """Parse an ISO day for CLI and API callers."""
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(value)
