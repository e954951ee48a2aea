"""A kind of document named alone asks for the document's whole figure under any name a
label gives it, end to end: a quote whose total is written "Total quotation", "Total
price" or "Total including sales tax" is found by "quotes over $2,000" — and never by its
subtotal, its total tax or what was paid on it —, and "tiling quotes over $2,000 total"
asks the tiling quote's total, on OpenSearch, Elasticsearch and the embedded index, in
bm25 (the filters are the same in every leg of every mode).

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
    # the total named as a quotation's: $2,592; a total tax of $192
    "tile-quote": "# Bathroom tiling quotation: Oakline Tiling\n\n| Item | Amount |\n"
    "|---|---:|\n| Wall tiles, supply and fix | $1,650.00 |\n| Floor tiles and screed |"
    " $750.00 |\n| Subtotal | $2,400.00 |\n| Total tax | $192.00 |\n"
    "| Total quotation | $2,592.00 |\n",
    # the total with the tax it holds: $2,160; the price before tax $2,000
    "plaster-quote": "# Plastering quote: Greywall Plasterers\n\n| Item | Amount |\n"
    "|---|---:|\n| Skim coat, three rooms | $2,000.00 |\n| Sales tax | $160.00 |\n"
    "| Total including sales tax | $2,160.00 |\n",
    # the total named as the price: $3,100; $500 paid on it so far
    "paint-quote": "# Painting quote: Brightside Decorators\n\n- Exterior walls: $2,300.00\n"
    "- Trim and doors: $800.00\n- Total price: $3,100.00\n- Total paid to date: $500.00\n",
    # a subtotal over $2,000 and a total under it: $1,800
    "fence-quote": "# Fencing quote: Pale and Post\n\n| Item | Amount |\n|---|---:|\n"
    "| Cedar panels and posts | $2,400.00 |\n| Subtotal | $2,400.00 |\n"
    "| Trade discount | -$600.00 |\n| Total | $1,800.00 |\n",
}


documents = ingested_fixture(DOCUMENTS, "whole-totals")


_search = step_and_documents


ANSWERS = {
    # each quote's total over $2,000, whatever its label calls it — not Pale and Post's
    # subtotal
    "quotes over $2,000": ("bound", {"tile-quote", "plaster-quote", "paint-quote"}),
    # under $2,000: Pale and Post's total alone — never a total tax, a sales tax or what
    # was paid
    "quotes under $2,000": ("bound", {"fence-quote"}),
    # the total word after the amount: the tiling quote's total
    "tiling quotes over $2,000 total": ("bound", {"tile-quote"}),
}


@pytest.mark.parametrize("text", sorted(ANSWERS))
def test_a_documents_whole_figure_is_found_under_any_name_of_a_total(
    documents: BackendCase, text: str
) -> None:
    assert _search(documents, text) == ANSWERS[text]
