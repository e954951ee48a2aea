"""An amount in a list of keys and amounts that semicolons part takes its item's key."""

from __future__ import annotations

from osrag.extract import extract_values
from osrag.schema.extraction import ExtractionConfig


def _labels(text: str) -> list[tuple[str, str | None]]:
    return [(f.raw, f.label) for f in extract_values(text, ExtractionConfig()).facts]


def test_each_item_after_a_semicolon_takes_its_key() -> None:
    text = (
        "Each occurrence $1,000,000; General aggregate $2,000,000; Med exp (any one person) $5,000"
    )
    labels = _labels(text)
    assert ("$2,000,000", "General aggregate") in labels
    assert ("$5,000", "Med exp (any one person)") in labels


def test_a_list_wrapped_over_lines_is_read_as_one() -> None:
    text = "Each occurrence\n$1,000,000; General\naggregate $2,000,000;\nRetention\n$10,000"
    labels = _labels(text)
    assert ("$2,000,000", "General aggregate") in labels


def test_clauses_of_a_sentence_keep_their_prose_names() -> None:
    text = "The tenant pays rent of $1,000; the landlord pays taxes of $500."
    assert _labels(text) == [("$1,000", "rent"), ("$500", "taxes")]


def test_an_item_that_goes_on_after_its_amount_is_no_key() -> None:
    text = "Paid $5; Deposit $10 was returned to the buyer in March."
    assert ("$10", "Deposit") not in _labels(text)


def test_a_key_written_with_initials_is_still_a_short_key() -> None:
    # "E.L." is an abbreviation, not the end of a sentence; "Inc. Each" still ends one
    text = "Statutory; E.L. each accident $750,000; E.L. disease – policy limit $750,000"
    labels = _labels(text)
    assert ("$750,000", "E.L. each accident") in labels
    assert ("$750,000", "E.L. disease – policy limit") in labels
    assert ("$40,000", "Carrier Inc. Each claim") not in _labels(
        "Underwritten by Carrier Inc. Each claim $40,000"
    )
