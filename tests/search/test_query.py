"""The query builder is pure: a stated amount becomes a term filter, text only goes to match."""

from __future__ import annotations

import datetime as dt
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from osrag.models import QuerySpec
from osrag.opensearch import add_osrag_clauses, to_search
from osrag.schema.filters import AmountFilter
from osrag.search.query import build_query, plan_query

NO_ACL = {"bool": {"must_not": [{"exists": {"field": "acl"}}]}}
PUBLIC_ONLY = [
    {"bool": {"must_not": [{"exists": {"field": "tenant"}}]}},
    {"bool": {"should": [{"match_none": {}}, NO_ACL], "minimum_should_match": 1}},
]
"""The guards of a caller who states neither a tenant nor groups."""


def _filters(body: dict) -> list[dict]:
    """The filter clauses beyond the guards every anonymous request carries."""
    return [c for c in body["query"]["bool"].get("filter", []) if c not in PUBLIC_ONLY]


def test_one_stated_amount_becomes_a_term_filter_inside_bool() -> None:
    body = build_query("What does the $300K umbrella cover?")
    assert _filters(body) == [{"term": {"amounts": 30_000_000}}]
    # the amount is the filter; its words leave the match (measured default); words
    # remain, so the engine's zero-terms default is not touched
    assert body["query"]["bool"]["must"] == [
        {"match": {"text": {"query": "What does the umbrella cover?", "operator": "or"}}}
    ]
    kept = build_query("What does the $300K umbrella cover?", keep_amount_text=True)
    assert kept["query"]["bool"]["must"][0]["match"]["text"]["query"] == (
        "What does the $300K umbrella cover?"
    )


def test_every_format_of_the_same_amount_gives_the_same_filter() -> None:
    texts = ["$300K", "$0.3M", "$300,000", "USD 300,000", "300,000 dollars", "$300,000.00"]
    clauses = {json.dumps(_filters(build_query(f"umbrella {t}"))) for t in texts}
    assert clauses == {json.dumps([{"term": {"amounts": 30_000_000}}])}


def test_two_amounts_are_two_constraints_both_required() -> None:
    plan = plan_query("compare the $300,000 and $3,000,000 umbrellas")
    assert plan.amount is None and plan.amount_status == "several"
    assert _filters(build_query("compare the $300,000 and $3,000,000 umbrellas")) == [
        {"term": {"amounts": 30_000_000}},
        {"term": {"amounts": 300_000_000}},
    ]
    assert [f.name for f in plan.filters if isinstance(f, AmountFilter)] == ["amount", "amount"]


def test_the_same_amount_twice_is_one_amount() -> None:
    plan = plan_query("a $300K ($300,000) umbrella")
    assert plan.amount_status == "one" and plan.amount is not None
    assert plan.amount.minor_units == 30_000_000


def test_no_amount_means_no_amount_filter() -> None:
    plan = plan_query("landlord umbrella exclusions")
    assert plan.amount_status == "none" and not plan.has_amount_filter


def test_euro_amount_filters_the_money_keyword_not_the_dollar_long() -> None:
    assert _filters(build_query("the €300,000 umbrella policy")) == [
        {"term": {"money": "EUR:30000000"}}
    ]
    # bound to the limit it names: one fact in euros; role-free, the money keyword again
    bound = _filters(build_query("umbrella with a €300,000 limit"))[0]["nested"]
    assert {"term": {"facts.currency": "EUR"}} in bound["query"]["bool"]["filter"]
    assert _filters(build_query("umbrella with a €300,000 limit", step="role-free")) == [
        {"term": {"money": "EUR:30000000"}}
    ]


def test_explicit_amount_overrides_and_amount_filter_off_is_plain_bm25() -> None:
    explicit = plan_query(QuerySpec(text="umbrella", amount=12_345))
    assert explicit.amount_status == "explicit"
    assert _filters(build_query(QuerySpec(text="umbrella", amount=12_345))) == [
        {"term": {"amounts": 12_345}}
    ]
    off = plan_query(QuerySpec(text="umbrella $300K", amount_filter=False))
    assert off.amount_status == "off" and _filters(build_query(off.spec)) == []


def test_only_the_amount_filter_is_droppable() -> None:
    plan = plan_query(
        "umbrella $300K",
        tenant="acme",
        acl=["agents"],
        as_of=dt.date(2024, 6, 1),
        category=["umbrella"],
    )
    assert [f.name for f in plan.filters if isinstance(f, AmountFilter)] == ["amount"]
    kept = [f.name for f in plan.kept(drop_amount=True)]
    assert kept == ["tenant", "acl", "as_of", "category"]


def test_tenant_acl_date_category_identifier_filters() -> None:
    body = build_query(
        QuerySpec(
            text="deductible",
            tenant="acme",
            acl=["agents", "underwriters"],
            as_of=dt.date(2024, 6, 1),
            category=["home"],
            identifiers=["hom-12345"],
            dates_from=dt.date(2024, 1, 1),
            dates_to=dt.date(2024, 12, 31),
        )
    )
    filters = _filters(body)
    assert {"term": {"tenant": "acme"}} in filters
    acl = filters[1]["bool"]
    assert acl["should"][0] == {"terms": {"acl": ["agents", "underwriters"]}}
    assert acl["minimum_should_match"] == 1  # or the document has no ACL at all (public)
    as_of = json.dumps(filters[2])
    assert '"lte": "2024-06-01"' in as_of and '"gt": "2024-06-01"' in as_of
    assert {"terms": {"category": ["home"]}} in filters
    assert {"terms": {"identifiers": ["HOM-12345"]}} in filters
    assert {"range": {"dates": {"gte": "2024-01-01", "lte": "2024-12-31"}}} in filters


def test_a_caller_without_groups_sees_only_public_documents() -> None:
    for spec in (QuerySpec(text="x", acl=[]), QuerySpec(text="x")):
        acl = build_query(spec)["query"]["bool"]["filter"][1]["bool"]
        assert acl["should"][0] == {"match_none": {}}
        assert acl["should"][1] == {"bool": {"must_not": [{"exists": {"field": "acl"}}]}}


def test_the_guards_come_from_the_callers_arguments_even_in_the_pure_builder() -> None:
    # the raw-endpoint example of docs/library.md: a tenant but no groups still gets the ACL
    # guard
    filters = build_query("umbrella $300K", tenant="acme")["query"]["bool"]["filter"]
    assert filters[0] == {"term": {"amounts": 30_000_000}}
    assert filters[1] == {"term": {"tenant": "acme"}}
    assert filters[2]["bool"]["should"][0] == {"match_none": {}}
    # no tenant: only documents that carry none
    anonymous = build_query("umbrella")["query"]["bool"]["filter"]
    assert anonymous[0] == {"bool": {"must_not": [{"exists": {"field": "tenant"}}]}}
    # the operator's view states it, and only then are the guards absent
    assert "filter" not in build_query("umbrella", unrestricted=True)["query"]["bool"]


def test_added_clauses_carry_the_guards_too() -> None:
    merged = add_osrag_clauses({"bool": {"filter": [{"term": {"category": "home"}}]}}, "umbrella")
    assert merged["bool"]["filter"][1:] == PUBLIC_ONLY


def test_dropped_constraints_are_boosted_as_integers_not_filtered() -> None:
    body = build_query("compare the $300,000 and €1,000,000 umbrellas", drop_amount=True)
    assert _filters(body) == []
    should = body["query"]["bool"]["should"]
    assert {"term": {"amounts": {"value": 30_000_000, "boost": 2.0}}} in should
    assert {"term": {"money": {"value": "EUR:100000000", "boost": 2.0}}} in should
    unboosted = build_query("compare $1 and $2", ambiguous_amount_boost=0, drop_amount=True)
    assert "should" not in unboosted["query"]["bool"]
    filtered = build_query("compare the $300,000 and €1,000,000 umbrellas")
    assert "should" not in filtered["query"]["bool"]  # filtered: every candidate holds them


def test_keep_amount_text_false_removes_the_amount_words_from_the_match() -> None:
    plan = plan_query(QuerySpec(text="umbrella cover $300,000 limit", keep_amount_text=False))
    assert "300" not in plan.match_text and "umbrella" in plan.match_text


def test_an_amount_only_query_matches_all_within_the_filter() -> None:
    body = build_query(QuerySpec(text="$300,000", keep_amount_text=False))
    assert body["query"]["bool"]["must"] == [{"match_all": {}}]
    assert _filters(body) == [{"term": {"amounts": 30_000_000}}]


def test_k_from_highlight_collapse_and_boosts() -> None:
    body = build_query(
        QuerySpec(text="flood", k=3, offset=6, collapse=True, breadcrumb_boost=2.0, title_boost=1.5)
    )
    assert body["size"] == 3 and body["from"] == 6
    assert body["collapse"] == {"field": "doc_id"}
    assert "body" in body["highlight"]["fields"]
    should = body["query"]["bool"]["should"]
    assert {"match": {"breadcrumb": {"query": "flood", "boost": 2.0}}} in should
    assert {"match": {"title": {"query": "flood", "boost": 1.5}}} in should


def test_add_osrag_clauses_keeps_the_callers_own_bool() -> None:
    mine = {
        "bool": {"filter": [{"term": {"region": "eu"}}], "must_not": [{"term": {"draft": True}}]}
    }
    merged = add_osrag_clauses(mine, "umbrella $300K", tenant="acme")
    assert merged["bool"]["must_not"] == [{"term": {"draft": True}}]
    assert merged["bool"]["filter"][0] == {"term": {"region": "eu"}}
    assert {"term": {"amounts": 30_000_000}} in merged["bool"]["filter"]
    assert {"term": {"tenant": "acme"}} in merged["bool"]["filter"]
    assert mine["bool"]["filter"] == [{"term": {"region": "eu"}}]  # the caller's dict is untouched


def test_dsl_search_object_is_the_same_request() -> None:
    search = to_search("umbrella $300K", index="osrag-chunks", tenant="acme")
    assert search.to_dict() == build_query("umbrella $300K", tenant="acme")


SYNTAX = st.sampled_from(
    [
        '"',
        ":",
        "*",
        "(",
        ")",
        "AND",
        "OR",
        "NOT",
        "\\",
        "~",
        "^",
        "{",
        "}",
        "[",
        "]",
        "/",
        "!",
        "&&",
        "||",
        "-",
    ]
)


@settings(max_examples=200)
@given(st.lists(st.one_of(SYNTAX, st.text(min_size=1, max_size=8)), min_size=1, max_size=12))
def test_user_text_only_ever_goes_into_match(parts: list[str]) -> None:
    text = " ".join(parts)
    body = build_query(text)
    dumped = json.dumps(body)
    assert "query_string" not in dumped and "simple_query_string" not in dumped
    must = body["query"]["bool"]["must"][0]
    assert set(must) <= {"match", "match_all"}


def test_operator_and_with_minimum_should_match_is_refused() -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="minimum_should_match only applies"):
        QuerySpec(text="a b", operator="and", minimum_should_match="50%")


def test_size_is_the_deprecated_name_of_k_and_still_works() -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.warns(DeprecationWarning, match="use k="):
        spec = QuerySpec(text="umbrella", size=5)
    assert spec.k == 5
    with pytest.warns(DeprecationWarning, match="use k"):
        assert spec.size == 5
    with pytest.warns(DeprecationWarning, match="use k="):
        assert build_query("umbrella", size=3)["size"] == 3
    with pytest.warns(DeprecationWarning, match="use k="):
        assert plan_query(QuerySpec(text="umbrella"), size=4).spec.k == 4
    assert build_query("umbrella", k=3) == build_query(QuerySpec(text="umbrella", k=3))
    with pytest.warns(DeprecationWarning), pytest.raises(ValidationError, match="not both"):
        QuerySpec(text="umbrella", k=3, size=4)
