"""What a question's reading does on every engine, end to end: bills whose heading calls
them something else still pass for "invoices", a bound written negative compares the signed
value, a label that states the unit itself is that unit's figure unless its amount states
another, a period no year has is
refused — on OpenSearch, Elasticsearch and the embedded index, in bm25 (the filters are the
same in every leg of every mode: tests/search/test_bound_contract.py).

What each query must return is written next to it, read from the documents by hand.
"""

from __future__ import annotations

import pytest
from backend_cases import (
    BackendCase,
    ingested_fixture,
    step_and_documents,
)

from osrag.errors import QueryError

DOCUMENTS = {
    # an invoice, a statement of account and a bill without a heading: all billing documents
    "northwind-invoice": "# Invoice 4471\n\n- Subtotal: $3,640.00\n- Total due: $4,025.30\n",
    "keystone-statement": "# Statement of account\n\n- Previous balance: $6,210.00\n"
    "- Balance due: $4,660.50\n",
    "plain-bill": "Water service, March.\n\nAmount due: $4,312.00\n",
    "small-invoice": "# Invoice 12\n\n- Total due: $312.00\n",
    # a patient's statement: what any bill calls its total due is the patient balance
    "clinic-statement": "# Patient statement\n\n- Office visit: $310.00\n"
    "- Insurance paid: $240.00\n- Amount you owe: $70.00\n",
    # results of the year: a loss, a smaller loss, a profit
    "calder-results": "# Calder results\n\n- Net loss: $(7.2) million\n",
    "orrin-results": "# Orrin results\n\n- Net loss: $(3.1) million\n",
    "lumen-results": "# Lumen results\n\n- Net income: $71.3 million\n",
    # premiums: a label that says the unit itself, and one that says none
    "annual-policy": "# Home policy\n\n- Annual premium: $1,846.00\n",
    "monthly-policy": "# Renters policy\n\n- Monthly premium: $16.50\n",
    # a monthly rent, and one whose label says monthly beside a rate a year per square foot
    "studio-lease": "# Studio lease\n\n- Monthly rent: $1,150.00\n",
    "tower-lease": "# Office lease\n\nMonthly rent for the suite is $9,800.00 ($24.00 per "
    "square foot per year), payable in advance.\n",
}


documents = ingested_fixture(DOCUMENTS, "question-reading")


_search = step_and_documents


ANSWERS = {
    # a document kind ranks and excludes none: the statement and the bill without a heading
    # pass, named by another of the total due's names
    "invoices with an amount payable over $4,000": (
        "bound", {"northwind-invoice", "keystone-statement", "plain-bill"},
    ),
    # read as written: a loss deeper than $5 million, never a magnitude over it
    "net income under -$5 million": ("bound", {"calder-results"}),
    "net income over -$5 million": ("bound", {"orrin-results", "lumen-results"}),
    # "a year": the label that says "annual" is the year's premium; "monthly" is not
    "premium above $10 a year": ("bound", {"annual-policy"}),
    "premium above $10 a month": ("bound", {"monthly-policy"}),
    # the label says "monthly", the $24.00 beside it says a year: no monthly rent under $2,000
    "leases with monthly rent under $2,000": ("bound", {"studio-lease"}),
    # no label names a patient balance: the total due of the bill that says "patient" is it
    "patient balance under $100": ("narrowed", {"clinic-statement"}),
}  # fmt: skip


@pytest.mark.parametrize("text", sorted(ANSWERS))
def test_the_reading_of_a_question_returns_the_documents_that_hold_it(
    documents: BackendCase, text: str
) -> None:
    assert _search(documents, text) == ANSWERS[text]


@pytest.mark.parametrize("text", ["Q5 revenue over $5 million", "net loss in month 13 over $5"])
def test_a_period_no_year_has_is_refused_never_searched_on_any_amount(
    documents: BackendCase, text: str
) -> None:
    with pytest.raises(QueryError, match="no period of a year"):
        _search(documents, text)
