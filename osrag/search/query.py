"""``QuerySpec`` → OpenSearch request body. Pure: no client, no I/O.

The rule: a stated amount is a **constraint**, not a hint. Every amount
constraint the query text states (:mod:`osrag.search.constraint_parser`) becomes one
clause inside ``bool.filter``: ``$300K`` (``$0.3M``, ``USD 300,000``: all
30,000,000 cents) is ``{"term": {"amounts": 30000000}}``, ``over $500,000`` is
``{"range": {"amounts": {"gt": 50000000}}}``, ``$1M–$2M`` a ``range`` with
``gte``/``lte``, ``$300K or $3M`` a ``terms``; the words go to a ``match`` on
``text`` (BM25, the index's own analyzer). Several constraints are all required
of one chunk. An exact amount in another currency than the default filters on
the ``money`` keyword (``EUR:30000000``), so a euro amount never matches dollar
documents; a comparison in another currency is refused (see
:mod:`osrag.search.constraints`).

The user's text only ever goes into ``match`` queries — never ``query_string``
— so OpenSearch query syntax in it (``"``, ``:``, ``*``, ``AND``, ``\\``) is
searched literally and cannot inject anything.

Only amount filters are *droppable*: if together they leave zero candidates the
searcher runs the query again without any of them and says ``fallback: true``;
the dropped constraints then become constant-score boosts
(``ambiguous_amount_boost``), so chunks meeting some of them rank first. Tenant,
ACL and date filters are never dropped.

Scoring note: inside the filtered candidate set BM25 uses the index's own term
statistics (OpenSearch's behaviour), not statistics recomputed over the
candidate set as the reference lab does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from osrag.engines.mapping import VECTOR_FIELD
from osrag.errors import QueryError
from osrag.models import AmountStatus, AppliedFilter, ExtractionConfig, Money, QuerySpec
from osrag.search.analysis import analyze_query
from osrag.search.constraints import AmountConstraint

SOURCE_EXCLUDES = ["text", VECTOR_FIELD]
"""``text`` repeats breadcrumb and body (results show ``body``); nobody reads the vector."""
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
    amount: Money | None
    amount_status: AmountStatus
    filters: list[AppliedFilter] = field(default_factory=list)
    stated: list[Money] = field(default_factory=list)
    """Every distinct amount the text states."""
    default_currency: str = "USD"
    constraints: list[AmountConstraint] = field(default_factory=list)
    """The amount constraints that filter (empty when the amount filter is off)."""
    amount_notes: list[str] = field(default_factory=list)

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
            "should": [present, {"bool": {"must_not": [{"exists": {"field": field_name}}]}}],
            "minimum_should_match": 1,
        }
    }


def amount_clause(amount: Money, default_currency: str) -> dict[str, Any]:
    """The exact-amount filter (``term`` on ``amounts``, or on ``money`` for another currency)."""
    return exact(amount).clause(default_currency)


def exact(amount: Money, text: str = "") -> AmountConstraint:
    """An ``eq`` constraint on one amount."""
    return AmountConstraint(
        op="eq", currency=amount.currency, bounds=(amount.minor_units,), text=text
    )


def access_filters(tenant: str | None, groups: list[str] | None) -> list[AppliedFilter]:
    """The tenant and ACL guards, built from the caller's arguments alone (fail closed).

    They never depend on what the index is believed to hold, so a document that
    gains a tenant or an ACL is guarded from the moment it is visible:

    * a caller with a tenant sees that tenant's documents; a caller without one sees
      only documents that carry no tenant;
    * a caller sees documents without an ACL, and those whose ACL names one of the
      caller's groups; a caller with no groups sees only documents without an ACL.
    """
    tenant_clause: dict[str, Any] = (
        {"term": {"tenant": tenant}}
        if tenant is not None
        else {"bool": {"must_not": [{"exists": {"field": "tenant"}}]}}
    )
    wanted = sorted(set(groups or []))
    present: dict[str, Any] = {"terms": {"acl": wanted}} if wanted else {"match_none": {}}
    return [
        AppliedFilter(name="tenant", clause=tenant_clause),
        AppliedFilter(name="acl", clause=_either(present, "acl")),
    ]


def _filters(
    spec: QuerySpec, constraints: list[AmountConstraint], default_currency: str
) -> list[AppliedFilter]:
    filters = [
        AppliedFilter(
            name="amount", clause=c.clause(default_currency), droppable=True, constraint=c
        )
        for c in constraints
    ]
    if not spec.unrestricted:
        filters += access_filters(spec.tenant, spec.acl)
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
    analysis = analyze_query(spec.text, config, max_amounts=spec.max_amounts)
    constraints: list[AmountConstraint] = []
    status: AmountStatus
    if not spec.amount_filter:
        status = "off"
    elif spec.constraints is not None:
        constraints, status = list(spec.constraints), "explicit"
    elif spec.amount is not None:
        stated = Money(currency=spec.currency or config.default_currency, minor_units=spec.amount)
        constraints, status = [exact(stated)], "explicit"
    else:
        constraints, status = analysis.constraints, analysis.amount_status
    amount = analysis.amount if status == "one" else None
    if status == "explicit" and len(constraints) == 1 and constraints[0].op == "eq":
        only = constraints[0]
        amount = Money(currency=only.currency, minor_units=only.bounds[0])
    match_text = spec.text if spec.keep_amount_text or not constraints else analysis.remaining_text
    return QueryPlan(
        spec=spec,
        match_text=match_text.strip(),
        amount=amount,
        amount_status=status,
        filters=_filters(spec, constraints, config.default_currency),
        stated=analysis.amounts,  # distinct already (a dict's keys: linear)
        default_currency=config.default_currency,
        constraints=constraints,
        amount_notes=analysis.amount_notes,
    )


def _scoring_clauses(
    plan: QueryPlan, *, drop_amount: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    spec = plan.spec
    if not plan.match_text:
        return [{"match_all": {}}], []
    match: dict[str, Any] = {"query": plan.match_text, "operator": spec.operator}
    if spec.minimum_should_match:
        match["minimum_should_match"] = spec.minimum_should_match
    if plan.has_amount_filter:
        # the words left once the amounts are removed may all be stop words ("What was the
        # … in 2019?"): the constraints then decide alone, instead of the engine's
        # default of matching nothing
        match["zero_terms_query"] = "all"
    must = [{"match": {"text": match}}]
    should: list[dict[str, Any]] = []
    if spec.breadcrumb_boost:
        should.append(
            {"match": {"breadcrumb": {"query": plan.match_text, "boost": spec.breadcrumb_boost}}}
        )
    if spec.title_boost:
        should.append({"match": {"title": {"query": plan.match_text, "boost": spec.title_boost}}})
    if drop_amount and plan.has_amount_filter and spec.ambiguous_amount_boost > 0:
        # The constraints together matched nothing and were dropped: meeting one of them
        # (as integers — no prefix collisions) is still evidence. Constant-score boosts.
        for constraint in plan.constraints:
            should.append(
                constraint.clause(plan.default_currency, boost=spec.ambiguous_amount_boost)
            )
    return must, should


def bool_query(plan: QueryPlan, *, drop_amount: bool = False) -> dict[str, Any]:
    """The ``bool`` query alone (``must`` match, ``should`` boosts, ``filter`` clauses)."""
    must, should = _scoring_clauses(plan, drop_amount=drop_amount)
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


COLLAPSE_DEPTH = 4
"""Chunks fetched per document wanted when the client collapses a vector or hybrid search."""


def count_body(plan: QueryPlan, *, drop_amount: bool = False) -> dict[str, Any]:
    """The size of the candidate set: the filters alone, counted exactly."""
    return {
        "size": 0,
        "query": candidate_query(plan, drop_amount=drop_amount),
        "track_total_hits": True,
    }


def knn_clause(
    plan: QueryPlan, vector: Sequence[float], k: int, *, drop_amount: bool = False
) -> dict[str, Any]:
    """The vector leg: ``k`` nearest neighbours **among the chunks passing every filter**.

    The filters go into ``knn.filter`` (the lucene engine's efficient filtering: the
    candidate set is chosen first, then the neighbours inside it), never into a
    ``post_filter`` or a ``bool`` around ``knn`` — both pick the neighbours first
    and filter afterwards, returning fewer than ``k`` hits, or none, under a
    restrictive filter such as one amount or one tenant.
    """
    inner: dict[str, Any] = {"vector": [float(x) for x in vector], "k": k}
    filters = plan.filter_clauses(drop_amount=drop_amount)
    if filters:
        inner["filter"] = {"bool": {"filter": filters}}
    return {"knn": {VECTOR_FIELD: inner}}


def _shaped(plan: QueryPlan, query: dict[str, Any], size: int, offset: int) -> dict[str, Any]:
    spec = plan.spec
    return {
        "query": query,
        "size": size,
        "from": offset,
        "_source": (
            {"includes": sorted({*ALWAYS_RETURNED, *spec.source_fields})}
            if spec.source_fields is not None
            else {"excludes": SOURCE_EXCLUDES}
        ),
        "track_total_hits": True,
    }


def search_bodies(
    plan: QueryPlan,
    *,
    drop_amount: bool = False,
    vector: Sequence[float] | None = None,
    pipeline: str | None = None,
) -> list[dict[str, Any]]:
    """The bodies of one ``_msearch`` for a plan, the candidate count always last.

    * ``bm25``: the ranked search, the count. The count costs no extra round trip
      (measured in ``benchmarks/query.py`` against a ``global`` aggregation and a
      second request).
    * ``vector``: the vector leg (:func:`knn_clause`), the count.
    * ``hybrid`` with a search ``pipeline`` (OpenSearch's neural-search): one ``hybrid``
      query — it must be the top-level query — holding both legs, the count.
    * ``hybrid`` without one: the lexical leg, the vector leg (each ``from + size``
      deep), the count; :mod:`osrag.search.fusion` fuses them in the client.
    * ``collapse`` in vector or hybrid mode: the client keeps each document's best
      chunk, so the legs are fetched ``COLLAPSE_DEPTH`` times deeper and fused in the
      client (OpenSearch 2.19's ``hybrid`` query does not collapse).

    The same filter list is inside every leg; the amount fallback drops every amount
    filter from every leg together.
    """
    spec = plan.spec
    count = count_body(plan, drop_amount=drop_amount)
    if spec.mode in ("bm25", "auto"):  # auto without a vector: the words alone
        search = request_body(plan, drop_amount=drop_amount)
        search["track_total_hits"] = True
        return [search, count]
    if vector is None:
        raise QueryError(f"mode {spec.mode!r} needs the query's embedding")
    depth = spec.offset + spec.size
    if spec.collapse:  # the client keeps each document's best chunk: fetch deeper
        depth *= COLLAPSE_DEPTH
    knn = knn_clause(plan, vector, max(depth, 1), drop_amount=drop_amount)
    if spec.mode == "vector":
        if spec.collapse:
            return [_shaped(plan, knn, depth, 0), count]
        return [_shaped(plan, knn, spec.size, spec.offset), count]
    lexical = bool_query(plan, drop_amount=drop_amount)
    if pipeline is not None and not spec.collapse:
        hybrid = _shaped(plan, {"hybrid": {"queries": [lexical, knn]}}, spec.size, spec.offset)
        hybrid["search_pipeline"] = pipeline
        return [hybrid, count]
    return [_shaped(plan, lexical, depth, 0), _shaped(plan, knn, depth, 0), count]


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
