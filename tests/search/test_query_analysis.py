"""Query text → amounts, dates, identifiers and the one amount that becomes a filter."""

from __future__ import annotations

import datetime as dt

from osrag.extract.money import Money
from osrag.models import ExtractionConfig
from osrag.search.analysis import analyze_query

USD_300K = Money(currency="USD", minor_units=30_000_000)


def test_exactly_one_amount_becomes_the_amount_filter() -> None:
    q = analyze_query("umbrella coverage $300,000")
    assert q.amount == USD_300K
    assert q.amount_status == "one"
    assert q.amounts == [USD_300K]


def test_no_amount_means_no_filter() -> None:
    q = analyze_query("umbrella coverage for rental properties")
    assert (q.amount, q.amount_status, q.amounts) == (None, "none", [])
    assert q.remaining_text == "umbrella coverage for rental properties"


def test_between_two_amounts_is_one_range_constraint() -> None:
    q = analyze_query("policies between $100,000 and $300,000")
    assert q.amount is None
    assert q.amount_status == "one"
    assert q.amounts == [Money(currency="USD", minor_units=10_000_000), USD_300K]
    [constraint] = q.constraints
    assert (constraint.op, constraint.bounds) == ("between", (10_000_000, 30_000_000))
    assert q.remaining_text == "policies"


def test_the_same_amount_written_twice_is_one_amount() -> None:
    q = analyze_query("limit of $300K ($300,000) per occurrence")
    assert (q.amount, q.amount_status) == (USD_300K, "one")
    assert len(q.money_mentions) == 2
    assert q.remaining_text == "limit of per occurrence"


def test_a_euro_amount_keeps_its_currency() -> None:
    q = analyze_query("Haftpflicht 300.000 €")
    assert q.amount == Money(currency="EUR", minor_units=30_000_000)
    assert q.amount.token == "EUR:30000000"


def test_a_negative_amount_filters_on_its_magnitude() -> None:
    assert analyze_query("refund of -$500").amount == Money(currency="USD", minor_units=50_000)


def test_dates_and_identifiers_are_found_and_removed_from_the_remaining_text() -> None:
    q = analyze_query("Is UMB-300000 in force on January 15, 2024, for $3M?")
    assert q.identifiers == ["UMB-300000"]
    assert q.dates == [dt.date(2024, 1, 15)]
    assert q.amount == Money(currency="USD", minor_units=300_000_000)
    assert q.remaining_text == "Is in force on, for?"


def test_the_config_decides_currency_and_date_order() -> None:
    config = ExtractionConfig(default_currency="CAD", date_order="DMY")
    q = analyze_query("$500 due 02/01/2024", config)
    assert q.amount == Money(currency="CAD", minor_units=50_000)
    assert q.dates == [dt.date(2024, 1, 2)]


def test_an_unrepresentable_amount_is_not_a_filter_and_is_reported() -> None:
    q = analyze_query("cap of $100,000,000,000,000,000")
    assert (q.amount, q.amount_status, q.constraints) == (None, "unrepresentable", [])
    assert "$100,000,000,000,000,000" in q.remaining_text
    [note] = q.amount_notes
    assert "$100,000,000,000,000,000" in note and "beyond a long" in note
    both = analyze_query("over $5 and under $100,000,000,000,000,000")
    assert both.amount_status == "one" and len(both.amount_notes) == 1


def test_the_analysis_serialises_to_json() -> None:
    q = analyze_query("$300K policy")
    assert '"amount":{"currency":"USD","minor_units":30000000}' in q.model_dump_json()
