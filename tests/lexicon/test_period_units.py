"""The period unit of a recurring amount — "per week", "monthly", "a year", "per annum" —
read by one function both sides can call, and found in a span of text."""

from __future__ import annotations

from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.lexicon.periods import (
    PERIOD_UNITS,
    UNIT_ADVERBS,
    PeriodUnit,
    period_unit_of,
    period_units_in,
)

UNITS: tuple[PeriodUnit, ...] = get_args(PeriodUnit)


def _forms(unit: PeriodUnit) -> st.SearchStrategy[str]:
    nouns = sorted(w for w, u in PERIOD_UNITS.items() if u == unit and w not in UNIT_ADVERBS)
    adverbs = sorted(w for w, u in PERIOD_UNITS.items() if u == unit and w in UNIT_ADVERBS)
    article = "an" if unit == "hour" else "a"
    lead = st.sampled_from(["per", "each", "every"])
    forms = [st.builds("{} {}".format, lead, st.sampled_from(nouns)), st.just(f"{article} {unit}")]
    if adverbs:
        forms.append(st.sampled_from(adverbs))
    return st.one_of(*forms)


CASED = st.sampled_from([str.lower, str.upper, str.title])
FORM = st.sampled_from(UNITS).flatmap(lambda u: st.tuples(st.just(u), _forms(u)))


@given(FORM, CASED, st.sampled_from(["", " ", "  "]))
def test_every_written_form_names_its_unit_in_any_case(
    form: tuple[PeriodUnit, str], case: object, pad: str
) -> None:
    unit, text = form
    written = case(text)  # type: ignore[operator]
    assert period_unit_of(f"{pad}{written}{pad}") == unit


@given(FORM, st.integers(1, 99_999), st.sampled_from(["rent", "premium", "salary", "fee"]))
def test_a_unit_after_an_amount_is_found_once_and_read_back_the_same(
    form: tuple[PeriodUnit, str], whole: int, noun: str
) -> None:
    unit, phrase = form
    text = f"The {noun} is ${whole:,} {phrase}, payable in advance."
    found = period_units_in(text)
    assert [u for u, _, _ in found] == [unit]
    (_, start, end) = found[0]
    assert text[start:end] == phrase and period_unit_of(text[start:end]) == unit


@pytest.mark.parametrize(
    ("text", "unit"),
    [("per annum", "year"), ("p.a.", "year"), ("per diem", "day"), ("/mo", "month"),
     ("per calendar month", "month"), ("yearly", "year"), ("annual", "year"), ("per hr", "hour"),
     ("/yr", "year"), ("an hour", "hour"), ("day rate", "day"), ("night-rate", "night"),
     ("hour rate", "hour"), ("per man-hour", "hour"), ("per painter-hour", "hour"),
     ("per crew-day", "day"), ("per in-person hour", "hour")],
)  # fmt: skip
def test_the_abbreviated_and_latin_forms(text: str, unit: PeriodUnit) -> None:
    assert period_unit_of(text) == unit


@pytest.mark.parametrize(
    "text",
    ["semi-annually", "biweekly", "every two weeks", "a year ago", "a quarter of",
     "a year from now", "the year", "years", "quarter", "Pa.", "per share", "per cent",
     "annual report", "annual general meeting", "annual leave", "monthly accounts",
     "per half hour", "per half-hour", "per quarter-hour", "per month-end"],
)  # fmt: skip
def test_a_multiple_a_fraction_or_a_bare_noun_names_no_unit(text: str) -> None:
    assert period_unit_of(text) is None


def test_the_finder_reads_units_in_a_span_and_nothing_else() -> None:
    text = (
        "Rent is $1,200 per month and $50 a week; $40/hr for repairs; a quarter of the "
        "shares vested a year ago; interest of 5% p.a., paid semi-annually."
    )
    found = [(u, text[s:e]) for u, s, e in period_units_in(text)]
    assert found == [("month", "per month"), ("week", "a week"), ("hour", "/hr"), ("year", "p.a.")]
    start = text.index("$50")
    assert [u for u, _, _ in period_units_in(text, start, start + 12)] == ["week"]


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("$0.09 per word", "word"),
        ("£2.50 a page", "page"),
        ("$6.40 a copy", "copy"),
        ("$0.18 per piece", "piece"),
        ("$2.85 per watt", "watt"),
        ("$48 per lesson", "lesson"),
        ("£40 each session", "session"),
        ("$70 per visit", "visit"),
        ("€30 for each additional page", "page"),
    ],
)
def test_a_unit_of_the_work_or_the_goods_supplied(text: str, unit: PeriodUnit) -> None:
    assert [u for u, _, _ in period_units_in(text)] == [unit]


@pytest.mark.parametrize("text", ["send a copy of the invoice", "a word of thanks", "pages 3-4"])
def test_a_unit_noun_without_a_price_before_it_names_no_rate(text: str) -> None:
    assert not any(u in {"copy", "word", "page"} and s > 0 for u, s, _ in period_units_in(text))
