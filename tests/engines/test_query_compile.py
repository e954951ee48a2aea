"""The REST compiler's own rules, property-tested on generated query specs: every leg
carries the same filter list as the candidate count (never a post-filter), the count comes
last, the amount fallback drops every amount filter from every leg together, a hybrid
plan is one body on the engine or two legs for the client, ``zero_terms_query`` exactly
where the text left after the amount has no terms; each amount constraint is one clause.
The exact bodies are pinned by ``tests/engines/test_request_golden.py``."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from osrag.engines.rest.compiler import compile_filter
from osrag.models import QuerySpec
from osrag.schema.constraints import AmountConstraint
from osrag.schema.filters import Range, amount_boost, amount_filter
from osrag.search.query import plan_query, search_bodies

WORDS = ["umbrella", "coverage", "limits", "the", "of", "what", "flood", "policy", "UMB-300000",
         "$300K", "$300,000", "€300,000", "over $500,000", "between $1M and $2M", "under $50",
         "about $500K", "$300K or $3M", "?", "2024"]  # fmt: skip

days = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2030, 12, 31))
specs = st.builds(
    QuerySpec,
    text=st.lists(st.sampled_from(WORDS), min_size=0, max_size=5).map(" ".join),
    k=st.integers(0, 30),
    offset=st.integers(0, 30),
    amount_filter=st.booleans(),
    keep_amount_text=st.booleans(),
    ambiguous_amount_boost=st.sampled_from([0.0, 2.0]),
    tenant=st.sampled_from([None, "acme"]),
    acl=st.sampled_from([None, [], ["agents"], ["b", "a", "b"]]),
    unrestricted=st.booleans(),
    as_of=st.none() | days,
    category=st.sampled_from([None, ["home"], ["umbrella", "home"]]),
    identifiers=st.sampled_from([None, ["umb-1", "UMB-1", "x"]]),
    dates_from=st.none() | days,
    dates_to=st.none() | days,
    operator=st.sampled_from(["or", "and"]),
    breadcrumb_boost=st.sampled_from([None, 2.0]),
    title_boost=st.sampled_from([None, 1.5]),
    highlight=st.booleans(),
    collapse=st.booleans(),
    mode=st.sampled_from(["auto", "bm25", "vector", "hybrid"]),
    fusion=st.sampled_from(["rrf", "normalization"]),
    source_fields=st.sampled_from([None, [], ["body", "title"]]),
)


_AMOUNT_FIELDS = ('"amounts"', '"money', '"nested"')


def _filters_of(body: dict[str, Any]) -> list[Any]:
    """The filter list of one ranked body, whichever leg it is."""
    query = body["query"]
    if "knn" in query:
        return query["knn"]["vector"].get("filter", {"bool": {"filter": []}})["bool"]["filter"]
    if "hybrid" in query:
        legs = [_filters_of({"query": q}) for q in query["hybrid"]["queries"]]
        assert legs[0] == legs[1]
        return legs[0]
    return query["bool"].get("filter", [])


@settings(max_examples=300, deadline=None)
@given(spec=specs, drop=st.booleans(), pipeline=st.sampled_from([None, "osrag-rrf"]))
@example(  # a thing priced: its facts filter sits inside a bool (keys, or a heading naming it)
    spec=QuerySpec(text="umbrella over $500,000", k=0, amount_filter=True),
    drop=False,
    pipeline=None,
)
def test_every_leg_carries_the_same_filters_and_the_count_comes_last(
    spec: QuerySpec, drop: bool, pipeline: str | None
) -> None:
    plan = plan_query(spec)
    vector = [0.25, -1.0, 0.5] if spec.mode in ("vector", "hybrid") else None
    bodies = search_bodies(plan, drop_amount=drop, vector=vector, pipeline=pipeline)
    *ranked, count = bodies
    assert count["size"] == 0 and count["track_total_hits"] is True
    counted = count["query"]["bool"]["filter"] if "bool" in count["query"] else []
    for body in ranked:
        assert _filters_of(body) == counted  # never a post-filter, never a bool around knn
        assert "post_filter" not in body
    # an amount filter: on the chunk's amounts, or on its facts (nested, alone or inside a
    # bool: a thing priced is asked by its keys or under a heading that names it)
    amounts = [f for f in counted if any(w in json.dumps(f) for w in _AMOUNT_FIELDS)]
    if drop or not plan.constraints:
        assert not any(
            "amounts" in json.dumps(f) for f in counted if "bool" not in f and "nested" not in f
        )
    else:
        assert len(amounts) >= len(plan.constraints)
    mode = "bm25" if spec.mode == "auto" else spec.mode
    fused_here = mode == "hybrid" and (pipeline is None or spec.collapse)
    assert len(ranked) == (2 if fused_here else 1)
    if mode == "hybrid" and not fused_here:
        assert ranked[0]["search_pipeline"] == pipeline
    if not fused_here and not (spec.collapse and mode == "vector"):
        assert (ranked[0]["size"], ranked[0]["from"]) == (spec.k, spec.offset)
    texts = json.dumps(ranked)
    assert ("zero_terms_query" in texts) == (
        plan.no_terms == "all" and bool(plan.match_text) and mode != "vector"
    )


def test_stop_words_left_after_the_amount_rank_by_the_filters() -> None:
    plan = plan_query("the of $300K")
    assert plan.match_text == "the of" and plan.no_terms == "all"
    assert plan_query("what the $300K").no_terms == "none"  # "what" is a term
    assert plan_query("the of").no_terms == "none"  # no amount taken out: as written


constraints = (
    st.builds(
        AmountConstraint,
        op=st.sampled_from(["eq", "gt", "gte", "lt", "lte"]),
        currency=st.just("USD"),
        bounds=st.tuples(st.integers(0, 10**12)),
    )
    | st.builds(
        AmountConstraint,
        op=st.just("between"),
        currency=st.just("USD"),
        bounds=st.tuples(st.integers(0, 10**6), st.integers(10**6, 10**12)),
    )
    | st.builds(
        AmountConstraint,
        op=st.just("in"),
        currency=st.sampled_from(["USD", "EUR"]),
        bounds=st.lists(st.integers(0, 10**12), min_size=2, max_size=4).map(tuple),
    )
    | st.builds(
        AmountConstraint,
        op=st.just("eq"),
        currency=st.sampled_from(["EUR", "JPY"]),
        bounds=st.tuples(st.integers(0, 10**12)),
    )
)


def _expected(c: AmountConstraint, boost: float | None) -> dict[str, Any]:
    """The DSL clause of one constraint, written out from the rule in the docs."""
    if c.currency != "USD":
        tokens = [f"{c.currency}:{b}" for b in c.bounds]
        if c.op == "eq":
            one: Any = tokens[0] if boost is None else {"value": tokens[0], "boost": boost}
            return {"term": {"money": one}}
        inner: dict[str, Any] = {"money": tokens}
        return {"terms": inner if boost is None else {**inner, "boost": boost}}
    if c.op == "eq":
        value: Any = c.bounds[0] if boost is None else {"value": c.bounds[0], "boost": boost}
        return {"term": {"amounts": value}}
    if c.op == "in":
        terms: dict[str, Any] = {"amounts": list(c.bounds)}
        return {"terms": terms if boost is None else {**terms, "boost": boost}}
    bounds: dict[str, Any] = (
        {"gte": c.bounds[0], "lte": c.bounds[1]} if c.op == "between" else {c.op: c.bounds[0]}
    )
    return {"range": {"amounts": bounds if boost is None else {**bounds, "boost": boost}}}


@given(constraint=constraints, boost=st.sampled_from([None, 2.0]))
def test_an_amount_filter_compiles_to_one_clause_on_the_long_field_or_the_money_tokens(
    constraint: AmountConstraint, boost: float | None
) -> None:
    node = (
        amount_filter(constraint, "USD")
        if boost is None
        else amount_boost(constraint, "USD", boost)
    )
    assert node is not None and compile_filter(node) == _expected(constraint, boost)


def test_a_range_in_another_currency_filters_one_fact_in_that_currency() -> None:
    """Role-free in every currency: a comparison in euros is one fact in euros whose
    magnitude meets it (the money keyword only matches exactly). It is no boost."""
    over = AmountConstraint(op="gt", currency="EUR", bounds=(5_000_000,))
    assert compile_filter(amount_filter(over, "USD")) == {
        "nested": {
            "path": "facts",
            "query": {
                "bool": {
                    "filter": [
                        {"term": {"facts.currency": "EUR"}},
                        {"range": {"facts.magnitude": {"gt": 5_000_000}}},
                    ]
                }
            },
        }
    }
    assert amount_boost(over, "USD", 2.0) is None


def test_a_range_needs_a_bound() -> None:
    from osrag.errors import QueryError

    with pytest.raises(QueryError, match="at least one bound"):
        Range("amounts")
