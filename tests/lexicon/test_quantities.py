"""The quantity nouns, the heading nouns (the terms of a contract a section heading may
name), the document nouns and the synonyms are the profiles' records, read in either
number."""

from __future__ import annotations

import pytest

from osrag.extract.facts.sections import names_a_quantity
from osrag.lexicon.profiles import builtin_vocabulary
from osrag.lexicon.quantities import (
    is_contract_term,
    is_document_noun,
    is_quantity_noun,
    synonyms_of,
)
from osrag.lexicon.words import other_number, singular
from osrag.search.analysis import analyze_query

VOCABULARY = builtin_vocabulary()


def test_the_heading_nouns_are_quantity_nouns_and_every_noun_is_singular() -> None:
    assert VOCABULARY.heading_nouns <= VOCABULARY.quantity_nouns
    for words in (VOCABULARY.quantity_nouns, VOCABULARY.document_nouns):
        assert all(singular(w) == w for w in words), sorted(w for w in words if singular(w) != w)
    assert not VOCABULARY.quantity_nouns & VOCABULARY.document_nouns


@pytest.mark.parametrize(
    "noun",
    sorted(
        VOCABULARY.quantity_nouns
        - {"cash", "excess", "equity", "bonus", "due", "financed", "vat", "gst", "cam"}
    ),
)
def test_a_quantity_noun_is_read_in_either_number(noun: str) -> None:
    """(Mass nouns have no plural; "bonuses" is a plural the one singulariser does not undo:
    -uses is -us in "bonuses" and -use in "causes"; an abbreviation and a participle have
    no plural.)"""
    assert is_quantity_noun(noun) and is_quantity_noun(other_number(noun).upper())


@pytest.mark.parametrize("noun", sorted(VOCABULARY.document_nouns))
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


def test_a_name_is_looked_up_among_the_synonyms_by_its_words_in_the_singular() -> None:
    assert "net sales" in synonyms_of("Net Sales")
    assert synonyms_of("net revenues") == synonyms_of("revenue")
    assert synonyms_of("amount payable") == synonyms_of("balance due")
    assert synonyms_of("a quantity no profile names") == ()
