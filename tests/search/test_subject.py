"""The subject of a question and the cut it makes, its hits at the highest coordination
level (osrag.search.subject): pure checks of
the words and the plans, then the search on OpenSearch, Elasticsearch and the embedded
index. What each question must return is written beside it, read from the documents."""

from __future__ import annotations

import dataclasses

import pytest
from backend_cases import BackendCase, ingested_fixture
from hypothesis import given
from hypothesis import strategies as st

from osrag.schema.filters import AmountFilter
from osrag.search.query import plan_query, plan_subject, search_plan
from osrag.search.searcher import Searcher
from osrag.search.subject import (
    said,
    scope_words,
    subject_words,
    unheld_words,
    with_subject,
)


def subject(question: str, step: str = "role-free") -> tuple[str, ...]:
    return plan_subject(plan_query(question), step)  # type: ignore[arg-type]


def test_the_subject_is_what_the_question_asks_and_about_what() -> None:
    assert subject("kayak rental bills with a total due over $300") == ("kayak", "rental")
    assert subject("removal firms charging over $120 an hour") == ("removal",)
    assert subject("glazier quotes with a late payment fee under $40") == ("glazier", "late")
    assert subject("boiler service contracts costing over $200 a year") == ("boiler", "service")
    # a quantity's own modifier is a subject word; its generic noun is not
    assert subject("estimates with a packing charge under $500") == ("packing",)


def test_generic_nouns_function_words_periods_and_years_are_no_subject() -> None:
    assert subject("invoices with a total due over $4,000") == ()
    assert subject("revenue over $5 million in FY99") == ()
    assert subject("statements showing a balance under $200 a month") == ()


def test_the_cut_applies_only_where_the_filter_does_not_hold_the_words() -> None:
    question = "kayak rental bills with a total due over $300"
    # "none" has no amount filter; a bound filter holds the total due, not the kayak rental;
    # a plan no search matched labels for has no worded labels, which hold nothing
    assert subject(question, "none") == ()
    for step in ("bound", "narrowed", "worded", "per-unit", "role-free"):
        assert subject(question, step) == ("kayak", "rental")


def test_at_the_worded_step_the_words_its_labels_hold_cut_nothing() -> None:
    # "septic riser installation" worded to "Riser and lid to grade, installed" and to a
    # flooring quote's "Stair treads and risers, installed": the labels hold riser and
    # installation (by stem), so "septic" alone cuts
    plan = plan_query("septic riser installation under $300 per riser")
    (amount,) = [f for f in plan.filters if isinstance(f, AmountFilter)]
    worded = dataclasses.replace(
        amount, worded_keys=("riser and lid to grade", "stair tread and riser installed")
    )
    filters = tuple(worded if f is amount else f for f in plan.filters)
    assert plan_subject(dataclasses.replace(plan, filters=filters), "worded") == ("septic",)


def test_at_the_bound_step_a_profiles_name_for_the_quantity_is_held_by_the_filter() -> None:
    # the filter asks a total due by every name the invoices profile gives it: a holder
    # need not say "payable"
    assert subject("invoices with an amount payable over $4,000", "bound") == ()
    assert subject("invoices with an amount payable over $4,000") == ("amount", "payable")
    # a name no profile knows is asked by its own words (and its head's generic names: a
    # "day rate" says nothing of a wedding): they stay
    question = "day of wedding coordinator £900 or less"
    assert subject(question, "bound") == ("wedding", "coordinator")
    assert unheld_words(("roof", "repairs", "payable"), ["amount payable"]) == ("roof", "repairs")
    # a name no profile knows: the words every key it is asked by says
    assert subject("Level 3 building surveys costing more than £800", "bound") == ("level",)


def test_at_the_bound_step_a_scope_or_part_the_filter_holds_is_no_subject() -> None:
    # the quarter, the segment and the adjusted figure are the fact's fields, not words a
    # holder must write ("Q3" in a column, "Non-GAAP" in a heading)
    assert subject("third-quarter gross profit under $50 million in 2018", "bound") == ()
    assert subject("adjusted EBITDA under $100 million", "bound") == ()
    assert subject("Americas segment revenue over $1 billion", "bound") == ()
    assert subject("Americas segment revenue over $1 billion") == ("americas", "segment")
    read_out = scope_words("fourth-quarter revenue of the Americas segment")
    assert {"fourth", "quarter", "americas", "segment"} <= set(read_out)
    assert "revenue" not in read_out
    assert scope_words("roof repair invoices with") == ()


def test_the_words_beside_an_amount_are_read_below_the_bound_step_only() -> None:
    plan = plan_query("kayak rental bills with a total due over $300")
    assert not search_plan(plan, step="bound").words_beside
    for step in ("narrowed", "per-unit", "role-free"):
        assert search_plan(plan, step=step).words_beside  # type: ignore[arg-type]
    assert not search_plan(plan_query("gym plan over $150"), step="bound").words_beside


def test_the_cut_can_be_turned_off() -> None:
    plan = plan_query("kayak rental bills with a total due over $300", subject_cut=False)
    assert plan_subject(plan, "role-free") == ()


def test_a_plan_with_a_subject_is_fetched_from_its_first_hit_and_brings_the_text_fields() -> None:
    plan = plan_query(
        "kayak rental bills with a total due over $300", k=5, offset=5, source_fields=["doc_id"]
    )
    sent = search_plan(plan, step="role-free")
    assert sent.subject == ("kayak", "rental")
    assert (sent.size, sent.offset) == (10, 0)
    assert sent.source.includes is not None
    assert {"title", "breadcrumb", "body"} <= set(sent.source.includes)
    unfiltered = search_plan(plan, step="none")
    assert unfiltered.subject == () and (unfiltered.size, unfiltered.offset) == (5, 5)


def test_words_are_counted_once_each_by_stem() -> None:
    assert said("Kayaks and canoes — kayak rental rates", ("kayak", "rental")) == 2
    assert said("Removals: two crew", ("removal", "kayak")) == 1
    assert said("Bicycle hire — deposit", ("kayak", "canoe")) == 0


def test_the_cut_keeps_the_hits_saying_the_most_subject_words_and_every_hit_when_none_does() -> (
    None
):
    hits = [
        "Tuition invoice: total due",
        "Harbor Kayak Rental — total due",
        "Kayak club — annual dues",
        "Electric bill",
    ]
    assert with_subject(hits, ("kayak", "rental"), str) == ["Harbor Kayak Rental — total due"]
    assert with_subject(hits, ("kayak",), str) == hits[1:3]
    assert with_subject(hits, ("glider",), str) == hits
    assert with_subject(hits, (), str) == hits
    # a slack of one word keeps the hits one word short of the best, never those saying none
    assert with_subject(hits, ("kayak", "rental"), str, slack=1) == hits[1:3]
    assert with_subject(hits, ("kayak",), str, slack=1) == hits[1:3]


@given(
    st.lists(st.text(alphabet="abcdefg kayak", max_size=30), max_size=8),
    st.lists(st.sampled_from(["kayak", "bag", "cafe", "dead"]), max_size=3),
    st.integers(min_value=0, max_value=3),
)
def test_the_cut_keeps_the_highest_levels_in_order_never_empty_when_there_were_hits(
    hits: list[str], words: list[str], slack: int
) -> None:
    kept = with_subject(hits, tuple(words), str, slack)
    assert bool(kept) == bool(hits)
    best = max((said(h, words) for h in hits), default=0)
    least = max(best - slack, 1)
    assert kept == ([h for h in hits if said(h, words) >= least] if best else hits)


def test_subject_words_are_unique_and_in_the_questions_order() -> None:
    assert subject_words("kayak kayaks rental kayak") == ("kayak", "kayaks", "rental")


# --------------------------------------------------------------------------- search

DOCUMENTS = {
    # a mobile operator's phone plan, $182.40: the subject, "phone"
    "skyline-mobile": "# Skyline Mobile\n\nUnlimited phone plan for three lines: $182.40.\n",
    # a preschool's full-day plan, $640.00: a plan, no phone
    "brightpath-preschool": "# Brightpath Preschool\n\nFull-day plan for September: $640.00.\n",
    # an electricity supplier's budget plan, $164.10: a plan, no phone
    "cedar-electric": "# Cedar Valley Electric\n\nBudget billing plan, monthly: $164.10.\n",
    # a roofer's invoice and a physiotherapist's statement, each with a balance due under
    # $150 (so no plan question above meets them): the subject, "roof repair"
    "lakeside-roofing": (
        "# Lakeside Roofing\n\nInvoice 2231: roof repair, flashing replaced.\n\n"
        "Balance due: $140.00\n"
    ),
    "align-physio": (
        "# Align Physiotherapy\n\nStatement: four physiotherapy sessions.\n\nBalance due: $120.00\n"
    ),
}
PLANS = {"skyline-mobile", "brightpath-preschool", "cedar-electric"}
QUESTION = "phone plan over $150"  # names no quantity: it starts at role-free


documents = ingested_fixture(DOCUMENTS, "subject", embedder="default")


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_a_hit_that_says_no_subject_word_beside_one_that_does_is_not_returned(
    documents: BackendCase, mode: str
) -> None:
    searcher = Searcher(documents.backend, documents.alias, enforce_access=False)
    # the floors off: every plan holds an amount over $150, the words (the nearness) rank them
    floors = {"lexical_floor": 0, "vector_floor": 0}
    every = searcher.search(QUESTION, mode=mode, k=10, subject_cut=False, **floors)
    assert every.amount_step == "role-free" and every.subject == []
    assert {h.doc_id for h in every.hits} == PLANS
    cut = searcher.search(QUESTION, mode=mode, k=10, **floors)
    assert cut.subject == ["phone"]
    assert [h.doc_id for h in cut.hits] == ["skyline-mobile"]


def test_a_subject_no_hit_says_cuts_nothing(documents: BackendCase) -> None:
    searcher = Searcher(documents.backend, documents.alias, enforce_access=False)
    found = searcher.search("gym plan over $150", mode="bm25", k=10, lexical_floor=0)
    assert found.subject == ["gym"]
    every = searcher.search(
        "gym plan over $150", mode="bm25", k=10, lexical_floor=0, subject_cut=False
    )
    assert [h.doc_id for h in found.hits] == [h.doc_id for h in every.hits]
    assert len(found.hits) == 3


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_a_bound_question_keeps_the_holders_that_say_what_it_is_about(
    documents: BackendCase, mode: str
) -> None:
    """Both documents hold a balance due under $700, so the bound filter keeps both; only
    the roofer's says "roof repair"."""
    searcher = Searcher(documents.backend, documents.alias, enforce_access=False)
    question = "roof repair invoices with less than $700 left to pay"
    floors = {"lexical_floor": 0, "vector_floor": 0}
    every = searcher.search(question, mode=mode, k=10, subject_cut=False, **floors)
    assert every.amount_step == "bound"
    assert {h.doc_id for h in every.hits} == {"lakeside-roofing", "align-physio"}
    cut = searcher.search(question, mode=mode, k=10, **floors)
    assert cut.amount_step == "bound" and {"roof", "repair"} <= set(cut.subject)
    assert [h.doc_id for h in cut.hits] == ["lakeside-roofing"]
