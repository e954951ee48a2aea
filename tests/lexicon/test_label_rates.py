"""A rate written beside a label's name is no word of what the amount measures."""

from __future__ import annotations

import pytest

from osrag.lexicon.keys import asked_keys, label_keys


@pytest.mark.parametrize(
    ("label", "keys"),
    [
        ("VAT 21%", ("vat",)),
        ("Contractor discount 10%", ("contractor discount", "discount")),
        ("Sales tax @ 8.25%", ("sale tax", "tax")),
        ("Discount 5 %", ("discount",)),
        ("10% discount", ("discount",)),
        ("VAT (20%)", ("vat",)),
    ],
)
def test_a_rate_beside_the_name_is_left_out(label: str, keys: tuple[str, ...]) -> None:
    assert label_keys(label) == keys


def test_a_figure_without_a_percent_sign_stays() -> None:
    assert label_keys("Line 12") == ("line 12", "12")


def test_the_question_and_the_label_meet_on_the_name() -> None:
    assert set(asked_keys("VAT")) & set(label_keys("VAT 21%"))
    assert set(asked_keys("discount")) & set(label_keys("Contractor discount 10%"))
