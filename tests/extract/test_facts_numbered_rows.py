"""A table whose first column only numbers or dates its rows: the row's name is the cell
after."""

from __future__ import annotations

from osrag.extract import extract_values
from osrag.schema.extraction import ExtractionConfig

BENEFITS = """| No. | Benefit | Maximum amount |
|---|---|---|
| 1 | Emergency medical expenses | £10,000,000 |
| 2. | Personal baggage | £1,500 |
| (c) | Travel delay | £200 |
| 4 | GL-NIT-M | £4.80 |
"""


def _labels(text: str) -> dict[str, str | None]:
    return {f.raw: f.label for f in extract_values(text, ExtractionConfig()).facts}


def test_a_numbered_row_is_named_by_the_cell_after_its_number() -> None:
    labels = _labels(BENEFITS)
    assert labels["£10,000,000"] == "Emergency medical expenses — Maximum amount"
    assert labels["£1,500"] == "Personal baggage — Maximum amount"
    assert labels["£200"] == "Travel delay — Maximum amount"


def test_a_code_after_the_number_names_nothing() -> None:
    assert _labels(BENEFITS)["£4.80"] == "Maximum amount"


def test_a_row_named_in_its_first_cell_keeps_its_name() -> None:
    text = "| Coverage | Limit |\n|---|---|\n| Personal liability | $300,000 |\n"
    assert _labels(text)["$300,000"] == "Personal liability — Limit"


def test_a_first_cell_with_no_word_names_nothing_the_cell_after_names_the_row() -> None:
    text = (
        "| Date | Service | Amount |\n|---|---|---|\n"
        "| 11/02/2025 | Dental cleaning | $140.00 |\n"
        "| | Total billed | $365.00 |\n"
        "| 11/09/2025 | 4471 | $25.00 |\n"
    )
    labels = _labels(text)
    assert labels["$140.00"] == "Dental cleaning"  # a date names no row
    assert labels["$365.00"] == "Total billed"  # nor does an empty cell
    assert labels["$25.00"] is None  # a figure after it names nothing either
