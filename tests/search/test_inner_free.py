"""The narrowed step's reading of a name with an inner word a document says only in its
heading (:func:`osrag.search.fact_filters.inner_free`): the name without that word, where a
document says the word — "full day tattoo session" is the "Full-day session" of a tattoo
studio's price list."""

from __future__ import annotations

import pytest

from osrag.search.analysis import analyze_query
from osrag.search.fact_filters import inner_free

CASES = {
    "full day tattoo session for no more than $1,200": [
        ("full tattoo session", "day"),
        ("full day session", "tattoo"),
    ],
    # the first word is the narrowed step's, the head is the quantity: a name of two words
    # has no inner word
    "umbrella premium under $500": [],
    "weekend minibus hire over £300": [("weekend hire", "minibus")],
    # a word a hyphen joins to another is read with it: "add-on" stays whole
    "add-on sponsorship fee over $5,000": [("add on fee", "sponsorship")],
    # only before a complement: "warranty for a boiler" keeps what it is for
    "extended warranty for a boiler under $300": [],
    # a name a profile knows whole is never taken apart
    "total amount due over $500": [],
}


@pytest.mark.parametrize("text", sorted(CASES))
def test_each_inner_word_is_read_where_a_document_says_it(text: str) -> None:
    c = analyze_query(text).constraints[0]
    found = [(inner.label, inner.context) for inner in inner_free(c)]
    assert found == CASES[text]
    for inner in inner_free(c):
        assert (inner.op, inner.bounds, inner.currency) == (c.op, c.bounds, c.currency)
