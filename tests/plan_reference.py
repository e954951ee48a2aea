"""The request builder as it was before the typed plan: the reference the plan's
compilation is compared with (tests/test_plan_compile.py). Kept only here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from osrag.engines.mapping import VECTOR_FIELD
from osrag.errors import QueryError
from osrag.models import AppliedFilter, QuerySpec
from osrag.search.constraints import AmountConstraint
from osrag.search.query import (
    ALWAYS_RETURNED,
    COLLAPSE_DEPTH,
    SOURCE_EXCLUDES,
    TIE_BREAK_SORT,
    QueryPlan,
)


def _either(present: dict[str, Any], field_name: str) -> dict[str, Any]:
    """``present`` or the field is missing: a document that says nothing is not excluded."""
    return {
        "bool": {
            "should": [present, {"bool": {"must_not": [{"exists": {"field": field_name}}]}}],
            "minimum_should_match": 1,
        }
    }


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


def _scoring_clauses(
    plan: QueryPlan, *, drop_amount: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
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
