"""The narrowed step's reading of a name that ends in a quantity a profile knows
(:func:`osrag.search.fact_filters.profiled_head`): the known quantity, where a document
says one of the name's other words — "painting contractor deposit" is the "Deposit (40%)"
of a painting firm's estimate, "sales tax on furniture order" the sales tax of a document
that says "furniture" or "order"."""

from __future__ import annotations

import pytest

from osrag.search.analysis import analyze_query
from osrag.search.asked import asked_at
from osrag.search.fact_filters import profiled_head

CASES = {
    "painting contractor deposit of at least $2,000": [
        ("deposit", "painting"),
        ("deposit", "contractor"),
    ],
    "investigation invoice balance due at most $1,000": [
        ("balance due", "investigation"),
        ("balance due", "invoice"),
    ],
    # a complement names what is taxed or whose document it is
    "sales tax on furniture order under $1,000": [
        ("sales tax", "furniture"),
        ("sales tax", "order"),
    ],
    # no known quantity at its end: nothing
    "private ski lesson under $500": [],
    # a name a profile knows whole is never taken apart
    "security deposit over $1,000": [],
    "total amount due over $500": [],
    # a hyphen joins the last words to the one before: "add-on" is no qualifier
    "add-on fee over $50": [],
}


@pytest.mark.parametrize("text", sorted(CASES))
def test_a_known_quantity_at_the_names_end_is_asked_where_another_word_is_said(
    text: str,
) -> None:
    c = analyze_query(text).constraints[0]
    found = [(head.label, head.context) for head in profiled_head(c)]
    assert found == CASES[text]
    for head in profiled_head(c):
        assert (head.op, head.bounds, head.currency) == (c.op, c.bounds, c.currency)


def test_the_explanation_names_the_known_quantity_and_the_words_it_is_asked_where() -> None:
    c = analyze_query("fence installation deposit between $3,000 and $5,000").constraints[0]
    narrowed = asked_at(c, "narrowed")
    assert "where 'fence' or 'installation' is said" in narrowed
