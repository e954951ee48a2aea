"""Dates in text → ISO dates, with the numeric locale rule."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.extract.dates import extract_dates, parse_date

JAN_15 = dt.date(2024, 1, 15)


@pytest.mark.parametrize(
    "text",
    [
        "January 15, 2024",
        "january 15 2024",
        "JANUARY 15, 2024",
        "Jan 15, 2024",
        "Jan. 15, 2024",
        "January 15th, 2024",
        "15 January 2024",
        "15 Jan 2024",
        "15th of January, 2024",
        "15th day of January, 2024",
        "2024-01-15",
        "2024/01/15",
        "01/15/2024",
        "1/15/2024",
        "15.01.2024",
    ],
)
def test_supported_date_forms_give_the_iso_date(text: str) -> None:
    assert parse_date(text) == JAN_15
    [mention] = extract_dates(f"effective {text}; renewed later")
    assert (mention.raw, mention.date) == (text, JAN_15)


def test_the_iso_date_part_of_a_timestamp_is_a_date() -> None:
    [mention] = extract_dates("at 2024-01-15T10:00:00Z the policy")
    assert (mention.raw, mention.date) == ("2024-01-15", JAN_15)


def test_slash_dates_follow_the_configured_order_and_are_never_reinterpreted() -> None:
    assert parse_date("01/02/2024") == dt.date(2024, 1, 2)
    assert parse_date("01/02/2024", "DMY") == dt.date(2024, 2, 1)
    assert parse_date("15/01/2024", "DMY") == JAN_15
    assert parse_date("15/01/2024") is None  # month 15 under MDY: dropped, not swapped
    assert parse_date("01/15/2024", "DMY") is None


@pytest.mark.parametrize(
    "text",
    [
        "February 30, 2024",
        "2023-02-29",
        "1/15/24",
        "January 2024",
        "2024",
        "Section 3.2",
        "version 2.19.6",
        "v2024-01-15",
        "2024-01-155",
        "12024-01-15",
        "UMB-2024-01-15",
        "Mayday 15, 2024",
        "13.13.2024",
        "call 555-300-0000",
    ],
)
def test_not_dates_give_nothing(text: str) -> None:
    assert extract_dates(text) == []


@given(
    st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(9999, 12, 31)),
    st.sampled_from(["MDY", "DMY"]),
)
def test_every_supported_form_round_trips(day: dt.date, order: str) -> None:
    month_name = day.strftime("%B")
    slash = (
        f"{day.month:02d}/{day.day:02d}/{day.year}"
        if order == "MDY"
        else f"{day.day:02d}/{day.month:02d}/{day.year}"
    )
    for text in (
        day.isoformat(),
        f"{month_name} {day.day}, {day.year}",
        f"{day.day} {month_name[:3]} {day.year}",
        f"{day.day:02d}.{day.month:02d}.{day.year}",
        slash,
    ):
        [mention] = extract_dates(f"from {text} on", order)  # type: ignore[arg-type]
        assert mention.date == day, text
        assert mention.raw == text


def test_dates_are_found_in_order_with_their_spans() -> None:
    text = "From June 1, 2012 to 2013-06-01 and 31st December 2018."
    found = extract_dates(text)
    assert [d.date.isoformat() for d in found] == ["2012-06-01", "2013-06-01", "2018-12-31"]
    assert all(text[d.start : d.end] == d.raw for d in found)
