"""The words beside an amount in range (osrag.search.beside): pure checks of an amount's
sentence, the range, the level and the cut, then the search on OpenSearch, Elasticsearch
and the embedded index. What each question must return is written beside it, read from
the documents."""

from __future__ import annotations

import pytest
from backend_cases import BackendCase, ingested_fixture
from hypothesis import given
from hypothesis import strategies as st

from osrag.schema.constraints import AmountConstraint
from osrag.search.beside import (
    asked_beside,
    in_range,
    level_beside,
    sentence,
    with_words_beside,
)
from osrag.search.query import plan_query, plan_subject
from osrag.search.searcher import Searcher
from osrag.search.subject import said


def amount(op: str, *bounds: int, currency: str = "USD") -> AmountConstraint:
    return AmountConstraint(op=op, currency=currency, bounds=bounds)  # type: ignore[arg-type]


def sentence_of(text: str, raw: str) -> str:
    start = text.index(raw)
    return sentence(text, start, start + len(raw))


def test_an_amounts_sentence_stops_at_sentence_ends_and_its_line() -> None:
    text = "Pickup is free in town. Late cancellations cost $40. Refunds take a week."
    assert sentence_of(text, "$40").strip() == "Late cancellations cost $40."
    rows = "| Pressure washer | $89.00 |\n| Tile saw | $64.00 |"
    assert sentence_of(rows, "$64.00") == "| Tile saw | $64.00 |"


def test_a_dot_leader_a_decimal_point_and_an_abbreviation_end_no_sentence() -> None:
    assert sentence_of("  Gate key deposit ........ $25.00", "$25.00").strip() == (
        "Gate key deposit ........ $25.00"
    )
    assert sentence_of("Approx. 3 hours of labour, No. 7 bay: $210.50 in all", "$210.50") == (
        "Approx. 3 hours of labour, No. 7 bay: $210.50 in all"
    )


def test_a_wrapped_line_continues_the_sentence_above_it() -> None:
    text = "FEES\n  Visits moved with less than a day's notice are charged\n  a $75.00 fee."
    assert "moved with less than" in sentence_of(text, "$75.00")
    assert "FEES" not in sentence_of(text, "$75.00")


def test_a_wrapped_paragraph_goes_on_to_a_line_starting_with_an_amount() -> None:
    text = (
        "Each tenant must carry at least $1 million each occurrence and\n"
        "$3 million in the\naggregate.\nDeposit: $500"
    )
    assert "aggregate" in sentence_of(text, "$1 million")
    assert "each occurrence" in sentence_of(text, "$3 million")
    assert sentence_of(text, "$500") == "Deposit: $500"


def test_in_range_is_the_constraints_currency_and_bounds() -> None:
    assert in_range(amount("gt", 4000), "USD", 4001)
    assert not in_range(amount("gt", 4000), "USD", 4000)
    assert not in_range(amount("gt", 4000), "GBP", 9000)
    assert in_range(amount("between", 2500, 5000), "USD", 5000)
    assert in_range(amount("lte", 3500), "USD", 3500)
    assert in_range(amount("eq", 4000), "USD", 4000)
    assert in_range(amount("in", 100, 200), "USD", 200)


def test_the_level_counts_the_asked_words_beside_an_amount_in_range_only() -> None:
    text = (
        "Home visit surcharge: $40.00.\n"
        "Visits cancelled with less than a day's notice are charged $75.00."
    )
    asked = ("cancelled",)
    assert level_beside(text, asked, [amount("eq", 4000)]) == 0  # the $40 is a surcharge
    assert level_beside(text, asked, [amount("eq", 7500)]) == 1
    assert level_beside(text, asked, [amount("eq", 9900)]) is None  # no amount in range
    # the headings above an amount (a price list's title) are beside every amount under them
    assert level_beside(text, ("home", "physio"), [amount("eq", 4000)], "Physio Clinic") == 2


def test_the_words_naming_who_the_document_is_from_are_not_counted_beside() -> None:
    def asked(question: str) -> tuple[str, ...]:
        plan = plan_query(question)
        return asked_beside(plan_subject(plan, "role-free"), plan.constraints)

    assert asked("plumbers charging over $150") == ()
    assert asked("locksmiths charging $60 or less to cut a key") == ("cut", "key")
    assert asked("gyms with a joining fee between $25 and $50") == ("gyms", "joining")
    assert asked("kennels with a late pickup fee of $30") == ("kennels", "late", "pickup")
    # a name whose words were read as a scope keeps them: they are the figure's own
    assert asked("companies whose APAC revenue exceeded $50 million") == ("apac",)


def test_the_cut_keeps_the_best_level_and_the_hits_whose_amount_is_not_read() -> None:
    hits = [
        "Late cancellations are charged a $40 cancellation fee.",
        "Home visit surcharge: $40.00. Late cancellations: $75.00.",
        "| Cancellation | 40.00 |",  # a table whose currency is in its header: not read
        "Cancelled lessons are not refunded. Pickup: $40 a trip.",
    ]
    kept = with_words_beside(hits, ("cancellation",), [amount("eq", 4000)], str, lambda _: "")
    assert kept == [hits[0], hits[2]]
    # a slack of one word keeps the hits one word short of the best, never those at zero
    two = ["Late cancellation fee: $40.", "Cancellation: $40.", "Pickup: $40."]
    asked = ("late", "cancellation")
    assert with_words_beside(two, asked, [amount("eq", 4000)], str, lambda _: "") == two[:1]
    assert with_words_beside(two, asked, [amount("eq", 4000)], str, lambda _: "", 1) == two[:2]
    # nothing beside any amount in range: nothing is cut
    assert with_words_beside(hits, ("kayak",), [amount("eq", 4000)], str, lambda _: "") == hits
    assert with_words_beside(hits, (), [amount("eq", 4000)], str, lambda _: "") == hits
    assert with_words_beside(hits, ("cancellation",), [], str, lambda _: "") == hits


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["kayak hire", "deposit", "bag", ""]),
            st.integers(min_value=1, max_value=999),
        ),
        max_size=6,
    ),
    st.lists(st.sampled_from(["kayak", "deposit", "cafe"]), max_size=2),
    st.integers(min_value=1, max_value=999),
    st.integers(min_value=0, max_value=2),
)
def test_the_cut_keeps_hits_in_order_and_never_leaves_none(
    rows: list[tuple[str, int]], words: list[str], bound: int, slack: int
) -> None:
    hits = [f"{label}: ${value}.00" for label, value in rows]
    constraints = [amount("gte", bound * 100)]
    kept = with_words_beside(hits, tuple(words), constraints, str, lambda _: "", slack)
    assert bool(kept) == bool(hits)
    assert [h for h in hits if h in kept] == kept  # a subsequence, in order
    levels = [level_beside(h, words, constraints) for h in hits]
    best = max((level for level in levels if level is not None), default=0)
    if best:
        least = max(best - slack, 1)
        assert kept == [
            hit for hit, level in zip(hits, levels, strict=True) if level is None or level >= least
        ]
    else:
        assert kept == hits


# --------------------------------------------------------------------------- search

DOCUMENTS = {
    # a driving school: the $40 is its late cancellation fee
    "riverside-driving": (
        "# Riverside Driving School\n\n## Policies\n\n"
        "Lessons cancelled with less than a day's notice are charged a $40 cancellation fee.\n\n"
        "Pickup outside town: $15 per lesson.\n"
    ),
    # a clinic: cancellations cost $75; its $40 is a home visit surcharge
    "harbor-physio": (
        "# Harbor Physio Clinic\n\n## Fees\n\nHome visit surcharge: $40.00.\n\n"
        "Visits cancelled with less than a day's notice are charged $75.00.\n"
    ),
    # a dentist's $40 X-rays: no cancellation at all
    "maple-dental": "# Maple Dental\n\n## Fees\n\nCleaning and exam: $95.00.\n\nX-rays: $40.00.\n",
}
QUESTION = "$40 when cancelled late"  # names no quantity: it starts at role-free


documents = ingested_fixture(DOCUMENTS, "beside", embedder="default")


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_a_hit_whose_amount_in_range_stands_beside_no_asked_word_is_not_returned(
    documents: BackendCase, mode: str
) -> None:
    searcher = Searcher(documents.backend, documents.alias, enforce_access=False)
    floors = {"lexical_floor": 0, "vector_floor": 0}
    every = searcher.search(QUESTION, mode=mode, k=10, subject_cut=False, **floors)
    assert every.amount_step == "role-free"
    assert {"riverside-driving", "harbor-physio"} <= {h.doc_id for h in every.hits}
    cut = searcher.search(QUESTION, mode=mode, k=10, **floors)
    assert cut.subject == ["cancelled", "late"]
    # the clinic says the word as often as the school, but not beside its $40
    assert said(DOCUMENTS["harbor-physio"], cut.subject) == 1
    assert [h.doc_id for h in cut.hits] == ["riverside-driving"]
