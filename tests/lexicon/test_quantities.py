"""One list of quantity nouns, in the singular, read in either number; the terms of a
contract (what a section heading may name) are a named part of it."""

from __future__ import annotations

import pytest

from osrag.extract.facts.sections import names_a_quantity
from osrag.lexicon.quantities import (
    CONTRACT_TERMS,
    DOCUMENT_NOUNS,
    QUANTITY_NOUNS,
    is_contract_term,
    is_document_noun,
    is_quantity_noun,
)
from osrag.lexicon.words import other_number, singular
from osrag.search.analysis import analyze_query


def test_the_terms_of_a_contract_are_quantity_nouns_and_every_list_is_singular() -> None:
    assert CONTRACT_TERMS <= QUANTITY_NOUNS
    for words in (QUANTITY_NOUNS, DOCUMENT_NOUNS):
        assert all(singular(w) == w for w in words), sorted(w for w in words if singular(w) != w)
    assert not QUANTITY_NOUNS & DOCUMENT_NOUNS


@pytest.mark.parametrize("noun", sorted(QUANTITY_NOUNS - {"cash", "excess", "equity", "bonus"}))
def test_a_quantity_noun_is_read_in_either_number(noun: str) -> None:
    """(Mass nouns have no plural; "bonuses" is a plural the one singulariser does not undo:
    -uses is -us in "bonuses" and -use in "causes".)"""
    assert is_quantity_noun(noun) and is_quantity_noun(other_number(noun).upper())


@pytest.mark.parametrize("noun", sorted(DOCUMENT_NOUNS))
def test_a_document_noun_is_read_in_either_number(noun: str) -> None:
    assert is_document_noun(noun) and is_document_noun(other_number(noun))


@pytest.mark.parametrize("term", ["Charges", "Rate", "Pricing", "Limits of liability"])
def test_a_heading_naming_a_contract_term_labels_its_figures(term: str) -> None:
    assert names_a_quantity(term) == term
    assert is_contract_term(term.split()[0])


@pytest.mark.parametrize("topic", ["Revenue", "Income", "Compensation", "Assets"])
def test_a_heading_naming_a_topic_labels_nothing(topic: str) -> None:
    assert names_a_quantity(topic) is None and is_quantity_noun(topic)


@pytest.mark.parametrize("noun", ["charge", "charges", "rates", "payouts", "budgets"])
def test_a_contract_term_after_an_amount_binds_it(noun: str) -> None:
    (c,) = analyze_query(f"a $500 {noun}").constraints
    assert c.label == noun
