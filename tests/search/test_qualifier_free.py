"""The narrowed step's reading of a compound name whose first word no document repeats
(:func:`osrag.search.fact_filters.qualifier_free`): the rest, in any document, only when
the rest is a compound name itself."""

from __future__ import annotations

import pytest

from osrag.search.analysis import analyze_query
from osrag.search.fact_filters import qualifier_free

CASES = {
    # a qualifier of the thing a price list need not repeat: the rest is a name itself
    "pre-employment background checks under $50": "background checks",
    "weekend minibus hire over £300": "minibus hire",
    "temp-to-perm conversion fees under £4,000": "conversion fees",
    # a rest of one word says too little: no premium of any policy, no treatment of any kind
    "umbrella premium under $500": None,
    "termite treatment over $1,500": None,
    # a hyphen joins the first word to the rest: the compound is one word, "on sponsorships"
    # no name
    "add-on sponsorships over $5,000": None,
    # the rest's own words are counted before its complement: "warranties for a boiler" is
    # one word and what it is for
    "extended warranties for a boiler under $300": None,
    # a name a profile knows whole is never taken apart
    "net income above $5 million": None,
    "late payment fee of $15": None,
}


@pytest.mark.parametrize("text", sorted(CASES))
def test_the_rest_of_a_compound_name_is_asked_when_it_is_a_name_itself(text: str) -> None:
    c = analyze_query(text).constraints[0]
    rest = qualifier_free(c)
    assert (rest.label if rest is not None else None) == CASES[text]
    if rest is not None:
        assert rest.context is None and rest.named is None


def test_the_rest_keeps_the_amount_and_currency_asked() -> None:
    c = analyze_query("weekend minibus hire over £300").constraints[0]
    rest = qualifier_free(c)
    assert rest is not None
    assert (rest.op, rest.bounds, rest.currency) == (c.op, c.bounds, c.currency)
