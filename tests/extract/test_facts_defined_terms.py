"""A defined term that refers back to an amount: right after it, or later in its sentence
when it names a quantity (:mod:`osrag.extract.facts.defined`).

Built for the forms, not for any file: each sentence here is made up."""

from __future__ import annotations

import pytest
from extracted import labels

from osrag.extract.facts.defined import defined_later


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "The Publisher will pay the Author two hundred thousand U.S. dollars ($200,000) "
            "per year under the following schedule (which the parties may change in writing) "
            '(the "Yearly Advance Guarantee"): a. on signing; b. on delivery.',
            "Yearly Advance Guarantee",
        ),
        (
            "Grower shall remit to the Cooperative $12,500 in each season for the use of its "
            "packing line (hereinafter referred to as the “Packing Fee”).",
            "Packing Fee",
        ),
        (
            "Each member contributes $750 to the common fund before March 1 of each year "
            '(collectively, the "Member Payments").',
            "Member Payments",
        ),
    ],
)
def test_a_defined_term_later_in_the_sentence_that_names_a_quantity_names_the_amount(
    text: str, label: str
) -> None:
    assert [lbl for _, lbl in labels(text)] == [label]


def test_a_later_defined_term_that_names_no_quantity_names_nothing() -> None:
    text = (
        "The Buyer shall take goods worth $40,000 from the Seller each quarter at its "
        'Leeds warehouse (the "Products").'
    )
    assert labels(text) == [("$40,000", None)]


def test_a_later_defined_term_past_another_amount_does_not_name_the_first() -> None:
    text = (
        "The Agent earns $2,000 per month while the Buyer places $9,000 with the escrow "
        'agent at closing (the "Escrow Deposit").'
    )
    assert labels(text) == [("$2,000", None), ("$9,000", "Escrow Deposit")]


def test_a_defined_term_after_the_clause_ends_names_nothing() -> None:
    text = (
        "The Client will hand the Firm $5,000 upon signing. The rest falls due when the "
        'works are done (the "Completion Fee").'
    )
    assert labels(text) == [("$5,000", None)]


def test_a_defined_term_after_the_parenthesis_the_amount_stands_in_names_nothing() -> None:
    assert defined_later(' per unit on issue) (the "Placement Fee")') is None
    assert defined_later(' per unit on issue (the "Placement Fee")') == "Placement Fee"


def test_the_name_the_sentence_links_the_amount_to_wins_over_a_later_term() -> None:
    text = 'Licensee shall pay a license fee of $5,000 due on signing (the "Signing Payment").'
    assert labels(text) == [("$5,000", "license fee")]


def test_a_parenthesis_between_the_amount_and_the_term_is_passed_over() -> None:
    after = ' a year for the term (as extended from time to time) ("Hosting Fee") and so on'
    assert defined_later(after) == "Hosting Fee"
