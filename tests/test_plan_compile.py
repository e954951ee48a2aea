"""The typed plan's OpenSearch compilation is the request the builder always sent: for
generated query specs, every body (bm25, vector, hybrid on the engine or in the client,
the fallback) is the reference builder's, except ``zero_terms_query`` where the text
left after the amount has no terms. Also the compiler's own rules, property-tested."""

from __future__ import annotations

import datetime as dt
from typing import Any

import plan_reference as reference
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.engines.rest_compile import compile_filter, from_clause
from osrag.models import QuerySpec
from osrag.search.constraints import AmountConstraint
from osrag.search.plan import Range, amount_filter
from osrag.search.query import plan_query, search_bodies

WORDS = ["umbrella", "coverage", "limits", "the", "of", "what", "flood", "policy", "UMB-300000",
         "$300K", "$300,000", "€300,000", "over $500,000", "between $1M and $2M", "under $50",
         "about $500K", "$300K or $3M", "?", "2024"]  # fmt: skip

days = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2030, 12, 31))
specs = st.builds(
    QuerySpec,
    text=st.lists(st.sampled_from(WORDS), min_size=0, max_size=5).map(" ".join),
    size=st.integers(0, 30),
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


def _without_zero_terms(body: Any) -> Any:
    if isinstance(body, dict):
        return {k: _without_zero_terms(v) for k, v in body.items() if k != "zero_terms_query"}
    if isinstance(body, list):
        return [_without_zero_terms(v) for v in body]
    return body


@settings(max_examples=400, deadline=None)
@given(spec=specs, drop=st.booleans(), pipeline=st.sampled_from([None, "osrag-rrf"]))
def test_the_compiled_plan_is_the_reference_request(
    spec: QuerySpec, drop: bool, pipeline: str | None
) -> None:
    plan = plan_query(spec)
    vector = [0.25, -1.0, 0.5] if spec.mode in ("vector", "hybrid") else None
    ours = search_bodies(plan, drop_amount=drop, vector=vector, pipeline=pipeline)
    theirs = reference.search_bodies(plan, drop_amount=drop, vector=vector, pipeline=pipeline)
    assert [f.clause for f in plan.filters] == [
        f.clause for f in reference._filters(spec, plan.constraints, plan.default_currency)
    ]
    if plan.no_terms == "all" and plan.match_text:
        assert "zero_terms_query" in str(ours)
        ours = _without_zero_terms(ours)
    else:
        assert "zero_terms_query" not in str(ours)
    assert ours == theirs


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
)


@given(constraint=constraints, boost=st.sampled_from([None, 2.0]))
def test_an_amount_filter_compiles_to_the_constraints_own_clause(
    constraint: AmountConstraint, boost: float | None
) -> None:
    node = amount_filter(constraint, "USD", boost=boost)
    assert compile_filter(node) == constraint.clause("USD", boost=boost)
    if boost is None:
        assert from_clause(compile_filter(node)) == node


def test_a_range_needs_a_bound_and_an_unknown_clause_is_refused() -> None:
    from osrag.errors import QueryError

    with pytest.raises(QueryError, match="at least one bound"):
        Range("amounts")
    with pytest.raises(QueryError, match="cannot plan"):
        from_clause({"query_string": {"query": "x"}})
