"""The amount ladder's worded step, end to end on OpenSearch, Elasticsearch and the embedded
index: a question names a quantity that no label holds as a key, but one label holds most
of its words in another order ("gutter cleaning" — "Cleaning of gutters and downpipes");
after the bound and narrowed steps leave nothing, that label's fact meeting the amount is
asked for, before any amount of any label is (:mod:`osrag.search.meaning`,
:mod:`osrag.search.ladder`).

What each question must return is written beside it, read from the documents by hand.
"""

from __future__ import annotations

import pytest
from backend_cases import (
    BackendCase,
    ingested_fixture,
    step_and_documents,
)

from osrag.search.searcher import Searcher

DOCUMENTS = {
    # gutters cleaned for $95 — the label holds both words of "gutter cleaning"
    "roofline-prices": "# Roofline Care — Prices\n\n"
    "Cleaning of gutters and downpipes ............ $95.00\n\n"
    "Moss removal from a pitched roof ............. $340.00\n",
    # window cleaning at $60: one of the two words (cleaning)
    "clearview-prices": "# Clearview — Prices\n\n"
    "Window cleaning, up to 20 panes .............. $60.00\n",
    # a gutter repair at $80: the other word alone (gutter)
    "ashby-invoice": "# Ashby Builders — Invoice\n\n| Item | Amount |\n|---|---:|\n"
    "| Gutter repair, rear elevation | $80.00 |\n| Callout | $45.00 |\n",
}


documents = ingested_fixture(DOCUMENTS, "worded-step")


ANSWERS = {
    # Roofline's $95 — not Clearview's $60 window cleaning nor Ashby's $80 gutter repair,
    # which any amount under $120 would pass
    "gutter cleaning under $120": ("worded", {"roofline-prices"}),
    # the kind of business the question names only ranks at this step: no document calls
    # itself a handyman's, and Roofline's gutters still come back
    "handymen charging under $120 for gutter cleaning": ("worded", {"roofline-prices"}),
    # the worded label's amount does not meet the bound: any amount does (Roofline's moss
    # removal at $340)
    "gutter cleaning over $300": ("role-free", {"roofline-prices"}),
    # both words held as a key by no label, one word by each of two: role-free (the
    # window cleaning and the callout are under $70; so is nothing else), and of those the
    # window cleaning, whose $60 stands beside an asked word ("window"); Ashby's $45
    # callout stands beside neither ("repair" is its $80 line's)
    "window repair under $70": ("role-free", {"clearview-prices"}),
}


@pytest.mark.parametrize("text", sorted(ANSWERS))
def test_a_label_holding_most_of_the_asked_words_is_asked_before_any_amount(
    documents: BackendCase, text: str
) -> None:
    assert step_and_documents(documents, text) == ANSWERS[text]


def test_the_result_says_the_labels_matched_by_words_and_what_the_step_asked(
    documents: BackendCase,
) -> None:
    result = Searcher(documents.backend, documents.alias, enforce_access=False).search(
        "gutter cleaning under $120", mode="bm25"
    )
    (matches,) = result.label_matches
    assert matches.by_words == 1
    assert [(m.label, m.by) for m in matches.matches if m.by == "words"] == [
        ("Cleaning of gutters and downpipes", "words")
    ]
    assert "cleaning of gutter and downpipe" in matches.worded_keys
    steps = [(s.step, s.candidates) for s in result.amount_steps]
    assert [s for s, _ in steps] == ["bound", "narrowed", "worded"]
    assert steps[-1][1] == 1
    (line,) = result.amount_steps[-1].asked
    assert "cleaning of gutter and downpipe" in line and "holding most of the words" in line
