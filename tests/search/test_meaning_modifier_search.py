"""A fee, charge or cost named for a thing whose price list names the thing alone, end to end
on OpenSearch, Elasticsearch and the embedded index: "outgoing wire fees under $25" is the
credit union's "Outgoing wire transfer ........ $20.00" — the labels matched by modifier
(:mod:`osrag.search.meaning`) add their keys to the bound filter, in bm25 (the filters are
the same in every leg of every mode: tests/search/test_bound_contract.py).

What each question must return is written beside it, read from the documents by hand.
"""

from __future__ import annotations

import pytest
from backend_cases import (
    BackendCase,
    ingested_fixture,
    step_and_documents,
)

from osrag.search.searcher import Searcher

DOCUMENTS = {
    # an outgoing wire at $20, an incoming one at $12, a stop payment at $30
    "oakline-fees": "# Oakline Credit Union — Fee Schedule\n\n"
    "Outgoing wire transfer ........................ $20.00\n\n"
    "Incoming wire transfer ........................ $12.00\n\n"
    "Stop payment .................................. $30.00\n",
    # an outgoing wire at $45, its label's one key the whole phrase; a cashier's check at $10
    "granite-fees": "# Granite Trust — Schedule of Fees\n\n| Service | Amount |\n|---|---:|\n"
    "| Outgoing wire transfer to another bank | $45.00 |\n| Cashier's check | $10.00 |\n",
    # implementation at $4,500 beside a subscription of $25,920
    "quill-order": "# QuillStack — Order Form\n\n| Item | Amount |\n|---|---:|\n"
    "| Implementation | $4,500.00 |\n| Annual subscription | $25,920.00 |\n",
    # a late fee and a deposit: what a role-free filter would pass
    "cedar-notice": "# Cedar Cabling — Notice\n\n- Late fee: $25.00\n"
    "- Equipment deposit: $5,000.00\n",
}


documents = ingested_fixture(DOCUMENTS, "meaning-modifier")


ANSWERS = {
    # Oakline's $20 outgoing wire — not its $12 incoming wire nor Granite's $10 check
    "outgoing wire fees under $25": ("bound", {"oakline-fees"}),
    # Granite's $45 outgoing wire — not Oakline's $30 stop payment
    "outgoing wire charges over $40": ("bound", {"granite-fees"}),
    # QuillStack's $4,500 implementation — not its subscription nor Cedar's deposit
    "order forms with an implementation fee of at least $4,000": ("bound", {"quill-order"}),
    "stop payment charge of $30": ("bound", {"oakline-fees"}),
    # a period word alone names nothing paid for: no label matches, and the ladder steps
    # down to a fact of any label stating the year (the annual subscription), per-unit
    "annual fee over $20,000": ("per-unit", {"quill-order"}),
}


@pytest.mark.parametrize("text", sorted(ANSWERS))
def test_a_fee_named_for_its_thing_finds_the_line_naming_the_thing(
    documents: BackendCase, text: str
) -> None:
    assert step_and_documents(documents, text) == ANSWERS[text]


def test_the_result_says_the_labels_matched_by_modifier(documents: BackendCase) -> None:
    result = Searcher(documents.backend, documents.alias, enforce_access=False).search(
        "outgoing wire fees under $25", mode="bm25"
    )
    (matches,) = result.label_matches
    assert matches.by_key == 0 and matches.by_modifier == 2
    assert {(m.label, m.by) for m in matches.matches} == {
        ("Outgoing wire transfer", "modifier"),
        ("Outgoing wire transfer to another bank", "modifier"),
    }
    assert set(matches.added_keys) == {
        "outgoing wire transfer",
        "outgoing wire transfer to another bank",
    }
