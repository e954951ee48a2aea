"""One reader of periods for both sides: a year written in a header, in a filing's prose
and in a question is read by the same rules — two digits by one pivot (``FY99`` is 1999
everywhere), a capital ``F`` before two digits a fiscal year (``F19``), the quarter
ordinals from one table."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.extract import extract_values
from osrag.lexicon.periods import (
    QUARTER_ORDINALS,
    period_of,
    stated_quarters,
    stated_years,
    two_digit_year,
)
from osrag.lexicon.scopes import read_scope
from osrag.models import ExtractionConfig
from osrag.search.analysis import analyze_query


def _prose_year(text: str) -> int | None:
    (fact,) = extract_values(text, ExtractionConfig()).facts
    return fact.year


def _asked(question: str) -> tuple[str | None, int | None]:
    (c,) = analyze_query(question).constraints
    return c.label, c.year


def test_fy99_is_1999_on_both_sides() -> None:
    assert period_of("FY99") == ("FY99", 1999)
    assert _prose_year("Revenue for FY99 was $5.2 million.") == 1999
    assert _asked("revenue in FY99 over $5 million") == ("revenue", 1999)


@given(st.integers(0, 99))
def test_two_digits_name_one_year_in_a_header_in_prose_and_in_a_question(value: int) -> None:
    digits = f"{value:02d}"
    year = two_digit_year(digits)
    assert year == (2000 + value if value < 70 else 1900 + value)
    assert period_of(f"FY{digits}") == (f"FY{digits}", year)
    assert period_of(f"F{digits}") == (f"F{digits}", year)
    assert _prose_year(f"Revenue for FY{digits} was $5.2 million.") == year
    assert _asked(f"revenue in FY{digits} over $5 million") == ("revenue", year)
    assert stated_years(f"sales in F{digits}?") == [(year, 6, 12)]  # "in F19": lead and year


@pytest.mark.parametrize(
    ("question", "year"),
    [
        ("revenue in 2019 over $5 million", 2019),
        ("revenue for fiscal 2019 over $5 million", 2019),
        ("revenue in F19 over $5 million", 2019),
        ("revenue as of December 31, 2019 over $5 million", 2019),
    ],
)
def test_a_question_states_a_year_the_way_a_filing_writes_it(question: str, year: int) -> None:
    assert _asked(question) == ("revenue", year)


def test_a_header_written_f19_is_fiscal_2019() -> None:
    assert period_of("F19") == ("F19", 2019)
    assert period_of("F18 (3)") == ("F18", 2018)
    assert period_of("f19") is None  # a lower-case f is no fiscal year


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("companies with net income for the year under $5 million", "net income"),
        ("revenue in the prior year over $5 million", "revenue"),
        ("revenue for fiscal 2019 over $5 million", "revenue"),
    ],
)
def test_a_time_phrase_is_not_part_of_a_questions_name(question: str, label: str) -> None:
    assert _asked(question)[0] == label


@pytest.mark.parametrize(("ordinal", "quarter"), sorted(QUARTER_ORDINALS.items()))
def test_every_quarter_ordinal_is_read_by_every_reader(ordinal: str, quarter: int) -> None:
    assert read_scope([ordinal, "quarter"]).period_part == f"q{quarter}"
    assert [q for q, _, _ in stated_quarters(f"revenue in the {ordinal} quarter")] == [quarter]
    assert period_of(f"{ordinal.capitalize()} quarter 2019") == (
        f"{ordinal.capitalize()} quarter 2019",
        2019,
    )
    assert _prose_year(f"Revenue for the {ordinal} quarter of 2019 was $5.2 million.") == 2019
