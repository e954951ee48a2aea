"""What is left to pay, as a question names it: said after the amount ("$400 left to
pay") it is the total due by every name; a balance named alone asks the names of it that
say "balance" and the word as written — never another name of the total due."""

from __future__ import annotations

import pytest

from osrag.search.analysis import analyze_query
from osrag.search.fact_filters import constraint_keys, named_keys


@pytest.mark.parametrize(
    "text",
    [
        "boiler service invoices with under $300 left to pay",
        "membership bills with €60 still due",
        "nursery accounts with more than £900 outstanding",
        "kennel invoices where less than $100 is still owed",
        "gym accounts with under £50 remaining",
        "repair bills where more than €200 remains unpaid",
    ],
)
def test_what_is_left_to_pay_is_the_total_due_by_every_name(text: str) -> None:
    (c,) = analyze_query(text).constraints
    keys = constraint_keys(c)
    assert {"balance due", "amount due", "total due", "balance to pay"} <= set(keys)
    assert "amount outstanding" in keys


def test_an_instalment_due_on_an_occasion_is_no_balance() -> None:
    (c,) = analyze_query("contracts with $5,000 due on signing").constraints
    assert "balance due" not in constraint_keys(c)


@pytest.mark.parametrize(
    "text",
    ["storage invoices with a balance under $2,000", "a balance of £600 to £700 on the account"],
)
def test_a_balance_named_alone_asks_the_names_that_say_balance(text: str) -> None:
    (c,) = analyze_query(text).constraints
    keys = constraint_keys(c)
    assert "balance due" in keys and "new balance" in keys
    assert all("balance" in k.split(" ") for k in keys)  # never "amount payable"
    assert "balance" in named_keys(c)  # a label "Balance" is the figure too


def test_a_question_naming_the_total_due_never_asks_a_bare_balance() -> None:
    (c,) = analyze_query("invoices with a total due over $4,000").constraints
    assert "balance" not in constraint_keys(c) and "balance" not in named_keys(c)
