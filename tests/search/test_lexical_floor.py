"""The lexical leg's floor at the amount steps where the words choose.

At the per-unit and role-free steps the amount filter admits any amount in range, whatever
it measures, and the lexical leg's words choose the candidates: a chunk sharing one word of
the question with the best one ("club", "water") and holding some amount in range would come
back beside it. The lexical leg keeps the hits scoring at least ``lexical_floor`` of its best
hit's score. Pure checks of the plans (the filters unchanged, the floor only at those steps),
then the search on OpenSearch, Elasticsearch and the embedded index.

What each question must return is written beside it, read from the documents by hand.
"""

from __future__ import annotations

import pytest
from backend_cases import BackendCase, ingested_fixture
from hypothesis import given
from hypothesis import strategies as st

from osrag.errors import QueryError
from osrag.models import QuerySpec
from osrag.schema.plan import TextLeg
from osrag.search.query import (
    AMOUNT_STEPS,
    WORDS_CHOOSE_STEPS,
    lexical_floor,
    plan_query,
    search_plan,
)
from osrag.search.searcher import Searcher
from osrag.search.subject import SUBJECT_STEPS

VECTOR = [0.1, 0.2, 0.3, 0.4]
ROLE_FREE = "over $500,000 on the water"  # names no quantity: it starts at role-free


def test_a_floor_is_a_share_of_the_best() -> None:
    with pytest.raises(QueryError):
        TextLeg("kayak", floor=1.5)
    with pytest.raises(QueryError):
        TextLeg("kayak", floor=0.0)
    assert TextLeg("kayak", floor=1.0).floor == 1.0


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_the_floor_is_set_only_where_the_words_choose_and_the_filters_stay(mode: str) -> None:
    plan = plan_query(QuerySpec(text=ROLE_FREE, mode=mode, k=7, tenant="acme"))
    assert plan.amount_steps[0] == "role-free"
    vector = VECTOR if mode == "hybrid" else None
    at_role_free = search_plan(plan, vector=vector, step="role-free")
    at_bound = search_plan(plan, vector=vector, step="bound")
    fallback = search_plan(plan, vector=vector, step="none")
    assert at_role_free.text is not None and at_role_free.text.floor == 0.3
    assert at_bound.text is not None and at_bound.text.floor is None
    assert fallback.text is not None and fallback.text.floor is None
    assert at_role_free.amounts == at_bound.amounts and at_role_free.guards == at_bound.guards
    if mode == "hybrid":  # the legs come back apart: the client cuts them, then fuses
        assert not at_role_free.fusion.in_engine and at_bound.fusion.in_engine
    off = plan_query(QuerySpec(text=ROLE_FREE, mode=mode, lexical_floor=0))
    assert search_plan(off, vector=vector, step="role-free").text.floor is None  # type: ignore[union-attr]


def test_a_vector_search_has_no_lexical_leg_to_floor() -> None:
    plan = plan_query(QuerySpec(text=ROLE_FREE, mode="vector"))
    assert search_plan(plan, vector=VECTOR, step="role-free").text is None


@given(
    st.sampled_from(AMOUNT_STEPS),
    st.floats(min_value=0.0, max_value=1.0),
    st.integers(min_value=1, max_value=50),
    st.integers(min_value=0, max_value=50),
)
def test_a_floored_page_is_fetched_whole_from_the_first_hit(
    step: str, floor: float, k: int, offset: int
) -> None:
    plan = plan_query(
        QuerySpec(text=ROLE_FREE, mode="bm25", k=k, offset=offset, lexical_floor=floor)
    )
    typed = search_plan(plan, step=step)  # type: ignore[arg-type]
    assert typed.text is not None
    floored = step in WORDS_CHOOSE_STEPS and floor > 0
    assert lexical_floor(plan, step) == (floor if floored else None)  # type: ignore[arg-type]
    assert typed.text.floor == (floor if floored else None)
    # the client cuts from the best hit (by the floor, or by the question's subject: "water"),
    # then pages
    whole = floored or bool(typed.subject)
    assert typed.subject == (("water",) if step in SUBJECT_STEPS else ())
    assert (typed.size, typed.offset) == ((offset + k, 0) if whole else (k, offset))


# --------------------------------------------------------------------------- search

DOCUMENTS = {
    # an afternoon at a paddle club on the water, $55: every word the question asks
    "harbour-paddle": "# Harbour Paddle Club — Day on the water\n\n"
    "An afternoon with the paddle club on the water, board and paddle included: $55.\n",
    # a wetsuit hired for water sports, $45: one word of the question
    "marina-shop": "# Marina Shop\n\nWetsuit hire, per day, for water sports: $45.\n",
    # a golf club's green fee for guests, $65: one word of the question
    "golf-club": "# Fairway Golf Club\n\nGreen fee for guests: $65.\n",
    # a cafe's afternoon tea, $48: no word of the question
    "lakeside-cafe": "# Lakeside Cafe\n\nAfternoon tea for two: $48.\n",
}


documents = ingested_fixture(DOCUMENTS, "lexical-floor")


QUESTION = "under $70 at a paddle club on the water"


def _search(case: BackendCase, **asked: object) -> tuple[str | None, list[str]]:
    result = Searcher(case.backend, case.alias, enforce_access=False).search(
        QUESTION, mode="bm25", k=10, **asked
    )
    return result.amount_step, [h.doc_id for h in result.hits]


def test_a_chunk_sharing_one_word_of_the_question_is_not_returned_at_role_free(
    documents: BackendCase,
) -> None:
    # every amount is under $70: the words choose, the paddle club's afternoon first (the
    # question's subject would cut the others too: off, to see the floor alone)
    step, every = _search(documents, lexical_floor=0, subject_cut=False)
    assert step == "role-free"
    assert every[0] == "harbour-paddle"
    assert set(every) == {"harbour-paddle", "marina-shop", "golf-club"}
    assert _search(documents, subject_cut=False) == ("role-free", ["harbour-paddle"])
    assert _search(documents) == ("role-free", ["harbour-paddle"])


def test_the_floor_keeps_the_head_of_the_ranking_on_every_page(documents: BackendCase) -> None:
    searcher = Searcher(documents.backend, documents.alias, enforce_access=False)
    every = searcher.search(QUESTION, mode="bm25", k=10, lexical_floor=0.1)
    first = searcher.search(QUESTION, mode="bm25", k=1, lexical_floor=0.1)
    second = searcher.search(QUESTION, mode="bm25", k=1, offset=1, lexical_floor=0.1)
    assert [h.doc_id for h in every.hits[:2]] == [h.doc_id for h in (*first.hits, *second.hits)]
