"""A kind of document named alone asks for the document's own total, end to end: "bids over
$20,000" returns the bids whose total is over $20,000 — never one whose deposit, subtotal,
or an alternate line alone is in range — on OpenSearch, Elasticsearch and the embedded
index, in bm25 (the filters are the same in every leg of every mode:
tests/search/test_bound_contract.py). With no total in range anywhere, the amount ladder
falls as for any name.

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
    # a deposit, a subtotal and a total: the total is $24,624
    "ridge-bid": "# Roofing bid: Ridge Contractors\n\n| Item | Amount |\n|---|---:|\n"
    "| Tear-off and disposal | $6,400.00 |\n| Architectural shingles | $16,400.00 |\n"
    "| Subtotal | $22,800.00 |\n| Sales tax | $1,824.00 |\n| Total bid price | $24,624.00 |\n\n"
    "Deposit due at signing: $5,000.00\n",
    # an alternate over $20,000 and a total under it: the total is $18,350
    "cedar-bid": "# Roofing bid: Cedar Roofing\n\n| Item | Amount |\n|---|---:|\n"
    "| Repair and reflash | $17,000.00 |\n| Subtotal | $17,000.00 |\n"
    "| Permit | $1,350.00 |\n| Total | $18,350.00 |\n\n"
    "Alternate 1 (full replacement): $26,900.00\n\nDeposit: $3,000.00\n",
    # a grand total over $20,000, a subtotal under it
    "summit-bid": "# Roofing bid: Summit Exteriors\n\n- Labor: $9,800.00\n"
    "- Materials: $10,100.00\n- Subtotal: $19,900.00\n- Dumpster: $1,250.00\n"
    "- Grand total: $21,150.00\n- Deposit: $4,000.00\n",
    # a figure no label names: found only when no total anywhere is in range
    "gift-letter": "# Letter\n\nThe gift of $150,000.00 was received with thanks.\n",
}


documents = ingested_fixture(DOCUMENTS, "document-totals")


_search = step_and_documents


ANSWERS = {
    # the totals over $20,000: Ridge's total bid price, Summit's grand total — not Cedar's
    # alternate, nor any subtotal
    "bids over $20,000": ("bound", {"ridge-bid", "summit-bid"}),
    "roofing bids over $20,000": ("bound", {"ridge-bid", "summit-bid"}),
    # under $20,000: Cedar's total alone — every bid's deposit is under it, and Summit's
    # subtotal
    "bids under $20,000": ("bound", {"cedar-bid"}),
    # a deposit named is the deposit, not the total
    "bids with a deposit under $3,500": ("bound", {"cedar-bid"}),
    # no total over $100,000 anywhere: the ladder falls to any amount
    "bids over $100,000": ("role-free", {"gift-letter"}),
}


@pytest.mark.parametrize("text", sorted(ANSWERS))
def test_a_kind_of_document_named_alone_returns_the_documents_whose_total_meets_it(
    documents: BackendCase, text: str
) -> None:
    assert _search(documents, text) == ANSWERS[text]
