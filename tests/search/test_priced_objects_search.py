"""The quantity a question names by a verb and its object, and labels that end in when the
figure moved, end to end on OpenSearch, Elasticsearch and the embedded index (bm25):
"salons charging under $60 for a haircut" is the haircut's price, never another service's;
"landlords earning rent over" is the rent; an "admin fee" is the administration fee a
document writes out; "Deposit paid 2 March 2026" is a deposit and "Royalties earned this
period" royalties earned; a booking named alone asks for its total.

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
    # a haircut under $60, a colour over it
    "elm-salon": "# Elm Street Salon price list\n\n- Haircut: $48.00\n"
    "- Full colour: $95.00\n- Deposit for bookings over two hours: $30.00\n",
    # a haircut over $60, a fringe trim under it
    "birch-salon": "# Birch Studio prices\n\n- Haircut: $72.00\n- Fringe trim: $12.00\n",
    # an administration fee written out, beside a deposit paid on a date and a balance
    "harbour-hire": "# Harbour Boat Hire booking statement\n\n"
    "  Day charter, 8 hours ............................ $1,920.00\n"
    "  Administration fee ................................ $85.00\n"
    "  TOTAL .......................................... $2,005.00\n"
    "  Deposit paid 2 March 2026 ......................... $500.00\n"
    "  BALANCE DUE BY 1 JUNE 2026 .................... $1,505.00\n",
    # royalties earned for the period, before a reserve
    "quill-statement": "# Quill House royalty statement\n\n| Line | Amount |\n|---|---:|\n"
    "| Royalties earned this period | $4,210.00 |\n| Reserve against returns | ($420.00) |\n"
    "| Amount payable | $3,790.00 |\n",
    # total royalties over $5,000, beside an advance over it too
    "fernhill-statement": "# Fernhill Press statement\n\nTotal royalties: $5,120.00\n\n"
    "Advance: $6,000.00\n",
}


documents = ingested_fixture(DOCUMENTS, "priced-objects")


ANSWERS = {
    # the haircut's price: Elm's $48 — not Birch's $12 fringe trim, nor Elm's $30 deposit
    "salons charging under $60 for a haircut": ("bound", {"elm-salon"}),
    "salons charging over $60 for a haircut": ("bound", {"birch-salon"}),
    # the administration fee, asked clipped
    "boat hire with an admin fee under $100": ("bound", {"harbour-hire"}),
    # the deposit paid on a date, and the balance due by one
    "charters with a deposit between $400 and $600": ("bound", {"harbour-hire"}),
    "charters with a balance over $1,500": ("bound", {"harbour-hire"}),
    # royalties earned this period: $4,210 — not the amount payable $3,790, nor Fernhill's
    # total royalties (no figure of royalties earned)
    "statements with royalties earned over $4,000": ("bound", {"quill-statement"}),
    # "earning" and its object: the royalties — Fernhill's total, not its advance; Quill's
    # royalties earned are under $5,000
    "authors earning royalties over $5,000": ("bound", {"fernhill-statement"}),
    # a booking alone: its total, $2,005 — never the $1,920 charter line
    "boat bookings over $2,000": ("bound", {"harbour-hire"}),
}


@pytest.mark.parametrize("text", sorted(ANSWERS))
def test_the_quantity_a_verb_and_its_object_name_is_bound(
    documents: BackendCase, text: str
) -> None:
    assert step_and_documents(documents, text) == ANSWERS[text]


def test_a_booking_total_not_over_the_figure_is_not_returned(documents: BackendCase) -> None:
    # the booking's total $2,005 is under $2,500; its lines are too: nothing at the bound
    # step, and the ladder falls past it
    step, found = step_and_documents(documents, "boat bookings over $2,500")
    assert step != "bound" and "harbour-hire" not in found
