"""Forms of a question's name read end to end on OpenSearch, Elasticsearch and the embedded
index (bm25): what is left to pay said after the amount ("with less than $300 left to pay"),
a balance named alone, a name an indefinite article and the amount lead ("with a $40
consultation charge"), a qualifier of a compound name the documents do not repeat
("pre-employment background checks" → a price list's "Background check"), and "tops" as a
comparison.

What each query must return is written next to it, read from the documents by hand.
"""

from __future__ import annotations

import pytest
from backend_cases import (
    BackendCase,
    ingested_fixture,
    step_and_documents,
)

DOCUMENTS = {
    # a garage's bill: a payment made and what is left, beside the bill's own total
    "harbour-garage": "# Harbour Garage — Invoice 3391\n\n- Brake pads fitted: $420.00\n"
    "- Paid at drop-off: $200.00\n- Amount due: $260.00\n",
    # a glazier's bill whose figures are all above $300; what is left is $640
    "clearview-glass": "# Clearview Glazing — Invoice 118\n\n- Window unit: $980.00\n"
    "- Deposit received: $340.00\n- Balance due: $640.00\n",
    # a screening firm's price list: the check is a row, no word of employment beside it
    "vetline-screening": "# Vetline Screening — Prices\n\n- Background check: $38.00\n"
    "- Reference check: $55.00\n",
    # a salon's list: a consultation charge and a cancellation charge
    "lumen-salon": "# Lumen Salon — Charges\n\n- Consultation charge: $40.00\n"
    "- Cancellation charge: $25.00\n",
    # a law firm's hourly rates by grade
    "abbot-law": "# Abbot & Vale — Hourly rates\n\n- Partner: $420 per hour\n"
    "- Associate: $260 per hour\n",
}


documents = ingested_fixture(DOCUMENTS, "question-forms")


ANSWERS = {
    # what is left to pay, said after the amount: the garage's $260 amount due — never its
    # $200 payment, nor the glazier's figures (all over $300)
    "repair invoices with less than $300 left to pay": ("bound", {"harbour-garage"}),
    # a balance named alone: the glazier's $640 balance due, not its $980 or $340
    "glazing invoices with a balance between $600 and $700": ("bound", {"clearview-glass"}),
    # an article and the amount lead the name: the salon's $40 consultation charge, never the
    # screening firm's $38 check nor the salon's $25 cancellation charge
    "salons with a $40 consultation charge": ("bound", {"lumen-salon"}),
    # a qualifier no document repeats: the screening firm's $38 background check (the
    # narrowed step: "pre-employment" is said nowhere), never its $55 reference check
    "pre-employment background checks under $50": ("narrowed", {"vetline-screening"}),
    # "tops" compares: the partner's $420 an hour, not the associate's $260
    "law firms whose partner rate tops $400 an hour": ("narrowed", {"abbot-law"}),
}


@pytest.mark.parametrize("text", sorted(ANSWERS))
def test_a_question_form_binds_the_figure_it_names(documents: BackendCase, text: str) -> None:
    assert step_and_documents(documents, text) == ANSWERS[text]
